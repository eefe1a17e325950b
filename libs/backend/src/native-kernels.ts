// tfjs kernels for the wasm backend that compute in the native addon, directly on the wasm heap (no copies):
//   BatchMatMul                          every transpose and broadcast case, GEMM or the skinny path; fp32 or bf16
//                                        operands (gemmPrecision)
//   RlhfAdamW                            one fused AdamW pass per parameter (13 tfjs ops otherwise)
//   RlhfTargetLogProbs / ...Grad         log softmax(x)[t] and its gradient, one pass over [N, V] each
//   RlhfAttention / ...Grad              training attention (causal, GQA, RoPE) forward and backward
//   RlhfRmsNorm / ...Grad                RMSNorm forward and backward
//   RlhfSwiGLU / ...Grad                 silu(gate) * up forward and backward; RlhfSwiGLUPacked for [gate|up]
//   RlhfCachedAttention                  the decode path: RoPE + attention over a KV cache written in place
//   RlhfDecodeLayer                      the decode path: a whole decoder layer in one call (norms, products, attention)
//   UnsortedSegmentSum                   float32 scatter-add (the embedding gradient), replacing the JS kernel
//   Add, Sum                             float32 with equal shapes or a broadcast row / over leading axes (biases and
//                                        their gradients, the backward pass's gradient sums), the rest by stock kernels
//   RlhfLowPrecisionMatMul / ...Rows     products with / rows of a frozen int8 or bf16 matrix (low-precision.ts)
// The Rlhf* names are this project's own kernels, registered only while the addon is loaded. Callers reach them
// through the functions below: fusedAdamW and fusedTargetLogProbs return null when the current backend has no such
// kernel (tfjs-node, cpu, or wasm without the addon); the model checks hasNativeKernels() first. Either way the
// caller keeps its composite tfjs ops for the other backends.
import * as tf from '@tensorflow/tfjs';
import type { BatchMatMulAttrs, BatchMatMulInputs, KernelConfig, KernelFunc, NamedAttrMap, TensorInfo } from '@tensorflow/tfjs';
import { batchMatMulArgs, broadcastIndices } from './batch-mat-mul';
import { nativeAddon, NativeAddon, type GemmPrecision } from './native';
import { heapF32, heapOffset, internals, WasmBackendInternals } from './wasm-internals';

const ADAMW = 'RlhfAdamW';
const TARGET_LOGPROBS = 'RlhfTargetLogProbs';
const TARGET_LOGPROBS_GRAD = 'RlhfTargetLogProbsGrad';
const CACHED_ATTENTION = 'RlhfCachedAttention';
const DECODE_LAYER = 'RlhfDecodeLayer';
const RMS_NORM = 'RlhfRmsNorm';
const RMS_NORM_GRAD = 'RlhfRmsNormGrad';
const SWIGLU = 'RlhfSwiGLU';
const SWIGLU_GRAD = 'RlhfSwiGLUGrad';
const SWIGLU_PACKED = 'RlhfSwiGLUPacked';
const ATTENTION = 'RlhfAttention';
const ATTENTION_GRAD = 'RlhfAttentionGrad';
export const LOW_PRECISION_MATMUL = 'RlhfLowPrecisionMatMul';
export const LOW_PRECISION_ROWS = 'RlhfLowPrecisionRows';

function addon(): NativeAddon {
  const native = nativeAddon();
  if (native == null) throw new Error('a native kernel ran while the native addon is not loaded');
  return native;
}

/** A tensor's offset in the heap, in float32 elements. */
const at = (backend: WasmBackendInternals, t: TensorInfo) => heapOffset(backend, t) / 4;

export const GEMM_PRECISIONS: readonly GemmPrecision[] = ['fp32', 'bf16'];

let precision: GemmPrecision = 'fp32';

/**
 * The precision of the native BatchMatMul's operands, read at each call: fp32, or bf16 (both operands rounded to bf16,
 * round to nearest even, when the GEMM packs them; fp32 accumulation and fp32 output). It covers every tf.matMul on the
 * wasm backend with the addon, forward and backward (the projections, the LM head, their gradients): bf16 mixed-precision
 * training, whose weights, activations, gradients and optimizer state all stay fp32 tensors. The fused attention
 * kernels, the low-precision (frozen bf16 / int8) products and the other backends compute in fp32 whatever it says.
 */
export function gemmPrecision(): GemmPrecision {
  return precision;
}

/** Sets gemmPrecision() for the process (a stage's --precision). */
export function setGemmPrecision(p: GemmPrecision): void {
  if (!GEMM_PRECISIONS.includes(p)) throw new Error(`setGemmPrecision: fp32 or bf16, got '${p}'`);
  precision = p;
}

/**
 * Runs the synchronous `fn` with `p` as gemmPrecision(), then puts the one before back, also when it throws (a training
 * step, and the no-gradient passes it is compared with).
 */
export function inGemmPrecision<T>(p: GemmPrecision, fn: () => T): T {
  const before = precision;
  setGemmPrecision(p);
  try {
    return fn();
  } finally {
    precision = before;
  }
}

/** Runs `fn` with `p` as gemmPrecision(), then puts the one before back (a stage's setting ends with the stage). */
export async function withGemmPrecision<T>(p: GemmPrecision, fn: () => Promise<T>): Promise<T> {
  const before = precision;
  setGemmPrecision(p);
  try {
    return await fn();
  } finally {
    precision = before;
  }
}

function batchMatMul(args: { inputs: BatchMatMulInputs; backend: unknown; attrs: BatchMatMulAttrs }): TensorInfo {
  const { a, b, transposeA, transposeB, backend, m, n, k, aBatchShape, bBatchShape, batchShape } = batchMatMulArgs(args);
  const out = backend.makeOutput([...batchShape, m, n], 'float32');
  const batch = tf.util.sizeFromShape(batchShape);
  if (batch * m * n === 0) return out;
  const aIndex = broadcastIndices(batchShape, aBatchShape);
  const bIndex = broadcastIndices(batchShape, bBatchShape);
  const [aBase, bBase, outBase] = [at(backend, a), at(backend, b), at(backend, out)];
  const aOffsets = new Int32Array(batch);
  const bOffsets = new Int32Array(batch);
  const outOffsets = new Int32Array(batch);
  for (let i = 0; i < batch; i++) {
    aOffsets[i] = aBase + aIndex[i] * m * k;
    bOffsets[i] = bBase + bIndex[i] * k * n;
    outOffsets[i] = outBase + i * m * n;
  }
  addon().batchMatMul(heapF32(backend), transposeA, transposeB, m, n, k, aOffsets, bOffsets, outOffsets, precision);
  return out;
}

interface AdamWAttrs {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  /** Factor on p before the update: 1 - lr * weightDecay, or 1 without decay. */
  decay: number;
  /** Bias corrections 1 - beta^t. */
  bc1: number;
  bc2: number;
}

function adamW(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo[] {
  const { p, g, m, v } = args.inputs;
  const attrs = args.attrs as unknown as AdamWAttrs;
  const backend = internals(args.backend);
  const outs = [p, m, v].map((t) => backend.makeOutput(t.shape, 'float32'));
  const size = tf.util.sizeFromShape(p.shape);
  const [pOut, mOut, vOut] = outs.map((t) => at(backend, t));
  addon().adamw(heapF32(backend), at(backend, p), at(backend, g), at(backend, m), at(backend, v), pOut, mOut, vOut, size,
    attrs.lr, attrs.beta1, attrs.beta2, attrs.eps, attrs.decay, attrs.bc1, attrs.bc2);
  return outs;
}

function targetLogProbs(args: { inputs: Record<string, TensorInfo>; backend: unknown }): TensorInfo[] {
  const { x, targets } = args.inputs;
  const backend = internals(args.backend);
  const [rows, vocab] = x.shape;
  const value = backend.makeOutput([rows], 'float32');
  const lse = backend.makeOutput([rows], 'float32');
  addon().targetLogProbs(heapF32(backend), rows, vocab, at(backend, x), at(backend, targets), at(backend, value), at(backend, lse));
  return [value, lse];
}

function targetLogProbsGrad(args: { inputs: Record<string, TensorInfo>; backend: unknown }): TensorInfo {
  const { x, targets, lse, dy } = args.inputs;
  const backend = internals(args.backend);
  const [rows, vocab] = x.shape;
  const dx = backend.makeOutput([rows, vocab], 'float32');
  addon().targetLogProbsGrad(heapF32(backend), rows, vocab, at(backend, x), at(backend, targets), at(backend, lse),
    at(backend, dy), at(backend, dx));
  return dx;
}

/** Dimensions of a cached attention call; see fusedCachedAttention. */
export interface CachedAttentionAttrs {
  batch: number;
  seq: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Positions already in the cache. */
  past: number;
  /** RoPE base (config rope_theta). */
  theta: number;
}

function cachedAttention(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo {
  const { qkv, kCache, vCache, positions, keyMask } = args.inputs;
  const a = args.attrs as unknown as CachedAttentionAttrs;
  const backend = internals(args.backend);
  const out = backend.makeOutput([a.batch * a.seq, a.heads * a.headDim], 'float32');
  const capacity = kCache.shape[2];
  // kCache and vCache are written in place: they belong to the KV cache that passed them, and nothing else.
  addon().cachedAttention(heapF32(backend), a.batch, a.seq, a.heads, a.kvHeads, a.headDim, a.past, capacity, a.theta,
    at(backend, qkv), at(backend, positions), at(backend, keyMask), at(backend, kCache), at(backend, vCache), at(backend, out));
  return out;
}

/** How RlhfDecodeLayer's four matrices are held: float32, or packed int8 / bf16 (with int8's scales). */
export type DecodeMatrixDtype = 'fp32' | 'int8' | 'bf16';

/** Attributes of RlhfDecodeLayer: the cached attention's, plus the layer's sizes and the matrices' kinds. */
export interface DecodeLayerAttrs extends CachedAttentionAttrs {
  hidden: number; // D
  inner: number; // I
  eps: number; // rms_norm_eps
  /** qkv, o, gateUp, down: each float32 or low precision. */
  dtypes: [DecodeMatrixDtype, DecodeMatrixDtype, DecodeMatrixDtype, DecodeMatrixDtype];
  /** alpha / r of each projection's adapter, in DECODE_LORA_PROJECTIONS' order (0 where it has none). */
  loraScales: number[];
}

const DECODE_MATRICES = ['qkv', 'o', 'gateUp', 'down'] as const;
/** The addon's decodeLayer spec, in the order of LayerSpec in native/addon.cc (a matrix: type, values, scales). */
const DECODE_SPEC = ['batch', 'seq', 'heads', 'kvHeads', 'headDim', 'past', 'capacity', 'theta', 'hidden', 'inner', 'eps',
  'x', 'positions', 'keyMask', 'kCache', 'vCache', 'out', 'inputNorm', 'postNorm', 'qkvBias'] as const;
const MATRIX_TYPE = { fp32: -1, int8: 0, bf16: 1 } as const;
/** The projections whose LoRA adapters follow the matrices in the spec, 4 numbers each (rank, A, B, scale). */
export const DECODE_LORA_PROJECTIONS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type DecodeLoraProjection = (typeof DECODE_LORA_PROJECTIONS)[number];

function decodeLayer(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo {
  const a = args.attrs as unknown as DecodeLayerAttrs;
  const { inputs } = args;
  const backend = internals(args.backend);
  const out = backend.makeOutput(inputs.x.shape, 'float32');
  // The attributes, the cache's capacity, and the heap offsets of the inputs and the output.
  const fields: Record<string, number> = { ...(a as unknown as Record<string, number>), capacity: inputs.kCache.shape[2], out: at(backend, out) };
  for (const name of ['x', 'positions', 'keyMask', 'kCache', 'vCache', 'inputNorm', 'postNorm', 'qkvBias']) fields[name] = at(backend, inputs[name]);
  const matricesAt = DECODE_SPEC.length, loraAt = matricesAt + 3 * DECODE_MATRICES.length;
  const spec = new Float64Array(loraAt + 4 * DECODE_LORA_PROJECTIONS.length);
  DECODE_SPEC.forEach((field, i) => (spec[i] = fields[field]));
  DECODE_MATRICES.forEach((m, j) => {
    const dtype = a.dtypes[j];
    const scales = inputs[`${m}Scales`];
    spec.set([MATRIX_TYPE[dtype], at(backend, inputs[m]), scales ? at(backend, scales) : 0], matricesAt + 3 * j);
  });
  DECODE_LORA_PROJECTIONS.forEach((p, j) => {
    const A = inputs[`${p}.lora_A`];
    if (A) spec.set([A.shape[0], at(backend, A), at(backend, inputs[`${p}.lora_B`]), a.loraScales[j]], loraAt + 4 * j);
  });
  try {
    addon().decodeLayer(heapF32(backend), spec);
  } catch (err) {
    backend.disposeData(out.dataId);
    throw err;
  }
  return out;
}

function rmsNorm(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo {
  const { x, weight } = args.inputs;
  const backend = internals(args.backend);
  const out = backend.makeOutput(x.shape, 'float32');
  const dim = x.shape[x.shape.length - 1];
  addon().rmsNorm(heapF32(backend), tf.util.sizeFromShape(x.shape) / dim, dim, at(backend, x), at(backend, weight),
    args.attrs.eps as number, at(backend, out));
  return out;
}

function rmsNormGrad(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo[] {
  const { x, weight, dy } = args.inputs;
  const backend = internals(args.backend);
  const dx = backend.makeOutput(x.shape, 'float32');
  const dw = backend.makeOutput(weight.shape, 'float32');
  const dim = x.shape[x.shape.length - 1];
  addon().rmsNormGrad(heapF32(backend), tf.util.sizeFromShape(x.shape) / dim, dim, at(backend, x), at(backend, weight),
    args.attrs.eps as number, at(backend, dy), at(backend, dx), at(backend, dw));
  return [dx, dw];
}

function swiglu(args: { inputs: Record<string, TensorInfo>; backend: unknown }): TensorInfo {
  const { gate, up } = args.inputs;
  const backend = internals(args.backend);
  const [rows, inner] = gate.shape;
  const out = backend.makeOutput([rows, inner], 'float32');
  addon().swiglu(heapF32(backend), rows, inner, at(backend, gate), at(backend, up), inner, at(backend, out));
  return out;
}

function swigluPacked(args: { inputs: Record<string, TensorInfo>; backend: unknown }): TensorInfo {
  const { gateUp } = args.inputs;
  const backend = internals(args.backend);
  const [rows, twice] = gateUp.shape;
  const inner = twice / 2;
  const out = backend.makeOutput([rows, inner], 'float32');
  const base = at(backend, gateUp);
  addon().swiglu(heapF32(backend), rows, inner, base, base + inner, twice, at(backend, out));
  return out;
}

function swigluGrad(args: { inputs: Record<string, TensorInfo>; backend: unknown }): TensorInfo[] {
  const { gate, up, dy } = args.inputs;
  const backend = internals(args.backend);
  const [rows, inner] = gate.shape;
  const dg = backend.makeOutput(gate.shape, 'float32');
  const du = backend.makeOutput(up.shape, 'float32');
  addon().swigluGrad(heapF32(backend), rows, inner, at(backend, gate), at(backend, up), at(backend, dy), at(backend, dg), at(backend, du));
  return [dg, du];
}

/** The native scatter-add for float32; other dtypes go to `fallback` (the project's JS kernel). */
function segmentSumWith(fallback: KernelFunc) {
  return (args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo => {
    const { x, segmentIds } = args.inputs;
    const numSegments = args.attrs.numSegments as number;
    if (x.dtype !== 'float32' || segmentIds.dtype !== 'int32' || segmentIds.shape.length !== 1 ||
        segmentIds.shape[0] !== x.shape[0] || !Number.isInteger(numSegments) || numSegments < 0) {
      return fallback(args as Parameters<KernelFunc>[0]) as TensorInfo; // it also reports bad input
    }
    const backend = internals(args.backend);
    const out = backend.makeOutput([numSegments, ...x.shape.slice(1)], 'float32');
    const cols = tf.util.sizeFromShape(x.shape.slice(1));
    try {
      addon().segmentSum(heapF32(backend), x.shape[0], cols, at(backend, x), at(backend, segmentIds), numSegments, at(backend, out));
    } catch (err) {
      backend.disposeData(out.dataId);
      // A segment id out of range: the JS kernel names the offending index and value.
      fallback(args as Parameters<KernelFunc>[0]);
      throw err;
    }
    return out;
  };
}

/**
 * How `small` broadcasts over `big` as rows: the number of elements of a row (cols) when small's shape, leading 1s
 * dropped, is a suffix of big's; null otherwise.
 */
function broadcastRow(big: number[], small: number[]): number | null {
  let lead = 0;
  while (lead < small.length && small[lead] === 1) lead++;
  const row = small.slice(lead);
  if (row.length > big.length) return null;
  return row.every((d, i) => d === big[big.length - row.length + i]) ? tf.util.sizeFromShape(row) : null;
}

/**
 * Add for float32 with equal shapes or one operand a row broadcast over the other (a bias, the residual stream's
 * gradients): one native pass on the pool's threads. Other cases (int32, general broadcasting) go to `fallback`, the
 * stock wasm kernel (one thread).
 */
function addWith(fallback: KernelFunc) {
  return (args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo => {
    let { a, b } = args.inputs;
    if (a.dtype !== 'float32' || b.dtype !== 'float32') return fallback(args as Parameters<KernelFunc>[0]) as TensorInfo;
    if (tf.util.sizeFromShape(b.shape) > tf.util.sizeFromShape(a.shape)) [a, b] = [b, a]; // addition commutes, bit for bit
    const outShape = tf.backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
    const size = tf.util.sizeFromShape(a.shape);
    // Equal shapes: one flat row; a broadcast row of fewer than 8 values (a scalar) is the stock kernel's.
    const cols = tf.util.arraysEqual(a.shape, b.shape) ? size : broadcastRow(a.shape, b.shape);
    if (cols == null || cols < 8 || tf.util.sizeFromShape(outShape) !== size) return fallback(args as Parameters<KernelFunc>[0]) as TensorInfo;
    const backend = internals(args.backend);
    const out = backend.makeOutput(outShape, 'float32');
    addon().addRows(heapF32(backend), size / cols, cols, at(backend, a), at(backend, b), 1, at(backend, out));
    return out;
  };
}

/**
 * Sum for float32 over leading axes (a bias's gradient: [B, T, C] summed to [C]): the column sums of a [rows, cols]
 * view in one native pass, where the stock kernel transposes the input first. Other axes and dtypes go to `fallback`.
 */
function sumWith(fallback: KernelFunc) {
  return (args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo => {
    const { x } = args.inputs;
    const axes = tf.util.parseAxisParam(args.attrs.axis as number | number[], x.shape).sort((p, q) => p - q);
    const leading = axes.length > 0 && axes.length < x.shape.length && axes.every((d, i) => d === i);
    const cols = tf.util.sizeFromShape(x.shape.slice(axes.length));
    if (x.dtype !== 'float32' || !leading || cols < 8 || tf.util.sizeFromShape(x.shape) === 0) {
      return fallback(args as Parameters<KernelFunc>[0]) as TensorInfo;
    }
    const backend = internals(args.backend);
    const outShape = args.attrs.keepDims ? x.shape.map((d, i) => (i < axes.length ? 1 : d)) : x.shape.slice(axes.length);
    const out = backend.makeOutput(outShape, 'float32');
    addon().sumRows(heapF32(backend), tf.util.sizeFromShape(x.shape) / cols, cols, at(backend, x), at(backend, out));
    return out;
  };
}

/** Dimensions of a training attention call; see fusedAttention. */
export interface AttentionAttrs {
  batch: number;
  seq: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** RoPE base (config rope_theta). */
  theta: number;
  /** Shared prefix keys every row attends to before its own (fusedAttention's `prefix`); 0 or absent: none. */
  prefix?: number;
}

const attentionArgs = (backend: WasmBackendInternals, a: AttentionAttrs, inputs: Record<string, TensorInfo>) =>
  [heapF32(backend), a.batch, a.seq, a.heads, a.kvHeads, a.headDim, a.theta, at(backend, inputs.q), at(backend, inputs.k),
    at(backend, inputs.v), at(backend, inputs.positions), at(backend, inputs.keyMask)] as const;

function attention(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo[] {
  const a = args.attrs as unknown as AttentionAttrs;
  const backend = internals(args.backend);
  const out = backend.makeOutput([a.batch * a.seq, a.heads * a.headDim], 'float32');
  const lse = backend.makeOutput([a.batch, a.heads, a.seq], 'float32');
  addon().attentionForward(...attentionArgs(backend, a, args.inputs), at(backend, out), at(backend, lse), ...prefixArgs(backend, a, args.inputs));
  return [out, lse];
}

/** The prefix length and its keys' and values' offsets (0s without a prefix: the addon does not read them). */
const prefixArgs = (backend: WasmBackendInternals, a: AttentionAttrs, inputs: Record<string, TensorInfo>) =>
  (a.prefix ? [a.prefix, at(backend, inputs.kPrefix), at(backend, inputs.vPrefix)] : [0, 0, 0]) as [number, number, number];

function attentionGrad(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo[] {
  const a = args.attrs as unknown as AttentionAttrs;
  const { q, k, v, out, lse, dout, kPrefix, vPrefix } = args.inputs;
  const backend = internals(args.backend);
  const [dq, dk, dv] = [q, k, v].map((t) => backend.makeOutput(t.shape, 'float32'));
  const dPrefix = a.prefix ? [kPrefix, vPrefix].map((t) => backend.makeOutput(t.shape, 'float32')) : [];
  addon().attentionBackward(...attentionArgs(backend, a, args.inputs), at(backend, out), at(backend, lse), at(backend, dout),
    at(backend, dq), at(backend, dk), at(backend, dv), ...prefixArgs(backend, a, args.inputs), ...(a.prefix ? dPrefix.map((t) => at(backend, t)) : [0, 0]) as [number, number]);
  return [dq, dk, dv, ...dPrefix];
}

/** A frozen low-precision matrix W [rows, cols] (inputs `packed`, and `scales` for int8); transW: the product reads W^T. */
export interface LowPrecisionAttrs {
  dtype: 'int8' | 'bf16';
  rows: number;
  cols: number;
  transW: boolean;
  /** int8 only: multiply A quantised to int16 per row (see low-precision.ts lowPrecisionActivations); absent: fp32. */
  int16?: boolean;
}

/** The addon's (type, rows, cols, w, scales) arguments of a low-precision matrix. */
const lowPrecisionArgs = (backend: WasmBackendInternals, a: LowPrecisionAttrs, inputs: Record<string, TensorInfo>) =>
  [a.dtype === 'int8' ? 0 : 1, a.rows, a.cols, at(backend, inputs.packed), inputs.scales ? at(backend, inputs.scales) : 0] as const;

function lowPrecisionMatMul(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo {
  const a = args.attrs as unknown as LowPrecisionAttrs;
  const { x } = args.inputs;
  const backend = internals(args.backend);
  const m = x.shape[0];
  const out = backend.makeOutput([m, a.transW ? a.rows : a.cols], 'float32');
  addon().lowPrecisionMatMul(heapF32(backend), ...lowPrecisionArgs(backend, a, args.inputs), a.transW, m, at(backend, x), at(backend, out), a.int16 === true);
  return out;
}

function lowPrecisionRows(args: { inputs: Record<string, TensorInfo>; backend: unknown; attrs: NamedAttrMap }): TensorInfo {
  const a = args.attrs as unknown as LowPrecisionAttrs;
  const { ids } = args.inputs;
  const backend = internals(args.backend);
  const out = backend.makeOutput([ids.shape[0], a.cols], 'float32');
  try {
    addon().lowPrecisionRows(heapF32(backend), ...lowPrecisionArgs(backend, a, args.inputs), at(backend, ids), ids.shape[0], at(backend, out));
  } catch (err) {
    backend.disposeData(out.dataId);
    throw err;
  }
  return out;
}

const kernel = (kernelName: string, fn: unknown): KernelConfig => ({
  kernelName,
  backendName: 'wasm',
  kernelFunc: fn as KernelFunc,
});

export const nativeBatchMatMulConfig = kernel(tf.BatchMatMul, batchMatMul);
/** UnsortedSegmentSum computed natively for float32, delegating the rest to `fallback`. */
export const nativeSegmentSumConfig = (fallback: KernelConfig) => kernel(tf.UnsortedSegmentSum, segmentSumWith(fallback.kernelFunc));
/** Add and Sum computed natively for their common float32 cases (addWith, sumWith), the rest by the stock kernels. */
export const nativeAddConfig = (stock: KernelConfig): KernelConfig => ({ ...stock, kernelFunc: addWith(stock.kernelFunc) as unknown as KernelFunc });
export const nativeSumConfig = (stock: KernelConfig): KernelConfig => ({ ...stock, kernelFunc: sumWith(stock.kernelFunc) as unknown as KernelFunc });
/** The project's own kernels, registered for wasm while the addon is loaded. */
export const nativeOwnKernelConfigs = [
  kernel(ADAMW, adamW),
  kernel(TARGET_LOGPROBS, targetLogProbs),
  kernel(TARGET_LOGPROBS_GRAD, targetLogProbsGrad),
  kernel(CACHED_ATTENTION, cachedAttention),
  kernel(DECODE_LAYER, decodeLayer),
  kernel(RMS_NORM, rmsNorm),
  kernel(RMS_NORM_GRAD, rmsNormGrad),
  kernel(SWIGLU, swiglu),
  kernel(SWIGLU_GRAD, swigluGrad),
  kernel(SWIGLU_PACKED, swigluPacked),
  kernel(ATTENTION, attention),
  kernel(ATTENTION_GRAD, attentionGrad),
  kernel(LOW_PRECISION_MATMUL, lowPrecisionMatMul),
  kernel(LOW_PRECISION_ROWS, lowPrecisionRows),
];

/** Whether the current backend has the kernel `name` (the project's own ones: wasm with the addon loaded). */
export const hasKernel = (name: string) => tf.getKernel(name, tf.getBackend()) != null;

/**
 * One AdamW step of torch.optim.AdamW in one pass, or null when the current backend has no fused kernel.
 * Returns new tensors for p, m and v (the caller assigns them).
 */
export function fusedAdamW(
  p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, attrs: AdamWAttrs,
): { p: tf.Tensor; m: tf.Tensor; v: tf.Tensor } | null {
  if (!hasKernel(ADAMW)) return null;
  const [pNew, mNew, vNew] = tf.engine().runKernel(ADAMW, { p, g, m, v }, attrs as unknown as NamedAttrMap) as tf.Tensor[];
  return { p: pNew, m: mNew, v: vNew };
}

/**
 * The sum of squares of every element of `xs` (float32 tensors), in double, in one native pass over the heap (a
 * gradient norm's square: two tfjs kernels per tensor otherwise), or null when the current backend has no native
 * kernels or a tensor is not float32.
 */
export function nativeSumOfSquares(xs: readonly tf.Tensor[]): number | null {
  if (!hasNativeKernels() || xs.some((x) => x.dtype !== 'float32')) return null;
  const backend = internals(tf.backend());
  return addon().sumSquares(heapF32(backend), Int32Array.from(xs, (x) => at(backend, x)), Int32Array.from(xs, (x) => x.size));
}

/**
 * log softmax(x)[n, t_n] and logsumexp(x[n]) for x [N, V] float32, targets [N] int32 (each in [0, V)), or null
 * when the current backend has no fused kernel. Not differentiable itself: see fusedTargetLogProbsGrad.
 */
export function fusedTargetLogProbs(x: tf.Tensor2D, targets: tf.Tensor1D): { value: tf.Tensor1D; lse: tf.Tensor1D } | null {
  if (!hasKernel(TARGET_LOGPROBS)) return null;
  const [value, lse] = tf.engine().runKernel(TARGET_LOGPROBS, { x, targets }, {}) as tf.Tensor1D[];
  return { value, lse };
}

/** dy[n] * (onehot(t_n) - softmax(x[n])): the gradient of fusedTargetLogProbs' value; lse from its forward pass. */
export function fusedTargetLogProbsGrad(x: tf.Tensor2D, targets: tf.Tensor1D, lse: tf.Tensor1D, dy: tf.Tensor1D): tf.Tensor2D {
  return tf.engine().runKernel(TARGET_LOGPROBS_GRAD, { x, targets, lse, dy }, {}) as tf.Tensor2D;
}

/**
 * The sampler's softmax terms of a row of logits on the host: out[i] = exp((x[i] - max) * scale) with max the largest
 * x, in double precision (Math.exp's values within 2 ulp, summed in another order; 0 below exp(-708), so a masked
 * -Infinity weighs exactly 0), and { max, sum of out }. A vectorised pass instead of one Math.exp per token (1.8 ms a
 * step over Qwen2.5's 151,936 logits). null when the addon is not loaded: the caller's own loop then.
 */
export function nativeExpTerms(x: Float32Array, scale: number, out: Float64Array): { max: number; sum: number } | null {
  const native = nativeAddon();
  if (native == null) return null;
  const [max, sum] = native.expTerms(x, scale, out);
  return { max, sum };
}

/**
 * Whether the current backend has the project's native kernels (the wasm backend with the addon loaded): then
 * fusedAttention, fusedCachedAttention, fusedRmsNorm and the SwiGLU ops may be called.
 */
export function hasNativeKernels(): boolean {
  return hasKernel(ATTENTION);
}

/**
 * Qwen2 attention for inference over a preallocated KV cache (no gradient): qkv [B*T, (H + 2 KV) * hd] after the
 * projections' biases; kCache, vCache [B, KV, capacity, hd] receive this call's rotated keys and values at
 * [past, past + T) (written in place); positions int32 [B, T] (RoPE); keyMask [B, capacity] float, 1 for real
 * tokens up to past + T. Returns [B*T, H * hd]. Throws if the backend lacks the kernel (check hasNativeKernels).
 */
export function fusedCachedAttention(
  qkv: tf.Tensor2D, kCache: tf.Tensor4D, vCache: tf.Tensor4D, positions: tf.Tensor2D, keyMask: tf.Tensor2D, attrs: CachedAttentionAttrs,
): tf.Tensor2D {
  return tf.engine().runKernel(CACHED_ATTENTION, { qkv, kCache, vCache, positions, keyMask }, attrs as unknown as NamedAttrMap) as tf.Tensor2D;
}

/** A matrix of a decode layer: a float32 tensor, or a frozen low-precision one (LowPrecisionMatrix has these fields). */
export type DecodeMatrix = tf.Tensor2D | { dtype: 'int8' | 'bf16'; shape: [number, number]; packed: tf.Tensor1D; scales: tf.Tensor1D | null };

/** One decoder layer's weights as the decode path holds them (q/k/v and gate/up stacked by rows, HF's [out, in]). */
export interface DecodeLayerWeights {
  inputNorm: tf.Tensor1D; // input_layernorm.weight [D]
  qkv: DecodeMatrix; // q_proj, k_proj, v_proj weights stacked [(H + 2 KV) * hd, D]
  qkvBias: tf.Tensor1D; // their biases [(H + 2 KV) * hd]
  o: DecodeMatrix; // o_proj.weight [D, H * hd]
  postNorm: tf.Tensor1D; // post_attention_layernorm.weight [D]
  gateUp: DecodeMatrix; // gate_proj, up_proj weights stacked [2 I, D]
  down: DecodeMatrix; // down_proj.weight [D, I]
  /** LoRA adapters of some projections (eval mode: no dropout): y += x A^T (scale B)^T, A [r, in], B [out, r]. */
  lora?: Partial<Record<DecodeLoraProjection, { A: tf.Tensor2D; B: tf.Tensor2D; scale: number }>>;
}

/**
 * One Qwen2 decoder layer over a preallocated KV cache in a single native call (no gradient): x [B*T, D] ->
 * x + attn(rmsNorm(x)), then + mlp(rmsNorm(.)), [B*T, D], with the LoRA terms of the projections in `w.lora`; this
 * call's keys and values are written into kCache, vCache [B, KV, capacity, hd] as fusedCachedAttention does (same positions, keyMask and attrs). The same kernels as the
 * per-op decode path, in the same order. Throws if the backend lacks the kernel (check hasNativeKernels).
 */
export function fusedDecodeLayer(
  x: tf.Tensor2D, w: DecodeLayerWeights, kCache: tf.Tensor4D, vCache: tf.Tensor4D, positions: tf.Tensor2D, keyMask: tf.Tensor2D,
  attrs: CachedAttentionAttrs & { eps: number },
): tf.Tensor2D {
  const inputs: Record<string, tf.Tensor> = { x, positions, keyMask, kCache, vCache, inputNorm: w.inputNorm, postNorm: w.postNorm, qkvBias: w.qkvBias };
  const dtypes = DECODE_MATRICES.map((name) => {
    const m = w[name];
    if (m instanceof tf.Tensor) {
      inputs[name] = m;
      return 'fp32';
    }
    inputs[name] = m.packed;
    if (m.scales) inputs[`${name}Scales`] = m.scales;
    return m.dtype;
  });
  const loraScales = DECODE_LORA_PROJECTIONS.map((p) => {
    const l = w.lora?.[p];
    if (!l) return 0;
    inputs[`${p}.lora_A`] = l.A;
    inputs[`${p}.lora_B`] = l.B;
    return l.scale;
  });
  const full: DecodeLayerAttrs = { ...attrs, hidden: x.shape[1], inner: w.down.shape[1], dtypes: dtypes as DecodeLayerAttrs['dtypes'], loraScales };
  return tf.engine().runKernel(DECODE_LAYER, inputs, full as unknown as NamedAttrMap) as tf.Tensor2D;
}

/** RMSNorm over the last axis, differentiable: x / sqrt(mean(x^2) + eps) * weight. */
export function fusedRmsNorm(x: tf.Tensor, weight: tf.Tensor1D, eps: number): tf.Tensor {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, weight, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([x, weight]);
    return {
      value: tf.engine().runKernel(RMS_NORM, { x, weight }, { eps }) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [x, weight]: tf.Tensor[]) => tf.engine().runKernel(RMS_NORM_GRAD, { x, weight, dy }, { eps }) as tf.Tensor[],
    };
  });
  return f(x, weight);
}

/** silu(gate) * up for gate, up [N, I], differentiable. */
export function fusedSwiGLU(gate: tf.Tensor2D, up: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [gate, up, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([gate, up]);
    return {
      value: tf.engine().runKernel(SWIGLU, { gate, up }, {}) as tf.Tensor,
      gradFunc: (dy: tf.Tensor, [gate, up]: tf.Tensor[]) => tf.engine().runKernel(SWIGLU_GRAD, { gate, up, dy }, {}) as tf.Tensor[],
    };
  });
  return f(gate, up) as tf.Tensor2D;
}

/** silu(gate) * up for gateUp [N, 2I] = [gate | up] (no gradient: the decode path) -> [N, I]. */
export function fusedSwiGLUPacked(gateUp: tf.Tensor2D): tf.Tensor2D {
  return tf.engine().runKernel(SWIGLU_PACKED, { gateUp }, {}) as tf.Tensor2D;
}

/**
 * Qwen2 self-attention, differentiable: q [B*T, H*hd], k and v [B*T, KV*hd] (projections with bias, before RoPE),
 * positions int32 [B, T], keyMask [B, T] float (1 real, 0 padding) -> [B*T, H*hd]. Causal, grouped-query, rotary
 * embeddings applied inside; a query with no allowed key gives 0. Throws if the backend lacks the kernel
 * (check hasNativeKernels). Gradients flow to q, k and v.
 * With `prefix` (keys and values [n, KV*hd], before RoPE, at positions 0 .. n-1), every row's queries also attend to
 * those n shared tokens before their own (whose positions then start at n), and gradients flow to them too, summed
 * over the rows: a batch whose rows share their first tokens computes them once (libs/model shared-prefix.ts).
 */
export function fusedAttention(
  q: tf.Tensor2D, k: tf.Tensor2D, v: tf.Tensor2D, positions: tf.Tensor2D, keyMask: tf.Tensor2D, attrs: AttentionAttrs,
  prefix?: { k: tf.Tensor2D; v: tf.Tensor2D },
): tf.Tensor2D {
  const named = { ...attrs, prefix: prefix ? prefix.k.shape[0] : 0 } as unknown as NamedAttrMap;
  const extra = prefix ? [prefix.k, prefix.v] : [];
  // positions and keyMask are inputs too (with zero gradients) so that save() keeps them for the backward pass:
  // the caller's tidy may dispose them before it runs.
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const [q, k, v, positions, keyMask, kPrefix, vPrefix] = args.slice(0, -1) as tf.Tensor[];
    const inputs = { q, k, v, positions, keyMask, ...(prefix ? { kPrefix, vPrefix } : {}) };
    const [out, lse] = tf.engine().runKernel(ATTENTION, inputs, named) as tf.Tensor[];
    save([q, k, v, positions, keyMask, out, lse, ...(prefix ? [kPrefix, vPrefix] : [])]);
    const gradFunc = (dout: tf.Tensor, saved: tf.Tensor[]) => {
      const [q, k, v, positions, keyMask, out, lse, kPrefix, vPrefix] = saved;
      const grads = tf.engine().runKernel(ATTENTION_GRAD, { q, k, v, positions, keyMask, out, lse, dout, ...(prefix ? { kPrefix, vPrefix } : {}) }, named) as tf.Tensor[];
      const [dq, dk, dv, ...dPrefix] = grads;
      return [dq, dk, dv, tf.zerosLike(positions), tf.zerosLike(keyMask), ...dPrefix];
    };
    return { value: out, gradFunc };
  });
  return f(q, k, v, positions, keyMask, ...extra) as tf.Tensor2D;
}
