// The GEMM's micro-kernels (native/gemm_avx2.cc, kernels_avx512.cc; native.ts GemmKernel) against each other and
// against float64 references, called on the addon directly with a Float32Array as the heap:
//   fp32  every kernel this CPU has gives the AVX2 kernel's numbers bit for bit, within the fp32 bound of the exact sum;
//   bf16  within the fp32 bound of the exact sum of the bf16-rounded operands' products (vdpbf16ps or emulated), and
//         within bf16's own rounding (2^-8 relative per operand) of the exact fp32 product;
// on odd shapes (m, n, k not multiples of the 12 x 32 / 6 x 16 tiles or of the k blocks), every transpose, k = 1, tiny
// and multi-block shapes. Then the tfjs route (gemmPrecision) and the switches (setGemmKernel, RLHF_AVX512=0,
// RLHF_BF16_GEMM and the default by CPU vendor).
// With RLHF_AVX512=0 the addon offers the AVX2 kernel alone, and every test here runs on it.
import { spawnSync } from 'child_process';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { f32BitsToBf16Bits } from './low-precision';
import { ADDON_FILE, cpuVendor, defaultGemmKernel, gemmKernels, loadNative, nativeAddon, nativeSettings, setGemmKernel, type GemmKernel, type GemmPrecision, type NativeAddon } from './native';
import { gemmPrecision, setGemmPrecision, withGemmPrecision } from './native-kernels';
import { initBackend } from './select';
import { nativeAddonBuilt, runOn, seededValues } from './testing';

const U32 = 2 ** -24; // fp32's unit roundoff
const U_BF16 = 2 ** -8; // bf16's unit roundoff (8 significant bits): the relative rounding of one operand
const BF16_PRODUCT = 2 * U_BF16 + U_BF16 ** 2; // of a product of two rounded operands

/** x rounded to the nearest bf16 values (ties to even), as float32 values. */
function bf16(x: Float32Array): Float32Array {
  const out = Float32Array.from(x);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) bits[i] = f32BitsToBf16Bits(bits[i]) << 16;
  return out;
}

/** How many elements differ (bit for bit, NaN never equal). */
function differences(a: Float32Array, b: Float32Array): number {
  let count = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (!(a[i] === b[i])) count++;
  return count;
}

interface Case {
  m: number;
  k: number;
  n: number;
  transA: boolean;
  transB: boolean;
  a: Float32Array; // stored [m, k], or [k, m] transposed
  b: Float32Array; // stored [k, n], or [n, k] transposed
}

function makeCase(m: number, k: number, n: number, transA: boolean, transB: boolean): Case {
  return { m, k, n, transA, transB, a: seededValues(m * k, 3 * m + k), b: seededValues(k * n, 5 * n + k + 1) };
}

/** The exact products in float64: value [m, n] and the sum of |products| [m, n] that scales every error bound. */
function reference(c: Case, round: boolean): { value: Float64Array; magnitude: Float64Array } {
  const value = new Float64Array(c.m * c.n);
  const magnitude = new Float64Array(c.m * c.n);
  const [sa, sb] = round ? [bf16(c.a), bf16(c.b)] : [c.a, c.b];
  const a = new Float64Array(c.m * c.k); // op(A) [m, k]
  for (let i = 0; i < c.m; i++) for (let p = 0; p < c.k; p++) a[i * c.k + p] = sa[c.transA ? p * c.m + i : i * c.k + p];
  const b = new Float64Array(c.k * c.n); // op(B)^T [n, k]
  for (let j = 0; j < c.n; j++) for (let p = 0; p < c.k; p++) b[j * c.k + p] = sb[c.transB ? j * c.k + p : p * c.n + j];
  for (let i = 0; i < c.m; i++) {
    for (let j = 0; j < c.n; j++) {
      let s = 0, mag = 0;
      for (let p = 0; p < c.k; p++) {
        const x = a[i * c.k + p] * b[j * c.k + p];
        s += x;
        mag += x < 0 ? -x : x; // not Math.abs: a global looked up in jest's sandbox costs ~40x this loop
      }
      value[i * c.n + j] = s;
      magnitude[i * c.n + j] = mag;
    }
  }
  return { value, magnitude };
}

/** C [m, n] = op(A) op(B) on `kernel` in `precision`, through the addon's batchMatMul on a heap [A | B | C]. */
function product(addon: NativeAddon, kernel: GemmKernel, precision: GemmPrecision, c: Case): Float32Array {
  addon.setGemmKernel(kernel);
  const heap = new Float32Array(c.a.length + c.b.length + c.m * c.n).fill(NaN); // C must be overwritten
  heap.set(c.a, 0);
  heap.set(c.b, c.a.length);
  const offsets = (x: number) => Int32Array.of(x);
  addon.batchMatMul(heap, c.transA, c.transB, c.m, c.n, c.k, offsets(0), offsets(c.a.length), offsets(c.a.length + c.b.length), precision);
  return heap.slice(c.a.length + c.b.length);
}

/** Largest |got - want| / bound over the outputs, bound = relative * magnitude (+ a floor for exact zeros); <= 1 passes. */
function worst(got: Float32Array, want: Float64Array, magnitude: Float64Array, relative: number): number {
  let w = 0;
  for (let i = 0; i < got.length; i++) {
    const e = Math.abs(got[i] - want[i]) / (relative * magnitude[i] + 1e-30);
    if (!(e <= w)) w = e; // NaN-safe
  }
  return w;
}

/** Largest |got - want| / magnitude: how far from the exact product, relative to its scale. */
function relativeError(got: Float32Array, want: Float64Array, magnitude: Float64Array): number {
  let w = 0;
  for (let i = 0; i < got.length; i++) w = Math.max(w, Math.abs(got[i] - want[i]) / (magnitude[i] + 1e-30));
  return w;
}

// [m, k, n]: k = 1; exact tiles; odd edges of both tiles (12 x 32 and 6 x 16); several k blocks (fp32 256, bf16 512
// pairs of 2) with odd remainders; more rows than columns and the reverse (the threads split either way).
const SHAPES: Array<[number, number, number]> = [
  [17, 1, 17], [24, 1, 64], [12, 256, 32], [13, 257, 33], [25, 600, 70], [100, 300, 130], [37, 31, 700], [130, 513, 20],
  [150, 1031, 40], [61, 2, 45],
];
// Few rows or columns: fp32 takes the skinny kernels, bf16 still the packed GEMM (its packing rounds the operands).
const TINY: Array<[number, number, number]> = [[1, 1, 1], [3, 5, 7], [1, 33, 300], [300, 33, 1], [16, 9, 16]];
const TRANSPOSES: Array<[boolean, boolean]> = [[false, false], [true, false], [false, true], [true, true]];

(nativeAddonBuilt() ? describe : describe.skip)('GEMM micro-kernels against each other and float64', () => {
  let addon: NativeAddon;
  let kernels: GemmKernel[];
  let chosen: GemmKernel; // the default, restored after each test
  let widest: GemmKernel; // the widest kernel this CPU has
  let emulated: GemmKernel; // where bf16 runs emulated: the fp32 AVX-512 kernel beside avx512bf16, else the widest

  beforeAll(() => {
    const loaded = loadNative({ threads: 2 });
    if ('reason' in loaded) throw new Error(`the native kernels did not load: ${loaded.reason}`);
    addon = nativeAddon()!;
    kernels = addon.gemmKernels().available;
    chosen = addon.gemmKernels().active;
    widest = kernels[kernels.length - 1];
    emulated = widest === 'avx512bf16' ? 'avx512' : widest;
  });
  afterEach(() => addon.setGemmKernel(chosen));

  test('the default is the widest kernel, avx512bf16 only on AMD (never measured: a timing would flip under load); RLHF_AVX512=0 leaves AVX2 alone', () => {
    expect(kernels[0]).toBe('avx2');
    expect(addon.info().kernel).toBe(chosen);
    if (process.env.RLHF_AVX512 === '0') expect(kernels).toEqual(['avx2']);
    expect(defaultGemmKernel(addon, 'auto', 'AuthenticAMD')).toBe(widest);
    expect(defaultGemmKernel(addon, 'auto', 'GenuineIntel')).toBe(emulated);
    expect(defaultGemmKernel(addon, 'auto', '')).toBe(emulated);
    expect(chosen).toBe(defaultGemmKernel(addon, 'auto', cpuVendor()));
  });

  test('RLHF_BF16_GEMM: vdpbf16ps and emulated decide without measuring (the fp32 FMA kernel for emulated); a bad value is an error naming it', () => {
    expect(defaultGemmKernel(addon, 'vdpbf16ps')).toBe(widest);
    expect(defaultGemmKernel(addon, 'emulated')).toBe(emulated);
    expect(defaultGemmKernel(addon, 'auto')).toBe(chosen);
    const before = process.env.RLHF_BF16_GEMM;
    try {
      process.env.RLHF_BF16_GEMM = 'emulated';
      expect(nativeSettings().bf16Gemm).toBe('emulated');
      const loaded = loadNative({ threads: 2 });
      expect('info' in loaded && loaded.info.kernel).toBe(emulated);
      process.env.RLHF_BF16_GEMM = 'fast';
      expect(() => nativeSettings()).toThrow('RLHF_BF16_GEMM');
    } finally {
      if (before == null) delete process.env.RLHF_BF16_GEMM;
      else process.env.RLHF_BF16_GEMM = before;
      loadNative({ threads: 2 });
    }
    expect(addon.gemmKernels().active).toBe(chosen);
  });

  for (const [m, k, n] of [...SHAPES, ...TINY]) {
    for (const [ta, tb] of TRANSPOSES) {
      test(`[${m}, ${k}] x [${k}, ${n}], transA=${ta}, transB=${tb}: fp32 identical on every kernel, bf16 within its bounds`, () => {
        const c = makeCase(m, k, n, ta, tb);
        const exact = reference(c, false);
        const rounded = reference(c, true);
        const fp32 = product(addon, 'avx2', 'fp32', c);
        expect(worst(fp32, exact.value, exact.magnitude, (k + 2) * U32)).toBeLessThanOrEqual(1);
        for (const kernel of kernels) {
          // Same blocking along k, one FMA per k in order: the same float32 numbers.
          expect(differences(product(addon, kernel, 'fp32', c), fp32)).toBe(0);
          const bf = product(addon, kernel, 'bf16', c);
          // The exact sum of the rounded operands' products, to fp32 accumulation.
          expect(worst(bf, rounded.value, rounded.magnitude, (k + 2) * U32)).toBeLessThanOrEqual(1);
          // The exact fp32 product, to bf16 rounding of each operand (2^-8 each) plus that accumulation.
          expect(worst(bf, exact.value, exact.magnitude, BF16_PRODUCT + (k + 2) * U32)).toBeLessThanOrEqual(1);
          // And the operands really were rounded: far more error than fp32's.
          if (m * n >= 100) expect(relativeError(bf, exact.value, exact.magnitude)).toBeGreaterThan(2 ** -12);
        }
      });
    }
  }

  test('a bad precision or kernel name is a RangeError, and changes nothing', () => {
    const heap = new Float32Array(3);
    const one = Int32Array.of(0);
    expect(() => addon.batchMatMul(heap, false, false, 1, 1, 1, one, one, Int32Array.of(2), 'fp16' as GemmPrecision)).toThrow(
      "precision must be 'fp32' or 'bf16'",
    );
    expect(() => addon.setGemmKernel('sse2' as GemmKernel)).toThrow("no GEMM kernel 'sse2' on this CPU");
    expect(() => setGemmKernel('amx' as GemmKernel)).toThrow("no GEMM kernel 'amx' on this CPU");
    expect(gemmKernels()!.active).toBe(chosen);
  });

  test('peakGflops: positive for each kernel this CPU has, -1 for one it lacks', () => {
    for (const kernel of kernels) expect(addon.peakGflops(kernel, 0.01)).toBeGreaterThan(0);
    expect(addon.peakGflops('amx' as GemmKernel, 0.01)).toBe(-1);
    expect(() => addon.peakGflops('avx2', 0)).toThrow('seconds must be in (0, 60]');
  });
});

(nativeAddonBuilt() ? describe : describe.skip)('RLHF_AVX512', () => {
  test('0: a process offers the AVX2 GEMM and no AVX-512 int16 kernel; a bad value is an error naming it', () => {
    const script = `const a = require(${JSON.stringify(ADDON_FILE)}); console.log(JSON.stringify([a.gemmKernels(), a.int16Kernels(), a.info().kernel, a.peakGflops('avx512', 0.01)]))`;
    const run = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, RLHF_AVX512: '0' }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const [gemm, int16, kernel, peak] = JSON.parse(run.stdout);
    expect(gemm).toEqual({ active: 'avx2', available: ['avx2'] });
    expect(int16.available).not.toContain('avx512vnni');
    expect(kernel).toBe('avx2');
    expect(peak).toBe(-1);
    // Any form the runtime setting takes (false, no, 0) reaches the addon as the 0 it reads.
    const viaTs = `const n = require(${JSON.stringify(path.join(__dirname, 'native.ts'))}); const r = n.loadNative(); console.log(JSON.stringify([r.info.kernel, n.gemmKernels()]))`;
    const off = spawnSync(process.execPath, ['--import', 'tsx', '-e', viaTs], { env: { ...process.env, RLHF_AVX512: 'false' }, encoding: 'utf8', cwd: path.join(__dirname, '../../..') });
    expect(JSON.parse(off.stdout)).toEqual(['avx2', { active: 'avx2', available: ['avx2'] }]);
    const before = process.env.RLHF_AVX512;
    process.env.RLHF_AVX512 = 'maybe';
    try {
      expect(() => nativeSettings()).toThrow('RLHF_AVX512: expected true or false, got "maybe"');
    } finally {
      if (before == null) delete process.env.RLHF_AVX512;
      else process.env.RLHF_AVX512 = before;
    }
  });
});

(nativeAddonBuilt() ? describe : describe.skip)('gemmPrecision: tf.matMul on the native kernels', () => {
  beforeAll(async () => {
    await initBackend({ backend: 'wasm', quiet: true });
  });

  test('bf16 gives the addon\'s bf16 product, forward and backward; the setting ends with withGemmPrecision', async () => {
    const c = makeCase(40, 70, 50, false, true);
    const rounded = reference(c, true);
    const exact = reference(c, false);
    const fn = () => tf.matMul(tf.tensor2d(c.a, [40, 70]), tf.tensor2d(c.b, [50, 70]), false, true);
    expect(gemmPrecision()).toBe('fp32');
    const [bf] = await withGemmPrecision('bf16', async () => {
      expect(gemmPrecision()).toBe('bf16');
      return runOn('wasm', fn);
    });
    expect(gemmPrecision()).toBe('fp32');
    expect(worst(bf, rounded.value, rounded.magnitude, 72 * U32)).toBeLessThanOrEqual(1);
    expect(relativeError(bf, exact.value, exact.magnitude)).toBeGreaterThan(2 ** -12);
    const [fp] = await runOn('wasm', fn);
    expect(worst(fp, exact.value, exact.magnitude, 72 * U32)).toBeLessThanOrEqual(1);

    // The gradients' products are BatchMatMuls too: dA = dy B in bf16 (dy = 1, exact), within the rounding of B (2^-8).
    const grad = () => tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.matMul(x, y, false, true)))([tf.tensor2d(c.a, [40, 70]), tf.tensor2d(c.b, [50, 70])]);
    const [gaBf] = await withGemmPrecision('bf16', async () => runOn('wasm', grad));
    const [gaFp] = await runOn('wasm', grad);
    let largest = 0;
    for (let i = 0; i < gaFp.length; i++) largest = Math.max(largest, Math.abs(gaBf[i] - gaFp[i]) / (50 + 1e-30));
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(U_BF16 + 52 * U32);
  });

  test('setGemmPrecision refuses anything but fp32 and bf16', () => {
    expect(() => setGemmPrecision('fp16' as GemmPrecision)).toThrow("setGemmPrecision: fp32 or bf16, got 'fp16'");
    expect(gemmPrecision()).toBe('fp32');
  });
});
