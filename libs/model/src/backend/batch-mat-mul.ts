// A fast BatchMatMul kernel for the wasm backend.
//
// The stock wasm kernel reaches XNNPACK (packed, SIMD, multi-threaded) only when neither side is
// transposed and both batch sizes are 1; every other case, i.e. all backward matmuls of a linear
// layer and all attention matmuls, runs a scalar single-threaded loop (~2 GFLOP/s). Its batch
// broadcasting is also only right when the batch sizes are equal. This kernel reduces every case
// to XNNPACK calls `[rows, K] x [K, N]`:
//   - transposes are materialised with the wasm Transpose kernel (memory-bound, cheap next to the matmul);
//   - when b has batch size 1, all batches of a are folded into the rows of a single call;
//   - otherwise it loops over the (broadcast) batch, passing slices as views (no copies).
// XNNPACK caches its packed copy of b under b's tensor id, so b is passed by its own id when whole
// (weights stay packed across calls) and each slice gets a fresh view id that is disposed after use.
import * as tf from '@tensorflow/tfjs';
import type { BatchMatMulAttrs, BatchMatMulInputs, KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import {
  WasmBackendInternals,
  disposeView,
  heapOffset,
  internals,
  registerView,
  tensorId,
} from './wasm-internals';

const FLOAT_BYTES = 4;

type CppBatchMatMul = (
  aId: number, aShape: Uint8Array, aRank: number,
  bId: number, bShape: Uint8Array, bRank: number,
  transposeA: boolean, transposeB: boolean, outId: number,
) => void;
let cppBatchMatMul: CppBatchMatMul;

function setup(backend: unknown): void {
  const args = ['number', 'array', 'number', 'number', 'array', 'number', 'number', 'number', 'number'];
  cppBatchMatMul = internals(backend).wasm.cwrap(tf.BatchMatMul, null, args) as CppBatchMatMul;
}

const shapeBytes = (shape: number[]) => new Uint8Array(new Int32Array(shape).buffer);

/** out[rows, N] = a[rows, K] x b[K, N], tensors given by C++ id: the C++ kernel's XNNPACK path. */
function xnnMatMul(aId: number, rows: number, k: number, bId: number, n: number, outId: number): void {
  cppBatchMatMul(aId, shapeBytes([1, rows, k]), 3, bId, shapeBytes([1, k, n]), 3, false, false, outId);
}

/** Swaps the last two axes with the wasm Transpose kernel; the caller disposes the result. */
function transposeLast2(x: TensorInfo, backend: unknown): TensorInfo {
  const perm = x.shape.map((_, i) => i);
  const r = perm.length;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  const transpose = tf.getKernel(tf.Transpose, 'wasm');
  if (transpose == null) throw new Error('BatchMatMul (wasm): the wasm Transpose kernel is not registered');
  return transpose.kernelFunc({ inputs: { x }, backend: backend as tf.KernelBackend, attrs: { perm } }) as TensorInfo;
}

/** For each flat index into outShape, the flat index into inShape it reads under broadcasting. */
function broadcastIndices(outShape: number[], inShape: number[]): number[] {
  const offset = outShape.length - inShape.length; // inShape is right-aligned
  const total = tf.util.sizeFromShape(outShape);
  const result = new Array<number>(total);
  for (let flat = 0; flat < total; flat++) {
    let rest = flat;
    let inIndex = 0;
    let inStride = 1;
    for (let d = outShape.length - 1; d >= 0; d--) {
      const coord = rest % outShape[d];
      rest = Math.floor(rest / outShape[d]);
      if (d >= offset) {
        const inDim = inShape[d - offset];
        if (inDim !== 1) inIndex += coord * inStride;
        inStride *= inDim;
      }
    }
    result[flat] = inIndex;
  }
  return result;
}

function batchMatMul(args: { inputs: BatchMatMulInputs; backend: unknown; attrs: BatchMatMulAttrs }): TensorInfo {
  const a = args.inputs.a as TensorInfo;
  const b = args.inputs.b as TensorInfo;
  const { transposeA, transposeB } = args.attrs;
  const backend = internals(args.backend);
  if (a.dtype !== 'float32' || b.dtype !== 'float32') {
    throw new Error(`BatchMatMul (wasm): only float32 is supported, got a ${a.dtype} and b ${b.dtype}`);
  }
  if (a.shape.length < 2 || b.shape.length < 2) {
    throw new Error(`BatchMatMul (wasm): inputs must have rank >= 2, got a [${a.shape}] and b [${b.shape}]`);
  }
  const ra = a.shape.length;
  const rb = b.shape.length;
  const m = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  const k = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  const kb = transposeB ? b.shape[rb - 1] : b.shape[rb - 2];
  const n = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  if (k !== kb) {
    throw new Error(
      `Error in matMul: inner shapes (${k}) and (${kb}) of Tensors with shapes ${a.shape} and ` +
        `${b.shape} and transposeA=${transposeA} and transposeB=${transposeB} must match.`,
    );
  }
  const aBatchShape = a.shape.slice(0, -2);
  const bBatchShape = b.shape.slice(0, -2);
  const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(aBatchShape, bBatchShape);
  const batch = tf.util.sizeFromShape(batchShape);
  const batchA = tf.util.sizeFromShape(aBatchShape);
  const batchB = tf.util.sizeFromShape(bBatchShape);

  const out = backend.makeOutput([...batchShape, m, n], 'float32');
  if (batch * m * n === 0) return out;
  if (k === 0) {
    backend.typedArrayFromHeap(out).fill(0);
    return out;
  }

  // Row-major operands: aN [...aBatch, M, K], bN [...bBatch, K, N].
  const aN = transposeA ? transposeLast2(a, backend) : a;
  const bN = transposeB ? transposeLast2(b, backend) : b;
  try {
    if (batchB === 1) {
      // b is shared by every batch (batch === batchA): one call over batchA * M rows.
      xnnMatMul(tensorId(backend, aN), batchA * m, k, tensorId(backend, bN), n, tensorId(backend, out));
    } else {
      loopOverBatch(backend, aN, bN, out, { batchShape, aBatchShape, bBatchShape, m, k, n });
    }
  } finally {
    if (aN !== a) backend.disposeData(aN.dataId);
    if (bN !== b) backend.disposeData(bN.dataId);
  }
  return out;
}

/** One XNNPACK call per output batch, on views of the batch slices of aN, bN and out. */
function loopOverBatch(
  backend: WasmBackendInternals,
  aN: TensorInfo,
  bN: TensorInfo,
  out: TensorInfo,
  dims: { batchShape: number[]; aBatchShape: number[]; bBatchShape: number[]; m: number; k: number; n: number },
): void {
  const { batchShape, aBatchShape, bBatchShape, m, k, n } = dims;
  const aIndex = broadcastIndices(batchShape, aBatchShape);
  const bIndex = broadcastIndices(batchShape, bBatchShape);
  const aBase = heapOffset(backend, aN);
  const bBase = heapOffset(backend, bN);
  const outBase = heapOffset(backend, out);
  const aWhole = tf.util.sizeFromShape(aBatchShape) === 1 ? tensorId(backend, aN) : -1;
  for (let i = 0; i < aIndex.length; i++) {
    const aId = aWhole >= 0 ? aWhole : registerView(backend, aBase + aIndex[i] * m * k * FLOAT_BYTES, m * k);
    const bId = registerView(backend, bBase + bIndex[i] * k * n * FLOAT_BYTES, k * n);
    const outId = registerView(backend, outBase + i * m * n * FLOAT_BYTES, m * n);
    xnnMatMul(aId, m, k, bId, n, outId);
    if (aWhole < 0) disposeView(backend, aId);
    disposeView(backend, bId); // drops the XNNPACK operator packed for this slice
    disposeView(backend, outId);
  }
}

export const fastBatchMatMulConfig: KernelConfig = {
  kernelName: tf.BatchMatMul,
  backendName: 'wasm',
  setupFunc: setup as KernelConfig['setupFunc'],
  kernelFunc: batchMatMul as unknown as KernelFunc,
};
