// Frozen int8 / bf16 matrices: the quantisers against their definitions, and the native products (GEMV and GEMM,
// both orientations, odd shapes), the embedding-row lookup and the input gradient against fp32 references computed
// here in float64 from the same dequantised weights, plus the quantisation error against the fp32 weights within its
// bound. The fallback (no native kernels: dequantise + tf.matMul) must give the same numbers.
import * as tf from '@tensorflow/tfjs';
import {
  bf16ToFloat32, dequantizeInt8, f32BitsToBf16Bits, lowPrecisionActivations, lowPrecisionMatMul, LowPrecisionMatrix, lowPrecisionRows,
  quantizeInt8, setLowPrecisionActivations, stackRows, withLowPrecisionActivations, toBf16, type LowPrecision,
} from './low-precision';
import { int16Kernels, setInt16Kernel, type Int16Kernel } from './native';
import { hasNativeKernels } from './native-kernels';
import { initBackend } from './select';
import { closeness, nativeAddonBuilt, seededValues, withoutNativeKernels } from './testing';

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
  setLowPrecisionActivations('fp32'); // these tests are of the fp32 path; int16 below
});

/** y = x W^T in float64 for x [m, k], W [n, k] (or x W for W [k, n] when !transW). */
function reference(x: Float32Array, m: number, w: Float32Array, n: number, k: number, transW: boolean): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += x[i * k + p] * (transW ? w[j * k + p] : w[p * n + j]);
      out[i * n + j] = s;
    }
  }
  return out;
}

test('bf16 rounds to nearest, ties to even; back to float32 exactly', () => {
  const f = new Float32Array([1, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -9, -2.5, 0]);
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even (1); 1 + 3 * 2^-8 ties up to 1 + 2^-6; 1 + 2^-9 rounds down.
  expect(Array.from(bf16ToFloat32(toBf16(f)))).toEqual([1, 1, 1 + 2 ** -6, 1, -2.5, 0]);
  expect(f32BitsToBf16Bits(0x3f808000)).toBe(0x3f80);
});

test('int8 is symmetric per row: scale max|row| / 127, values rounded, a zero row exact', () => {
  const data = new Float32Array([1.27, -0.6, 0.3, 0, 0, 0, -2, 1.01, 0.5]);
  const { q, scales } = quantizeInt8(data, 3, 3);
  expect(Array.from(scales)).toEqual([Math.fround(Math.fround(1.27) / 127), 1, Math.fround(2 / 127)]);
  expect(Array.from(q)).toEqual([127, -60, 30, 0, 0, 0, -127, 64, 32]);
  const back = dequantizeInt8(q, scales, 3);
  for (let i = 0; i < 9; i++) expect(Math.abs(back[i] - data[i])).toBeLessThanOrEqual(scales[Math.floor(i / 3)] / 2 + 1e-7);
});

// [m, n, k]: one row (decode GEMV), a few rows (the skinny path, odd counts), many rows (the GEMM path, edges of its
// 6 x 16 tiles and 256-deep blocks), odd widths everywhere.
const SHAPES: Array<[number, number, number]> = [[1, 1, 1], [1, 37, 13], [1, 130, 300], [2, 9, 17], [3, 64, 33], [16, 20, 8], [17, 33, 7],
  [40, 130, 300], [100, 19, 257], [7, 5, 1]];

for (const dtype of ['int8', 'bf16'] as LowPrecision[]) {
  (nativeAddonBuilt() ? describe : describe.skip)(`${dtype} products against float64 references`, () => {
    test('the native kernels are in use', () => expect(hasNativeKernels()).toBe(true));

    for (const [m, n, k] of SHAPES) {
      test(`[${m}, ${k}] x W^T, W [${n}, ${k}], and the input gradient dy W`, () => {
        const before = tf.memory().numTensors;
        const w = seededValues(n * k, n + k);
        const x = seededValues(m * k, m * 7 + 1);
        const dy = seededValues(m * n, m * 11 + 3);
        const W = LowPrecisionMatrix.fromFloat32(w, [n, k], dtype);
        const deq = W.toFloat32();
        const [y, dx] = tf.tidy(() => {
          const xt = tf.tensor2d(x, [m, k]);
          const { value, grads } = tf.valueAndGrads((xs: tf.Tensor) => lowPrecisionMatMul(xs as tf.Tensor2D, W))([xt], tf.tensor2d(dy, [m, n]));
          return [value.dataSync(), grads[0].dataSync()] as const;
        });
        // Against the same dequantised weights: only the fp32 accumulation order differs.
        expect(closeness(y, reference(x, m, deq, n, k, true), 1e-5, 1e-5)).toBeLessThanOrEqual(1);
        expect(closeness(dx, reference(dy, m, deq, k, n, false), 1e-5, 1e-5)).toBeLessThanOrEqual(1);
        // Against the fp32 weights: within the quantisation error, |y - y32| <= sum_p |x_p| |w_p - w32_p|, with
        // |w - w32| <= scale / 2 (int8) or 2^-8 |w32| (bf16: 8 significant bits).
        const exact = reference(x, m, w, n, k, true);
        const scales = dtype === 'int8' ? quantizeInt8(w, n, k).scales : null;
        for (let i = 0; i < m; i++) {
          for (let j = 0; j < n; j++) {
            let bound = 1e-5;
            for (let p = 0; p < k; p++) bound += Math.abs(x[i * k + p]) * (scales ? scales[j] / 2 : 2 ** -8 * Math.abs(w[j * k + p]));
            expect(Math.abs(y[i * n + j] - exact[i * n + j])).toBeLessThanOrEqual(bound);
          }
        }
        W.dispose();
        expect(tf.memory().numTensors).toBe(before);
      });
    }

    test('rows of W (an embedding lookup), out-of-range ids rejected', () => {
      const [rows, cols] = [50, 37];
      const W = LowPrecisionMatrix.fromFloat32(seededValues(rows * cols, 5), [rows, cols], dtype);
      const deq = W.toFloat32();
      const ids = [0, 49, 7, 7, 23];
      const got = tf.tidy(() => lowPrecisionRows(W, tf.tensor1d(ids, 'int32')).dataSync());
      const want = new Float32Array(ids.flatMap((r) => Array.from(deq.subarray(r * cols, (r + 1) * cols))));
      expect(Array.from(got)).toEqual(Array.from(want));
      expect(() => tf.tidy(() => lowPrecisionRows(W, tf.tensor1d([50], 'int32')))).toThrow(/outside the matrix/);
      W.dispose();
    });

    test('without the native kernels (dequantise + tf.matMul) the same numbers', async () => {
      const [m, n, k] = [5, 33, 70];
      const W = LowPrecisionMatrix.fromFloat32(seededValues(n * k, 9), [n, k], dtype);
      const x = seededValues(m * k, 10);
      const run = () => tf.tidy(() => {
        const { value, grads } = tf.valueAndGrads((xs: tf.Tensor) => lowPrecisionMatMul(xs as tf.Tensor2D, W))([tf.tensor2d(x, [m, k])]);
        return [value.dataSync(), grads[0].dataSync(), lowPrecisionRows(W, tf.tensor1d([3, 1], 'int32')).dataSync()];
      });
      const native = run();
      const fallback = await withoutNativeKernels(() => {
        expect(hasNativeKernels()).toBe(false);
        return run();
      });
      native.forEach((a, i) => expect(closeness(a, fallback[i], 1e-5, 1e-5)).toBeLessThanOrEqual(1));
      W.dispose();
    });
  });
}

test('a stage\'s activations setting holds while it runs and is put back after it, also when it fails', async () => {
  expect(lowPrecisionActivations()).toBe('fp32');
  const seen = await withLowPrecisionActivations('int16', async () => lowPrecisionActivations());
  expect(seen).toBe('int16');
  expect(lowPrecisionActivations()).toBe('fp32');
  await expect(withLowPrecisionActivations('int16', async () => Promise.reject(new Error('stage failed')))).rejects.toThrow('stage failed');
  expect(lowPrecisionActivations()).toBe('fp32');
  expect(() => setLowPrecisionActivations('int4' as never)).toThrow("setLowPrecisionActivations: fp32 or int16, got 'int4'");
});

// int16 activations (LowPrecisionActivations): x and dy quantised per row and per block of 512 values to int16, then
// integer products with the int8 values. Against float64 over the same int8 weights, within the bound of that
// rounding: |err| <= sum over blocks of (max|a_blk| / 32767 / 2) * sum_{p in blk} |q_p| * scale (+ fp32 slack), with a
// the activation as the kernel sees it (dy times the row scale for the input gradient). Every micro-kernel this CPU
// has (AVX2 everywhere; AVX-VNNI, AVX-512 VNNI) is held to that bound and must give exactly the AVX2 kernel's numbers
// (the int32 sums are exact and the scaling is the same). Shapes cross the 6 x 16 and 8 x 32 tiles, the 512-deep
// blocks, the 96-row and 1024-column packing blocks and odd widths; up to 16 rows the fp32 path is kept.
const INT16_SHAPES: Array<[number, number, number]> = [[17, 33, 7], [40, 130, 300], [100, 19, 1030], [23, 200, 513], [64, 16, 1024],
  [104, 40, 70], [17, 1061, 20], [17, 30, 1040]];

(nativeAddonBuilt() ? describe : describe.skip)('int8 products with int16 activations', () => {
  let defaultKernel: Int16Kernel;
  let kernels: Int16Kernel[];
  beforeAll(() => {
    const k = int16Kernels()!;
    defaultKernel = k.active;
    kernels = k.available;
  });
  afterEach(() => {
    setLowPrecisionActivations('fp32');
    setInt16Kernel(defaultKernel);
  });

  test('the widest micro-kernel this CPU has is the default; one it lacks is refused', () => {
    expect(kernels[0]).toBe('avx2');
    expect(defaultKernel).toBe(kernels[kernels.length - 1]);
    expect(() => setInt16Kernel('sse2' as Int16Kernel)).toThrow("no int16 kernel 'sse2' on this CPU");
    expect(int16Kernels()!.active).toBe(defaultKernel);
  });

  /** The bound above for out[i, j] = sum_p a[i, p] q[p|j] s: rows of a [m, k], |q| [k] per output as a function. */
  function bound(a: Float32Array, m: number, k: number, i: number, absWeights: (p: number) => number): number {
    let b = 1e-5;
    for (let p0 = 0; p0 < k; p0 += 512) {
      let max = 0;
      let sum = 0;
      for (let p = p0; p < Math.min(k, p0 + 512); p++) {
        max = Math.max(max, Math.abs(a[i * k + p]));
        sum += absWeights(p);
      }
      b += (max / 32767 / 2) * sum * 1.0001;
    }
    return b;
  }

  for (const [m, n, k] of INT16_SHAPES) {
    test(`[${m}, ${k}] x W^T, W [${n}, ${k}], and dy W, within the int16 rounding`, () => {
      const before = tf.memory().numTensors;
      const w = seededValues(n * k, n + k + 1);
      const x = seededValues(m * k, m * 5 + 2);
      const dy = seededValues(m * n, m * 13 + 4);
      const W = LowPrecisionMatrix.fromFloat32(w, [n, k], 'int8');
      const { q, scales } = quantizeInt8(w, n, k);
      const deq = W.toFloat32();
      setLowPrecisionActivations('int16');
      expect(lowPrecisionActivations()).toBe('int16');
      const productOf = (kernel: Int16Kernel) => {
        setInt16Kernel(kernel);
        return tf.tidy(() => {
          const { value, grads } = tf.valueAndGrads((xs: tf.Tensor) => lowPrecisionMatMul(xs as tf.Tensor2D, W))([tf.tensor2d(x, [m, k])], tf.tensor2d(dy, [m, n]));
          return [value.dataSync() as Float32Array, grads[0].dataSync() as Float32Array] as const;
        });
      };
      const [y, dx] = productOf('avx2');
      const yRef = reference(x, m, deq, n, k, true);
      const dxRef = reference(dy, m, deq, k, n, false);
      // dy as the kernel quantises it: times the row scale of W (the reduction runs over W's rows).
      const dyScaled = new Float32Array(m * n);
      for (let i = 0; i < m; i++) for (let p = 0; p < n; p++) dyScaled[i * n + p] = dy[i * n + p] * scales[p];
      const yBound = new Float64Array(m * n);
      const dxBound = new Float64Array(m * k);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) yBound[i * n + j] = bound(x, m, k, i, (p) => Math.abs(q[j * k + p]) * scales[j]);
        for (let j = 0; j < k; j++) dxBound[i * k + j] = bound(dyScaled, m, n, i, (p) => Math.abs(q[p * k + j]));
      }
      for (const kernel of kernels) {
        const [yk, dxk] = kernel === 'avx2' ? [y, dx] : productOf(kernel);
        let worst = 0;
        for (let i = 0; i < m * n; i++) worst = Math.max(worst, Math.abs(yk[i] - yRef[i]) / yBound[i]);
        for (let i = 0; i < m * k; i++) worst = Math.max(worst, Math.abs(dxk[i] - dxRef[i]) / dxBound[i]);
        expect({ kernel, worst: worst <= 1 }).toEqual({ kernel, worst: true });
        expect({ kernel, same: Array.from(yk).every((v, i) => v === y[i]) && Array.from(dxk).every((v, i) => v === dx[i]) }).toEqual({ kernel, same: true });
      }
      // And close to the fp32 path overall: relative Frobenius error below 1e-4.
      setLowPrecisionActivations('fp32');
      const [y32, dx32] = tf.tidy(() => {
        const { value, grads } = tf.valueAndGrads((xs: tf.Tensor) => lowPrecisionMatMul(xs as tf.Tensor2D, W))([tf.tensor2d(x, [m, k])], tf.tensor2d(dy, [m, n]));
        return [value.dataSync() as Float32Array, grads[0].dataSync() as Float32Array] as const;
      });
      const rel = (a: ArrayLike<number>, b: ArrayLike<number>) => {
        let d = 0;
        let r = 0;
        for (let i = 0; i < a.length; i++) (d += (a[i] - b[i]) ** 2), (r += b[i] ** 2);
        return Math.sqrt(d / r);
      };
      expect(rel(y, y32)).toBeLessThan(1e-4);
      expect(rel(dx, dx32)).toBeLessThan(1e-4);
      W.dispose();
      expect(tf.memory().numTensors).toBe(before);
    });
  }

  test('bf16 matrices and products of up to 16 rows keep the fp32 path (the same numbers)', () => {
    const [n, k] = [37, 70];
    const w = seededValues(n * k, 21);
    for (const [dtype, m] of [['bf16', 40], ['int8', 16]] as Array<[LowPrecision, number]>) {
      const W = LowPrecisionMatrix.fromFloat32(w, [n, k], dtype);
      const x = seededValues(m * k, 22);
      const run = () => tf.tidy(() => lowPrecisionMatMul(tf.tensor2d(x, [m, k]), W).dataSync());
      setLowPrecisionActivations('fp32');
      const a = run();
      setLowPrecisionActivations('int16');
      expect(Array.from(run())).toEqual(Array.from(a));
      W.dispose();
    }
  });
});

test.each(['int8', 'bf16'] as LowPrecision[])('%s matrices stack along their rows unless their values end inside a packed word', (dtype) => {
  const before = tf.memory().numTensors;
  const a = LowPrecisionMatrix.fromFloat32(seededValues(6 * 8, 1), [6, 8], dtype);
  const b = LowPrecisionMatrix.fromFloat32(seededValues(2 * 8, 2), [2, 8], dtype);
  const odd = LowPrecisionMatrix.fromFloat32(seededValues(3 * 5, 3), [3, 5], dtype); // 15 values: ends inside a word
  const ab = stackRows([a, b])!;
  expect(ab.shape).toEqual([8, 8]);
  expect(Array.from(ab.toFloat32())).toEqual([...Array.from(a.toFloat32()), ...Array.from(b.toFloat32())]);
  expect(stackRows([odd, odd])).toBeNull();
  for (const m of [a, b, odd, ab]) m.dispose();
  expect(tf.memory().numTensors).toBe(before);
});
