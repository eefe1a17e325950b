// A fast BatchMatMul kernel for the wasm backend.
//
// The stock wasm kernel reaches XNNPACK (packed, SIMD, multi-threaded) only when neither side is
// transposed and both batch sizes are 1; every other case, i.e. all backward matmuls of a linear
// layer and all attention matmuls, runs a scalar single-threaded loop (~2 GFLOP/s). It also gets
// batch broadcasting wrong when both sides broadcast ([2,1,..] x [1,3,..]). This kernel reduces every case
// to XNNPACK calls `[rows, K] x [K, N]`:
//   - transposes are materialised first (a tiled JS copy: memory-bound, cheap next to the matmul);
//   - when b has batch size 1, all batches of a are folded into the rows of a single call;
//   - otherwise it loops over the (broadcast) batch, passing slices as views (no copies).
// XNNPACK caches its packed copy of b under b's tensor id, so b is passed by its own id when whole
// (weights stay packed across calls) and each slice gets a fresh view id that is disposed after use.
// Reshapes share the id: a b reshaped to another [K, N] also gets a fresh view id, since the cached
// operator of the first shape would read out of bounds.
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

// Tile edge of the transpose below: 8x8 float tiles measured fastest (~1.5 ns/element, against
// 3-9 for the wasm Transpose kernel on these shapes).
const TILE = 8;

/** Swaps the last two axes ([..., R, C] -> [..., C, R]) in tiles; the caller disposes the result. */
function transposeLast2(x: TensorInfo, backend: WasmBackendInternals): TensorInfo {
  const r = x.shape.length;
  const [rows, cols] = [x.shape[r - 2], x.shape[r - 1]];
  const out = backend.makeOutput([...x.shape.slice(0, -2), cols, rows], x.dtype);
  // Heap views only after makeOutput: allocating may grow the heap and detach older views.
  const src = backend.typedArrayFromHeap(x);
  const dst = backend.typedArrayFromHeap(out);
  for (let base = 0; base < src.length; base += rows * cols) {
    for (let i0 = 0; i0 < rows; i0 += TILE) {
      const i1 = Math.min(i0 + TILE, rows);
      for (let j0 = 0; j0 < cols; j0 += TILE) {
        const j1 = Math.min(j0 + TILE, cols);
        for (let i = i0; i < i1; i++) {
          for (let j = j0; j < j1; j++) dst[base + j * rows + i] = src[base + i * cols + j];
        }
      }
    }
  }
  return out;
}

// [K, N] that each b buffer (tfjs DataId, shared by reshapes) was first packed with.
const packedShapes = new WeakMap<object, string>();

/**
 * The C++ id to pass for a whole b viewed as [K, N]: its own id (cached packing) unless that id
 * was packed with another shape, then a fresh view (returned in `view` for disposal).
 */
function weightsId(backend: WasmBackendInternals, b: TensorInfo, k: number, n: number): { id: number; view: boolean } {
  const shape = `${k}x${n}`;
  const packed = packedShapes.get(b.dataId);
  if (packed === undefined) packedShapes.set(b.dataId, shape);
  if (packed === undefined || packed === shape) return { id: tensorId(backend, b), view: false };
  return { id: registerView(backend, heapOffset(backend, b), k * n), view: true };
}

/** For each flat index into outShape, the flat index into inShape it reads under broadcasting. */
export function broadcastIndices(outShape: number[], inShape: number[]): number[] {
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

/** A BatchMatMul kernel call unpacked and checked as tfjs checks it: op(a) [..., m, k] x op(b) [..., k, n]. */
export function batchMatMulArgs(args: { inputs: BatchMatMulInputs; backend: unknown; attrs: BatchMatMulAttrs }) {
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
  return { a, b, transposeA, transposeB, backend, m, n, k, aBatchShape, bBatchShape, batchShape };
}

function batchMatMul(args: { inputs: BatchMatMulInputs; backend: unknown; attrs: BatchMatMulAttrs }): TensorInfo {
  const { a, b, transposeA, transposeB, backend, m, n, k, aBatchShape, bBatchShape, batchShape } = batchMatMulArgs(args);
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
      const weights = weightsId(backend, bN, k, n);
      xnnMatMul(tensorId(backend, aN), batchA * m, k, weights.id, n, tensorId(backend, out));
      if (weights.view) disposeView(backend, weights.id);
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
