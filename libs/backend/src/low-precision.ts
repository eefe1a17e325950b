// Frozen weight matrices in low precision, read by the native kernels with fp32 accumulation:
//   int8  symmetric, one fp32 scale per row (per output channel of a [out, in] weight): w = q * scale,
//         scale = max|row| / 127, q = round(w / scale) in [-127, 127]
//   bf16  the top 16 bits of each float32, rounded to nearest, ties to even (what torch's .to(bfloat16) does)
// A matrix lives in the wasm heap as a packed int32 tensor (4 int8 or 2 bf16 values per element, row-major, the
// last element zero-padded) plus, for int8, its scales: tfjs counts and frees it like any tensor, and the kernels
// read it in place. Without the native kernels (another backend, no AVX2), products dequantise to a float32
// tensor per call and use tf.matMul: the same numbers, slower.
import * as tf from '@tensorflow/tfjs';
import { hasKernel, LOW_PRECISION_MATMUL, LOW_PRECISION_ROWS, type LowPrecisionAttrs } from './native-kernels';

export type LowPrecision = 'bf16' | 'int8';
/** How a model holds its frozen matrices: fp32 (as loaded), or one of the low precisions. */
export type WeightDtype = 'fp32' | LowPrecision;
export const WEIGHT_DTYPES: readonly WeightDtype[] = ['fp32', 'bf16', 'int8'];

/** A frozen matrix W [rows, cols] in low precision (see the file comment); dispose() frees its tensors. */
export class LowPrecisionMatrix {
  constructor(
    readonly dtype: LowPrecision,
    readonly shape: [number, number],
    /** int32 [ceil(rows * cols * bytes / 4)]: the values, packed. */
    readonly packed: tf.Tensor1D,
    /** float32 [rows] for int8; null for bf16. */
    readonly scales: tf.Tensor1D | null,
  ) {}

  /** The matrix of host values `data` [rows, cols] in `dtype`, as new tensors (kept out of any enclosing tidy). */
  static fromFloat32(data: Float32Array, shape: [number, number], dtype: LowPrecision): LowPrecisionMatrix {
    const [rows, cols] = shape;
    if (data.length !== rows * cols) throw new Error(`LowPrecisionMatrix: ${data.length} values for shape [${shape}]`);
    if (dtype === 'int8') {
      const { q, scales } = quantizeInt8(data, rows, cols);
      return LowPrecisionMatrix.fromHost('int8', shape, q, scales);
    }
    return LowPrecisionMatrix.fromHost('bf16', shape, toBf16(data), null);
  }

  /** From host values already in low precision: int8 values and their scales, or bf16 bits (a bf16 checkpoint's). */
  static fromHost(dtype: LowPrecision, shape: [number, number], values: Int8Array | Uint16Array, scales: Float32Array | null): LowPrecisionMatrix {
    const bytes = values.length * values.BYTES_PER_ELEMENT;
    const words = new Int32Array(Math.ceil(bytes / 4));
    new Uint8Array(words.buffer).set(new Uint8Array(values.buffer, values.byteOffset, bytes));
    return new LowPrecisionMatrix(dtype, shape, tf.keep(tf.tensor1d(words, 'int32')), scales ? tf.keep(tf.tensor1d(scales)) : null);
  }

  get bytes(): number {
    return this.packed.size * 4 + (this.scales?.size ?? 0) * 4;
  }

  /** The values as float32 on the host, [rows * cols] row-major. */
  toFloat32(): Float32Array {
    const [rows, cols] = this.shape;
    const words = this.packed.dataSync() as Int32Array;
    if (this.dtype === 'bf16') return bf16ToFloat32(new Uint16Array(words.buffer, words.byteOffset, rows * cols));
    return dequantizeInt8(new Int8Array(words.buffer, words.byteOffset, rows * cols), this.scales!.dataSync() as Float32Array, cols);
  }

  dispose(): void {
    this.packed.dispose();
    this.scales?.dispose();
  }
}

/** A weight as a layer holds it: a float32 tensor [out, in], or a frozen low-precision matrix. */
export type Weight = tf.Tensor2D | LowPrecisionMatrix;

/** float32 bits -> bfloat16 bits, rounding to nearest, ties to even (as torch does). */
export function f32BitsToBf16Bits(u: number): number {
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff; // NaN stays a (quiet) NaN
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff; // carries into the exponent as needed
}

/** float32 values -> bfloat16 bits, rounded to nearest even. */
export function toBf16(data: Float32Array): Uint16Array {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const out = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = f32BitsToBf16Bits(bits[i]);
  return out;
}

export function bf16ToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  const u = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) u[i] = bits[i] << 16;
  return out;
}

/** Symmetric per-row int8: scale = max|row| / 127 (1 for an all-zero row), q = round(w / scale) (ties away from 0). */
export function quantizeInt8(data: Float32Array, rows: number, cols: number): { q: Int8Array; scales: Float32Array } {
  const q = new Int8Array(rows * cols);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let c = r * cols; c < (r + 1) * cols; c++) max = Math.max(max, Math.abs(data[c]));
    const scale = max > 0 ? Math.fround(max / 127) : 1;
    scales[r] = scale;
    for (let c = r * cols; c < (r + 1) * cols; c++) {
      const v = data[c] / scale;
      q[c] = Math.max(-127, Math.min(127, Math.sign(v) * Math.round(Math.abs(v))));
    }
  }
  return { q, scales };
}

export function dequantizeInt8(q: Int8Array, scales: Float32Array, cols: number): Float32Array {
  const out = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) out[i] = q[i] * scales[Math.floor(i / cols)];
  return out;
}

/**
 * How lowPrecisionMatMul (the differentiable product: training and scoring) multiplies its activations with a frozen
 * int8 matrix in the native kernels: 'fp32' dequantises W into the fp32 GEMM; 'int16' quantises the activation rows
 * (x forward, dy for the input gradient) to int16 per row and per block of 512 values and multiplies them with the int8
 * values in integer arithmetic (native/int16_gemm.h; vpmaddwd, or vpdpwssd where the CPU has AVX-VNNI / AVX-512 VNNI,
 * chosen at run time): two to four times the multiply-adds per instruction, results within ~3e-5 of each row block's
 * largest value (the same numbers from every micro-kernel). Only products of more than 16 rows change; bf16 matrices, the decode path
 * (matMulWeight) and backends without the native kernels always use fp32.
 * Measured on the 0.5B shape (EXPERIMENTS.md): adapter gradients within 2.9e-4 (relative), the loss within
 * 7e-6; but a scoring pass moves token log-probabilities by up to 3.6e-4, above the 1e-4 by which PPO's sampler (the
 * decode path) and trainer must agree. So it is a stage's setting
 * (`int8Activations`, int8ActivationsField in libs/model): int16 for SFT and the reward model, fp32 (the default here)
 * wherever sampled log-probs are compared with trained ones.
 */
export type LowPrecisionActivations = 'fp32' | 'int16';
export const LOW_PRECISION_ACTIVATIONS: readonly LowPrecisionActivations[] = ['fp32', 'int16'];

let activations: LowPrecisionActivations = 'fp32';

/** The current setting (setLowPrecisionActivations; fp32 until a stage sets it). */
export function lowPrecisionActivations(): LowPrecisionActivations {
  return activations;
}

/** Runs `fn` with `kind` as the setting, then puts the one before back (a stage's setting ends with the stage). */
export async function withLowPrecisionActivations<T>(kind: LowPrecisionActivations, fn: () => Promise<T>): Promise<T> {
  const before = activations;
  setLowPrecisionActivations(kind);
  try {
    return await fn();
  } finally {
    activations = before;
  }
}

/** Sets how lowPrecisionMatMul multiplies activations with int8 matrices in this process (see LowPrecisionActivations). */
export function setLowPrecisionActivations(kind: LowPrecisionActivations): void {
  if (!LOW_PRECISION_ACTIVATIONS.includes(kind)) throw new Error(`setLowPrecisionActivations: fp32 or int16, got '${kind}'`);
  activations = kind;
}

const attrsOf = (w: LowPrecisionMatrix, transW: boolean, int16 = false): LowPrecisionAttrs =>
  ({ dtype: w.dtype, rows: w.shape[0], cols: w.shape[1], transW, ...(int16 && w.dtype === 'int8' ? { int16: true } : {}) });
const inputsOf = (w: LowPrecisionMatrix) => ({ packed: w.packed, ...(w.scales ? { scales: w.scales } : {}) });

/**
 * x [N, k] op(W): transW: W [n, k], x W^T; else W [k, n], x W. Not differentiable (see lowPrecisionMatMul). int16: an
 * int8 W multiplies x quantised to int16 in the native kernels (LowPrecisionActivations).
 */
function product(x: tf.Tensor2D, w: LowPrecisionMatrix, transW: boolean, int16 = false): tf.Tensor2D {
  if (hasKernel(LOW_PRECISION_MATMUL)) {
    return tf.engine().runKernel(LOW_PRECISION_MATMUL, { x, ...inputsOf(w) }, attrsOf(w, transW, int16) as unknown as tf.NamedAttrMap) as tf.Tensor2D;
  }
  return tf.tidy(() => tf.matMul(x, tf.tensor2d(w.toFloat32(), w.shape), false, transW));
}

/**
 * x [N, in] -> x W^T [N, out] for a frozen W [out, in] in low precision, accumulated in fp32. Differentiable in x
 * (dx = dy W, with the same dequantised W); W gets no gradient. With lowPrecisionActivations() 'int16' (read at each
 * call), an int8 W multiplies x and dy quantised to int16.
 */
export function lowPrecisionMatMul(x: tf.Tensor2D, w: LowPrecisionMatrix): tf.Tensor2D {
  if (x.shape[1] !== w.shape[1]) throw new Error(`lowPrecisionMatMul: x [${x.shape}] against W [${w.shape}]: inner sizes differ`);
  const int16 = lowPrecisionActivations() === 'int16';
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const x = args[0] as tf.Tensor2D;
    return { value: product(x, w, true, int16), gradFunc: (dy: tf.Tensor) => [product(dy as tf.Tensor2D, w, false, int16)] };
  });
  return f(x) as tf.Tensor2D;
}

/** Rows `ids` (int32 [N], each in [0, rows)) of W, dequantised -> [N, cols]: an embedding lookup. No gradient. */
export function lowPrecisionRows(w: LowPrecisionMatrix, ids: tf.Tensor1D): tf.Tensor2D {
  if (hasKernel(LOW_PRECISION_ROWS)) {
    return tf.engine().runKernel(LOW_PRECISION_ROWS, { ids, ...inputsOf(w) }, attrsOf(w, false) as unknown as tf.NamedAttrMap) as tf.Tensor2D;
  }
  return tf.tidy(() => tf.gather(tf.tensor2d(w.toFloat32(), w.shape), ids));
}

/**
 * x W^T for either kind of weight, for inference (the decode path): [N, in] against [out, in] -> [N, out]; a float32 W
 * through tf.matMul, a low-precision one without lowPrecisionMatMul's gradient wrapper (a decode step makes 100+).
 */
export function matMulWeight(x: tf.Tensor2D, w: Weight): tf.Tensor2D {
  return w instanceof LowPrecisionMatrix ? product(x, w, true) : tf.matMul(x, w, false, true);
}

/**
 * Matrices of one dtype and width stacked along their rows ([sum of rows, cols], new tensors), or null when their
 * packed values cannot simply be joined (a matrix whose values end inside an int32 word).
 */
export function stackRows(ms: LowPrecisionMatrix[]): LowPrecisionMatrix | null {
  const [first] = ms;
  const perWord = first.dtype === 'int8' ? 4 : 2;
  if (ms.some((m) => m.dtype !== first.dtype || m.shape[1] !== first.shape[1] || (m.shape[0] * m.shape[1]) % perWord !== 0)) return null;
  const rows = ms.reduce((n, m) => n + m.shape[0], 0);
  const packed = tf.keep(tf.concat(ms.map((m) => m.packed)));
  const scales = first.scales ? tf.keep(tf.concat(ms.map((m) => m.scales!))) : null;
  return new LowPrecisionMatrix(first.dtype, [rows, first.shape[1]], packed, scales);
}

/** The shape [out, in] of either kind of weight. */
export const weightShape = (w: Weight): [number, number] => (w instanceof LowPrecisionMatrix ? w.shape : (w.shape as [number, number]));
