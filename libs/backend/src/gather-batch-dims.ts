// GatherV2 on the wasm backend, for two cases the stock kernel handles badly:
// - batchDims > 0: the wasm kernel returns wrong values, e.g. gathering each row's target logit with
//   tf.gather(logits [N, V], targets [N], 1, 1);
// - long slices (64 elements or more: KV-cache rows, embedding rows): the wasm kernel copies element by element
//   (a decoder's cache compaction, [rows, KV, capacity, hd] per layer, took 5 s of a 25 s evaluation); here each
//   slice is one typed-array copy.
// Short slices with batchDims = 0 still go to the stock kernel. Either way the values are copied, never computed:
// the results are the same bits.
import * as tf from '@tensorflow/tfjs';
import type { GatherV2Attrs, GatherV2Inputs, KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import { internals } from './wasm-internals';

/** Slices at least this long are copied here whatever batchDims is. */
const LONG_SLICE = 64;

export function gatherBatchDimsConfig(stock: KernelConfig): KernelConfig {
  const kernelFunc = (args: { inputs: GatherV2Inputs; backend: unknown; attrs: GatherV2Attrs }): TensorInfo => {
    const { axis, batchDims } = args.attrs;
    const x = args.inputs.x as TensorInfo;
    const indices = args.inputs.indices as TensorInfo;
    const backend = internals(args.backend);
    const parsedAxis = tf.util.parseAxisParam(axis, x.shape)[0];
    // x viewed as [batch, outer, dim, slice], indices as [batch, perBatch]
    const { batchSize, outerSize, dimSize, sliceSize, outputShape } =
      tf.backend_util.segment_util.collectGatherOpShapeInfo(x as tf.TensorInfo as tf.Tensor, indices as tf.TensorInfo as tf.Tensor, parsedAxis, batchDims);
    if (batchDims === 0 && sliceSize < LONG_SLICE) return stock.kernelFunc(args as unknown as Parameters<KernelFunc>[0]) as TensorInfo;
    const perBatch = tf.util.sizeFromShape(indices.shape) / batchSize;

    const out = backend.makeOutput(outputShape, x.dtype); // [batch, outer, perBatch, slice]
    // Heap views only after makeOutput: allocating may grow the heap and detach older views.
    const outValues = backend.typedArrayFromHeap(out);
    const xValues = backend.typedArrayFromHeap(x);
    const ids = backend.typedArrayFromHeap(indices);
    for (let b = 0; b < batchSize; b++) {
      for (let k = 0; k < perBatch; k++) {
        const index = ids[b * perBatch + k];
        if (index < 0 || index >= dimSize) {
          backend.disposeData(out.dataId);
          throw new Error(`GatherV2: the index value ${index} is not in [0, ${dimSize - 1}]`);
        }
        for (let o = 0; o < outerSize; o++) {
          const src = ((b * outerSize + o) * dimSize + index) * sliceSize;
          const dst = ((b * outerSize + o) * perBatch + k) * sliceSize;
          outValues.set(xValues.subarray(src, src + sliceSize), dst);
        }
      }
    }
    return out;
  };
  return { ...stock, kernelFunc: kernelFunc as unknown as KernelFunc };
}
