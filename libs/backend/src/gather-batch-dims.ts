// GatherV2 with batchDims > 0 on the wasm backend.
//
// The wasm kernel returns wrong values when batchDims > 0, e.g. gathering each row's target
// logit with tf.gather(logits [N, V], targets [N], 1, 1). For batchDims > 0 this kernel copies the
// slices in JS; batchDims = 0 (embeddings and everything else) still goes to the stock kernel.
import * as tf from '@tensorflow/tfjs';
import type { GatherV2Attrs, GatherV2Inputs, KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import { internals } from './wasm-internals';

export function gatherBatchDimsConfig(stock: KernelConfig): KernelConfig {
  const kernelFunc = (args: { inputs: GatherV2Inputs; backend: unknown; attrs: GatherV2Attrs }): TensorInfo => {
    const { axis, batchDims } = args.attrs;
    if (batchDims === 0) return stock.kernelFunc(args as unknown as Parameters<KernelFunc>[0]) as TensorInfo;
    const x = args.inputs.x as TensorInfo;
    const indices = args.inputs.indices as TensorInfo;
    const backend = internals(args.backend);
    const parsedAxis = tf.util.parseAxisParam(axis, x.shape)[0];
    // x viewed as [batch, outer, dim, slice], indices as [batch, perBatch]
    const { batchSize, outerSize, dimSize, sliceSize, outputShape } =
      tf.backend_util.segment_util.collectGatherOpShapeInfo(x as tf.TensorInfo as tf.Tensor, indices as tf.TensorInfo as tf.Tensor, parsedAxis, batchDims);
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
