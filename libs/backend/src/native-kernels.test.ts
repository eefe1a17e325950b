// The native kernels against references: BatchMatMul against the cpu backend (values and gradients, every
// transpose, broadcasting, empty, skinny and odd shapes), AdamW against its formula in float64, the fused
// log-prob kernels against log-softmax in float64, the sampler's exp terms against Math.exp. And the proof that the fast path runs: on a Linux x86-64
// machine with a C++ compiler and AVX2, the addon must have been built and be in use.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { fusedAdamW, fusedTargetLogProbs, fusedTargetLogProbsGrad, nativeBatchMatMulConfig, nativeExpTerms } from './native-kernels';
import { ADDON_FILE, loadNative, nativeAddon } from './native';
import { useBatchMatMul } from './register';
import { describe as describeBackend, initBackend } from './select';
import { closeness, expectAllClose, expectWasmMatMulMatchesReference, referenceMatMul, runOn, seededValues } from './testing';

const cpuHasAvx2 = (): boolean => {
  const info = spawnSync('grep', ['-m1', '-o', '-w', 'avx2', '/proc/cpuinfo'], { encoding: 'utf8' });
  return info.stdout.trim() === 'avx2';
};
const canBuild =
  process.platform === 'linux' && process.arch === 'x64' && process.env.RLHF_NATIVE !== '0' &&
  spawnSync(process.env.CXX || 'c++', ['--version'], { stdio: 'ignore' }).status === 0 && cpuHasAvx2();

let info: Awaited<ReturnType<typeof initBackend>>;
beforeAll(async () => {
  info = await initBackend({ backend: 'wasm', quiet: true });
});

test('on a machine that can build it, the addon is built, loaded and runs BatchMatMul', () => {
  if (!canBuild) {
    expect(nativeAddon()).toBeNull(); // and the wasm kernels run instead
    return;
  }
  expect(ADDON_FILE).toMatch(/rlhf_native\.node$/);
  expect(nativeAddon()).not.toBeNull();
  expect(info.native).toBeDefined();
  expect(describeBackend(info)).toMatch(/^wasm \(simd, \d threads?\) \+ native gemm \((avx2|avx512|avx512bf16|openblas), \d+ threads?\)$/);
  expect(tf.getKernel(tf.BatchMatMul, 'wasm')?.kernelFunc).toBe(nativeBatchMatMulConfig.kernelFunc);
});

// Shapes [m, k, n] covering the GEMM path (several MR/NR/KC blocks, odd edges), the skinny paths (few rows,
// few columns, one of each; more than 8 of them, taken 8 at a time) and degenerate sizes.
const SHAPES: Array<[number, number, number]> = [
  [1, 1, 1], [3, 5, 7], [1, 33, 300], [300, 33, 1], [2, 100, 64], [64, 100, 2], [16, 9, 16], [17, 23, 19],
  [7, 257, 17], [12, 37, 70], [70, 37, 12], [100, 300, 130], [130, 513, 20], [0, 4, 5], [4, 0, 5], [4, 5, 0],
];
const TRANSPOSES: Array<[boolean, boolean]> = [[false, false], [true, false], [false, true], [true, true]];
// [a batch, b batch]: none, shared b (folded), equal, both broadcast.
const BATCHES: Array<[number[], number[]]> = [[[], []], [[3], []], [[2, 3], [2, 3]], [[2, 1], [1, 3]], [[], [4]]];

const shapesOf = (m: number, k: number, n: number, ta: boolean, tb: boolean, ab: number[], bb: number[]) =>
  [[...ab, ...(ta ? [k, m] : [m, k])], [...bb, ...(tb ? [n, k] : [k, n])]];
const size = (s: number[]) => s.reduce((x, y) => x * y, 1);

(canBuild ? describe : describe.skip)('native BatchMatMul against references', () => {
  beforeAll(() => useBatchMatMul('native'));

  for (const [m, k, n] of SHAPES) {
    for (const [ta, tb] of TRANSPOSES) {
      test(`[${m}, ${k}] x [${k}, ${n}], transposeA=${ta}, transposeB=${tb}, with batches`, async () => {
        for (const [ab, bb] of BATCHES) {
          const [aShape, bShape] = shapesOf(m, k, n, ta, tb, ab, bb);
          const a = seededValues(size(aShape), m + k);
          const b = seededValues(size(bShape), n + 7);
          await expectWasmMatMulMatchesReference(a, aShape, b, bShape, ta, tb, 1e-4, 1e-4);
        }
      });
    }
  }

  test('gradients match cpu for every transpose, with broadcasting', async () => {
    // cpu's reference broadcasts both operands explicitly (tf.broadcastTo, whose gradient sums over the
    // broadcast axes): its own BatchMatMul gets [2,1] x [1,3] batches wrong.
    for (const [ta, tb] of TRANSPOSES) {
      for (const [ab, bb] of BATCHES) {
        const [aShape, bShape] = shapesOf(9, 13, 21, ta, tb, ab, bb);
        const a = seededValues(size(aShape), 1);
        const b = seededValues(size(bShape), 2);
        const batchShape = referenceMatMul(a, aShape, b, bShape, ta, tb).shape.slice(0, -2);
        const grads = (explicit: boolean) => () =>
          tf.grads((x: tf.Tensor, y: tf.Tensor) => {
            const xb = explicit ? tf.broadcastTo(x, [...batchShape, ...x.shape.slice(-2)]) : x;
            const yb = explicit ? tf.broadcastTo(y, [...batchShape, ...y.shape.slice(-2)]) : y;
            return tf.sum(tf.sin(tf.matMul(xb, yb, ta, tb)));
          })([tf.tensor(a, aShape), tf.tensor(b, bShape)]);
        expectAllClose(await runOn('wasm', grads(false)), await runOn('cpu', grads(true)), 1e-4, 1e-4);
      }
    }
  });

  test('large products on several threads match the stock-free fast wasm kernel', async () => {
    const a = seededValues(600 * 256, 3);
    const b = seededValues(704 * 256, 4);
    const fn = () => [
      tf.matMul(tf.tensor(a, [600, 256]), tf.tensor(b, [704, 256]), false, true),
      tf.matMul(tf.tensor(a, [256, 600]), tf.tensor(b, [256, 704]), true, false),
    ];
    const native = await runOn('wasm', fn);
    useBatchMatMul('fast');
    try {
      expectAllClose(native, await runOn('wasm', fn), 1e-4, 1e-4);
    } finally {
      useBatchMatMul('native');
    }
  });

  test('leaves no tensors behind', async () => {
    await tf.setBackend('wasm');
    const a = tf.tensor(seededValues(2 * 3 * 8 * 4, 6), [2, 3, 8, 4]);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      tf.tidy(() => {
        tf.grads((x: tf.Tensor) => tf.sum(tf.matMul(x, x, false, true)))([a]);
      });
    }
    expect(tf.memory().numTensors).toBe(before);
    a.dispose();
  });

  test('the addon refuses offsets outside the heap instead of touching other memory', () => {
    const heap = new Float32Array(16);
    const one = Int32Array.of(0);
    expect(() => nativeAddon()!.batchMatMul(heap, false, false, 4, 4, 4, one, one, Int32Array.of(8))).toThrow(
      'rlhf-native: c lies outside the heap',
    );
    expect(() => nativeAddon()!.batchMatMul(heap, false, false, 2, 2, 2, one, one, Int32Array.of(0, 4))).toThrow(
      'batch offset arrays differ in length',
    );
  });
});

/** torch.optim.AdamW's update in float64. */
function adamwReference(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, lr: number, b1: number,
  b2: number, eps: number, decay: number, step: number) {
  const bc1 = 1 - b1 ** step;
  const bc2 = 1 - b2 ** step;
  const out = { p: new Float64Array(p.length), m: new Float64Array(p.length), v: new Float64Array(p.length) };
  for (let i = 0; i < p.length; i++) {
    out.m[i] = b1 * m[i] + (1 - b1) * g[i];
    out.v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    out.p[i] = p[i] * decay - (lr / bc1) * (out.m[i] / (Math.sqrt(out.v[i] / bc2) + eps));
  }
  return out;
}

(canBuild ? describe : describe.skip)('native fused kernels', () => {
  test('AdamW matches its formula, with and without decay, on odd sizes', async () => {
    await tf.setBackend('wasm');
    for (const n of [1, 7, 8, 1000, 4099]) {
      const [p, g, m] = [seededValues(n, 1), seededValues(n, 2), seededValues(n, 3)];
      const v = seededValues(n, 4).map(Math.abs);
      for (const decay of [1, 1 - 1e-3 * 0.1]) {
        const attrs = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, decay, bc1: 1 - 0.9 ** 3, bc2: 1 - 0.999 ** 3 };
        const before = tf.memory().numTensors;
        const outs = tf.tidy(() => {
          const r = fusedAdamW(tf.tensor(p), tf.tensor(g), tf.tensor(m), tf.tensor(v), attrs)!;
          return [r.p, r.m, r.v].map((t) => Float32Array.from(t.dataSync()));
        });
        expect(tf.memory().numTensors).toBe(before);
        const want = adamwReference(p, g, m, v, 1e-3, 0.9, 0.999, 1e-8, decay, 3);
        expect(closeness(outs[0], want.p, 1e-7, 1e-6)).toBeLessThanOrEqual(1);
        expect(closeness(outs[1], want.m, 1e-7, 1e-6)).toBeLessThanOrEqual(1);
        expect(closeness(outs[2], want.v, 1e-7, 1e-6)).toBeLessThanOrEqual(1);
      }
    }
  });

  test('target log-probs and their gradient match log-softmax in float64', async () => {
    await tf.setBackend('wasm');
    for (const [rows, vocab] of [[1, 1], [3, 7], [5, 8], [4, 1000], [2, 16387]]) {
      const x = seededValues(rows * vocab, rows + vocab).map((z) => z * 20); // logits in [-20, 20)
      const t = Int32Array.from({ length: rows }, (_, r) => (r * 7919) % vocab);
      const dy = seededValues(rows, 9);
      const [value, grad] = tf.tidy(() => {
        const xt = tf.tensor2d(x, [rows, vocab]);
        const tt = tf.tensor1d(t, 'int32');
        const fwd = fusedTargetLogProbs(xt, tt)!;
        const dx = fusedTargetLogProbsGrad(xt, tt, fwd.lse, tf.tensor1d(dy));
        return [Float32Array.from(fwd.value.dataSync()), Float32Array.from(dx.dataSync())];
      });
      const wantValue = new Float64Array(rows);
      const wantGrad = new Float64Array(rows * vocab);
      for (let r = 0; r < rows; r++) {
        const row = x.subarray(r * vocab, (r + 1) * vocab);
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((s, z) => s + Math.exp(z - max), 0));
        wantValue[r] = row[t[r]] - lse;
        for (let j = 0; j < vocab; j++) wantGrad[r * vocab + j] = dy[r] * ((j === t[r] ? 1 : 0) - Math.exp(row[j] - lse));
      }
      expect(closeness(value, wantValue, 1e-5, 1e-5)).toBeLessThanOrEqual(1);
      expect(closeness(grad, wantGrad, 1e-7, 1e-5)).toBeLessThanOrEqual(1);
    }
  });

  test('Add: equal shapes and a broadcast row natively, bit for bit; scalars, int32 and bad shapes as the stock kernel', async () => {
    await tf.setBackend('wasm');
    const addon = nativeAddon()!;
    const native = jest.spyOn(addon, 'addRows');
    // [a shape, b shape, native?]: 40,000 values run on several threads, 37 columns leave a tail after the vectors
    const cases: [number[], number[], boolean][] = [
      [[1000, 37], [1000, 37], true], [[4, 150, 256], [256], true], [[256], [4, 150, 256], true], [[2, 1, 8], [1, 8], true],
      [[8], [1, 8], true], [[5, 3], [3], false], [[1000], [1], false], [[3, 1], [1, 9], false],
    ];
    for (const [sa, sb, isNative] of cases) {
      const [a, b] = [seededValues(tf.util.sizeFromShape(sa), 5), seededValues(tf.util.sizeFromShape(sb), 6)];
      const [want] = await runOn('cpu', () => tf.add(tf.tensor(a, sa), tf.tensor(b, sb)));
      await tf.setBackend('wasm');
      native.mockClear();
      const before = tf.memory().numTensors;
      const got = tf.tidy(() => tf.add(tf.tensor(a, sa), tf.tensor(b, sb)));
      expect(got.shape).toEqual(tf.backend_util.assertAndGetBroadcastShape(sa, sb));
      expect(Array.from(got.dataSync())).toEqual(Array.from(want)); // one float32 rounding each: the same bits
      expect(native.mock.calls.length).toBe(isNative ? 1 : 0);
      got.dispose();
      expect(tf.memory().numTensors).toBe(before);
    }
    expect(tf.tidy(() => Array.from(tf.add(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([3, 4], 'int32')).dataSync()))).toEqual([4, 6]);
    expect(() => tf.tidy(() => tf.add(tf.zeros([2, 9]), tf.zeros([3, 9])))).toThrow(/could not be broadcast/);
    native.mockRestore();
  });

  test('Sum over leading axes natively, against float64, keepDims and negative axes; other axes as the stock kernel', async () => {
    await tf.setBackend('wasm');
    const native = jest.spyOn(nativeAddon()!, 'sumRows');
    const shape = [4, 600, 37];
    const x = seededValues(tf.util.sizeFromShape(shape), 7);
    const want = new Float64Array(37);
    x.forEach((v, i) => (want[i % 37] += v));
    for (const [axis, keepDims, outShape] of [[[0, 1], false, [37]], [[1, 0], true, [1, 1, 37]], [[-3, -2], false, [37]]] as const) {
      const before = tf.memory().numTensors;
      const got = tf.tidy(() => tf.sum(tf.tensor(x, shape), axis as unknown as number[], keepDims));
      expect(got.shape).toEqual(outShape);
      expect(closeness(got.dataSync() as Float32Array, want, 1e-4, 1e-5)).toBeLessThanOrEqual(1);
      got.dispose();
      expect(tf.memory().numTensors).toBe(before);
    }
    expect(native.mock.calls.length).toBe(3);
    // the rest: the stock kernel's values (the last axis; every axis; a middle axis)
    for (const axis of [2, [0, 1, 2], 1]) {
      const [ref] = await runOn('cpu', () => tf.sum(tf.tensor(x, shape), axis));
      await tf.setBackend('wasm');
      const got = tf.tidy(() => Float32Array.from(tf.sum(tf.tensor(x, shape), axis).dataSync()));
      expect(closeness(got, ref, 1e-4, 1e-5)).toBeLessThanOrEqual(1);
    }
    expect(native.mock.calls.length).toBe(3);
    native.mockRestore();
  });

  test("a bias's gradient through the native Add and Sum matches the cpu backend", async () => {
    const [x, bias, dy] = [seededValues(2 * 300 * 64, 1), seededValues(64, 2), seededValues(2 * 300 * 64, 3)];
    const grads = () => {
      const f = (xt: tf.Tensor, bt: tf.Tensor) => tf.sum(tf.mul(tf.add(xt, bt), tf.tensor(dy, [2, 300, 64])));
      return tf.grads(f)([tf.tensor(x, [2, 300, 64]), tf.tensor1d(bias)]).map((g) => g.dataSync() as Float32Array);
    };
    await tf.setBackend('wasm');
    const got = tf.tidy(grads).map((g) => Float32Array.from(g));
    await tf.setBackend('cpu');
    const want = tf.tidy(grads).map((g) => Float32Array.from(g));
    await tf.setBackend('wasm');
    expectAllClose(got, want, 1e-4, 1e-5);
  });

  test('a target outside the vocabulary is refused', async () => {
    await tf.setBackend('wasm');
    tf.tidy(() => {
      expect(() => fusedTargetLogProbs(tf.zeros([2, 5]) as tf.Tensor2D, tf.tensor1d([1, 5], 'int32'))).toThrow(
        'a target lies outside the vocabulary',
      );
    });
  });
});

test('RLHF_NATIVE=0 turns the addon off, and bad settings are refused naming the variable', () => {
  const saved = { ...process.env };
  try {
    process.env.RLHF_NATIVE = '0';
    expect(loadNative()).toEqual({ reason: 'RLHF_NATIVE=0' });
    process.env.RLHF_NATIVE = 'maybe';
    expect(() => loadNative()).toThrow('RLHF_NATIVE: expected true or false, got "maybe"');
    delete process.env.RLHF_NATIVE;
    process.env.RLHF_NATIVE_THREADS = '0';
    expect(() => loadNative()).toThrow(/^RLHF_NATIVE_THREADS: Too small/);
    process.env.RLHF_NATIVE_THREADS = '257';
    expect(() => loadNative()).toThrow(/^RLHF_NATIVE_THREADS: Too big/);
    process.env.RLHF_NATIVE_THREADS = '2';
    process.env.RLHF_NATIVE_GEMM = 'mkl';
    expect(() => loadNative()).toThrow(/^RLHF_NATIVE_GEMM: Invalid option: expected one of "auto"\|"own"\|"openblas"/);
  } finally {
    process.env = saved;
    loadNative(); // back to the configuration the process started with
  }
});

(canBuild ? test : test.skip)('an addon older than its sources is not used (its arguments may differ from the callers\')', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlhf-stamp-'));
  const stampFile = path.join(dir, 'rlhf_native.json');
  fs.writeFileSync(stampFile, JSON.stringify({ sources: 'an older build' }));
  try {
    expect(loadNative({ stampFile })).toEqual({ reason: 'the addon is older than its sources in libs/backend/native (run `npm run build:native`)' });
    expect(nativeAddon()).toBeNull();
  } finally {
    loadNative();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  expect(nativeAddon()).not.toBeNull(); // the real build's stamp matches its sources
});

test('wasm clones share their buffer (no copy), and each stays valid after the other is disposed', async () => {
  await tf.setBackend('wasm');
  const x = tf.tensor1d([1, 2, 3]);
  const bytes = tf.memory().numBytes;
  const y = tf.clone(x);
  x.dispose();
  expect(Array.from(y.dataSync())).toEqual([1, 2, 3]);
  expect(tf.memory().numBytes).toBeLessThanOrEqual(bytes);
  y.dispose();
});

test('an identity transpose shares its buffer; other permutations copy, and the gradient of gather is right', async () => {
  await tf.setBackend('wasm');
  const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3]);
  const buffers = tf.memory().numDataBuffers;
  const same = tf.transpose(x, [0, 1]);
  expect(tf.memory().numDataBuffers).toBe(buffers); // no copy
  const swapped = tf.transpose(x, [1, 0]);
  expect(tf.memory().numDataBuffers).toBe(buffers + 1);
  x.dispose();
  expect(Array.from(same.dataSync())).toEqual([1, 2, 3, 4, 5, 6]);
  expect(same.shape).toEqual([2, 3]);
  expect(Array.from(swapped.dataSync())).toEqual([1, 4, 2, 5, 3, 6]);
  tf.dispose([same, swapped]);
  // An embedding's gradient (tfjs transposes by the identity on the way), against the cpu backend.
  const [table, ids, dy] = [seededValues(10 * 4, 1), [3, 0, 3, 9, 1], seededValues(5 * 4, 2)];
  const grad = () => tf.tidy(() => tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, tf.tensor1d(ids, 'int32')), tf.tensor(dy, [5, 4]))))(tf.tensor(table, [10, 4])).dataSync() as Float32Array);
  const got = Float32Array.from(grad());
  await tf.setBackend('cpu');
  const want = Float32Array.from(grad());
  await tf.setBackend('wasm');
  expect(Array.from(got)).toEqual(Array.from(want));
});

test("the sampler's exp terms: Math.exp's values within 2 ulp, masked logits exactly 0, NaN kept", () => {
  if (!canBuild) {
    expect(nativeExpTerms(new Float32Array(3), 1, new Float64Array(3))).toBeNull();
    return;
  }
  const ulp2 = (a: number, b: number) => Math.abs(a - b) <= 4.5e-16 * Math.abs(b); // 2 ulp
  for (const n of [1, 3, 4, 7, 8, 13, 151_936]) {
    for (const scale of [1, 1 / 0.7, 100]) {
      const x = seededValues(n, n + scale).map((v) => v * 30);
      if (n > 3) {
        x[1] = -Infinity; // a masked id
        x[2] = -1e30; // far below exp(-708) after scaling
      }
      const out = new Float64Array(n + 2).fill(7);
      const got = nativeExpTerms(x, scale, out)!;
      let max = -Infinity;
      for (const v of x) if (v > max) max = v;
      expect(got.max).toBe(max);
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const want = Math.exp((x[i] - max) * scale);
        if (want < Math.exp(-708)) expect(out[i]).toBe(0);
        else if (!ulp2(out[i], want)) throw new Error(`n ${n}, scale ${scale}, i ${i}: ${out[i]} vs ${want}`);
        sum += want;
      }
      expect(out[n]).toBe(7); // nothing written past n
      expect(Math.abs(got.sum - sum)).toBeLessThanOrEqual(1e-12 * sum); // another summation order over up to 151,936 terms
    }
  }
  const nan = nativeExpTerms(Float32Array.from([0, NaN, 1, 2, 3, 4, 5, 6, 7]), 1, new Float64Array(9))!;
  expect(nan.max).toBe(7);
  expect(nan.sum).toBeNaN();
  expect(() => nativeExpTerms(new Float32Array(4), 1, new Float64Array(3))).toThrow(/at least as long/);
});
