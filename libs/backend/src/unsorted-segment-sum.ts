// UnsortedSegmentSum for the wasm backend, which has none. tfjs needs it for the gradient of
// tf.gather (embeddings): dTable = unsortedSegmentSum(dy rows, token ids, vocab size).
// out[s, ...] = sum of x[i, ...] over all i with segmentIds[i] == s.
import * as tf from '@tensorflow/tfjs';
import type { KernelConfig, KernelFunc, TensorInfo, UnsortedSegmentSumAttrs, UnsortedSegmentSumInputs } from '@tensorflow/tfjs';
import { internals } from './wasm-internals';

function unsortedSegmentSum(args: {
  inputs: UnsortedSegmentSumInputs;
  backend: unknown;
  attrs: UnsortedSegmentSumAttrs;
}): TensorInfo {
  const x = args.inputs.x as TensorInfo;
  const segmentIds = args.inputs.segmentIds as TensorInfo;
  const { numSegments } = args.attrs;
  const backend = internals(args.backend);
  if (x.dtype !== 'float32' && x.dtype !== 'int32') {
    throw new Error(`UnsortedSegmentSum (wasm): x must be float32 or int32, got ${x.dtype}`);
  }
  if (segmentIds.dtype !== 'int32') {
    throw new Error(`UnsortedSegmentSum (wasm): segmentIds must be int32, got ${segmentIds.dtype}`);
  }
  const idsRank = segmentIds.shape.length;
  if (segmentIds.shape.some((d, i) => d !== x.shape[i])) {
    throw new Error(
      `UnsortedSegmentSum (wasm): segmentIds shape [${segmentIds.shape}] must be a prefix of x shape [${x.shape}]`,
    );
  }
  if (!Number.isInteger(numSegments) || numSegments < 0) {
    throw new Error(`UnsortedSegmentSum (wasm): numSegments must be a non-negative integer, got ${numSegments}`);
  }
  const rowShape = x.shape.slice(idsRank); // x: [...ids.shape, ...rowShape]
  const rowSize = tf.util.sizeFromShape(rowShape);
  const out = backend.makeOutput([numSegments, ...rowShape], x.dtype); // [numSegments, ...rowShape]

  // Heap views only after makeOutput: allocating may grow the heap and detach older views.
  const outValues = backend.typedArrayFromHeap(out);
  const xValues = backend.typedArrayFromHeap(x);
  const ids = backend.typedArrayFromHeap(segmentIds);
  outValues.fill(0); // fresh heap memory is not zeroed
  for (let i = 0; i < ids.length; i++) {
    const s = ids[i];
    if (s < 0 || s >= numSegments) {
      backend.disposeData(out.dataId);
      throw new Error(`UnsortedSegmentSum (wasm): segmentIds[${i}] = ${s} is outside [0, ${numSegments})`);
    }
    const src = i * rowSize;
    const dst = s * rowSize;
    for (let j = 0; j < rowSize; j++) outValues[dst + j] += xValues[src + j];
  }
  return out;
}

export const unsortedSegmentSumConfig: KernelConfig = {
  kernelName: tf.UnsortedSegmentSum,
  backendName: 'wasm',
  kernelFunc: unsortedSegmentSum as unknown as KernelFunc,
};
