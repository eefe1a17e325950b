import * as tf from '@tensorflow/tfjs';
import { entropyFromLogits, sparseCrossEntropy, tokenLogProbs } from './losses';
import { useTestBackend } from './testing/backend';

useTestBackend();

const N = 6;
const V = 5;
const logitsData = Array.from({ length: N * V }, (_, i) => Math.sin(i * 1.7) * 3); // deterministic, [N, V]
const targetsData = [0, 4, 2, 2, 1, 3];
const maskData = [1, 0, 1, 1, 0, 1];

function expectAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 5) {
  expect(actual.length).toBe(expected.length);
  Array.from(expected).forEach((e, i) => expect(actual[i]).toBeCloseTo(e, digits));
}

// log softmax(row)[target] in float64.
// (Math.exp is aliased: looking up the global Math in a loop is ~15x slower inside jest's sandbox.)
function refLogProb(row: ArrayLike<number>, target: number): number {
  const exp = Math.exp;
  let max = -Infinity;
  for (let j = 0; j < row.length; j++) if (row[j] > max) max = row[j];
  let sum = 0;
  for (let j = 0; j < row.length; j++) sum += exp(row[j] - max);
  return row[target] - max - Math.log(sum);
}

describe('sparseCrossEntropy', () => {
  it('matches softmaxCrossEntropy with a one-hot, in value and gradient, with and without mask', () => {
    const logits = tf.tensor2d(logitsData, [N, V]);
    const targets = tf.tensor1d(targetsData, 'int32');
    const mask = tf.tensor1d(maskData);
    const onehot = tf.oneHot(targets, V);
    for (const m of [undefined, mask]) {
      const ours = tf.valueAndGrad((x: tf.Tensor) => sparseCrossEntropy(x, targets, m))(logits);
      const naive = tf.valueAndGrad((x: tf.Tensor) => tf.losses.softmaxCrossEntropy(onehot, x, m))(logits);
      expect(ours.value.dataSync()[0]).toBeCloseTo(naive.value.dataSync()[0], 5);
      expectAllClose(ours.grad.dataSync(), naive.grad.dataSync(), 6);
      tf.dispose([ours, naive]);
    }
    // Masked-out rows get exactly zero gradient.
    const { grad } = tf.valueAndGrad((x: tf.Tensor) => sparseCrossEntropy(x, targets, mask))(logits);
    expect((grad.arraySync() as number[][])[1].every((g) => g === 0)).toBe(true);
    tf.dispose([logits, targets, mask, onehot, grad]);
  });

  it('has the value of the float64 reference and the gradient of finite differences', () => {
    const logits = tf.tensor2d(logitsData, [N, V]);
    const targets = tf.tensor1d(targetsData, 'int32');
    const mask = tf.tensor1d(maskData);
    const rows = Array.from({ length: N }, (_, n) => logitsData.slice(n * V, (n + 1) * V));
    const loss = (r: number[][]) =>
      -r.reduce((s, row, n) => s + maskData[n] * refLogProb(row, targetsData[n]), 0) / maskData.reduce((a, b) => a + b);
    const { value, grad } = tf.valueAndGrad((x: tf.Tensor) => sparseCrossEntropy(x, targets, mask))(logits);
    expect(value.dataSync()[0]).toBeCloseTo(loss(rows), 5);
    const g = grad.dataSync();
    const h = 1e-4;
    for (let i = 0; i < N * V; i++) {
      const n = Math.floor(i / V);
      const bump = (d: number) => rows.map((row, k) => (k === n ? row.map((x, j) => (j === i % V ? x + d : x)) : row));
      expect(g[i]).toBeCloseTo((loss(bump(h)) - loss(bump(-h))) / (2 * h), 5);
    }
    tf.dispose([logits, targets, mask, value, grad]);
  });

  it('gives loss 0 and zero gradient for an all-zero mask', () => {
    const logits = tf.tensor2d(logitsData, [N, V]);
    const targets = tf.tensor1d(targetsData, 'int32');
    const mask = tf.zeros([N]);
    const { value, grad } = tf.valueAndGrad((x: tf.Tensor) => sparseCrossEntropy(x, targets, mask))(logits);
    expect(value.dataSync()[0]).toBe(0);
    expect(grad.dataSync().every((x) => x === 0)).toBe(true);
    tf.dispose([logits, targets, mask, value, grad]);
  });

  it('is stable for logits around 1e4', () => {
    const big = logitsData.map((x) => x * 3000); // up to ~9000 in magnitude
    const logits = tf.tensor2d(big, [N, V]);
    const targets = tf.tensor1d(targetsData, 'int32');
    const { value, grad } = tf.valueAndGrad((x: tf.Tensor) => sparseCrossEntropy(x, targets))(logits);
    const ref = -targetsData.reduce((s, t, n) => s + refLogProb(big.slice(n * V, (n + 1) * V), t), 0) / N;
    expect(ref).toBeGreaterThan(1000);
    expect(value.dataSync()[0] / ref).toBeCloseTo(1, 6);
    // The softmax is one-hot at the row maximum: gradient (softmax - onehot) / N.
    const expected = Array.from({ length: N }, (_, n) => {
      const row = big.slice(n * V, (n + 1) * V);
      const argmax = row.indexOf(Math.max(...row));
      return row.map((_, j) => ((j === argmax ? 1 : 0) - (j === targetsData[n] ? 1 : 0)) / N);
    }).flat();
    expectAllClose(grad.dataSync(), expected, 6);
    tf.dispose([logits, targets, value, grad]);
  });

  it("runs at Qwen's vocabulary without a one-hot in the forward pass", async () => {
    const n = 64;
    const vocab = 151936;
    const x = new Float32Array(n * vocab);
    for (let i = 0; i < x.length; i++) x[i] = ((i * 7919) % 4093) / 512 - 4; // pseudo-random in [-4, 4)
    const t = Int32Array.from({ length: n }, (_, k) => (k * 2371) % vocab);
    const logits = tf.tensor2d(x, [n, vocab]);
    const targets = tf.tensor1d(t, 'int32');
    const logitsBytes = n * vocab * 4;
    let loss = 0;
    const startBytes = tf.memory().numBytes;
    const forward = await tf.profile(() => {
      const value = sparseCrossEntropy(logits, targets);
      loss = value.dataSync()[0];
      value.dispose();
    });
    // The only [N, V] results are the softmax and the flat view of the logits (a Reshape shares its
    // data, though tf.profile counts it as new bytes): no OneHot, no [N, V] product. The native fused
    // kernel (when the backend has it) makes none at all.
    const bigKernels = forward.kernels.filter((k) => k.outputShapes.some((s) => s.reduce((a, b) => a * b, 1) === n * vocab));
    const native = tf.getKernel('RlhfTargetLogProbs', tf.getBackend()) != null;
    expect(bigKernels.map((k) => k.name)).toEqual(native ? [] : ['Softmax', 'Reshape']);
    expect(forward.newBytes).toBe(0);
    const forwardPeak = forward.peakBytes - startBytes; // tf.profile returns one shared object: read it now
    let ref = 0;
    for (let k = 0; k < n; k++) ref -= refLogProb(x.subarray(k * vocab, (k + 1) * vocab), t[k]) / n;
    expect(loss).toBeCloseTo(ref, 3);
    const backward = await tf.profile(() => {
      tf.grad((x: tf.Tensor) => sparseCrossEntropy(x, targets))(logits).dispose();
    });
    expect(backward.newBytes).toBe(0);
    const backwardPeak = backward.peakBytes - startBytes;
    expect(backwardPeak).toBeLessThanOrEqual(4 * logitsBytes + 1e5); // counting the views, as above
    // tfjs counts views (reshape, the saved clone) as if they were copies: these are upper bounds.
    console.log(
      `vocab ${vocab} x ${n}: above the logits, forward peak ${(forwardPeak / logitsBytes).toFixed(2)}x and ` +
        `forward+backward peak ${(backwardPeak / logitsBytes).toFixed(2)}x the logits' ` +
        `${(logitsBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    tf.dispose([logits, targets]);
  });

  it('rejects bad shapes, dtypes and out-of-vocabulary targets', () => tf.tidy(() => {
    const logits = tf.zeros([2, 3]);
    const t = (data: number[]) => tf.tensor1d(data, 'int32');
    expect(() => sparseCrossEntropy(logits, t([0, 3]))).toThrow(
      'sparseCrossEntropy: target 3 is outside the vocabulary [0, 3)',
    );
    expect(() => sparseCrossEntropy(logits, t([0]))).toThrow(
      'sparseCrossEntropy: targets must be int32 of shape [2], got int32 [1]',
    );
    expect(() => sparseCrossEntropy(logits, tf.tensor1d([0, 1]))).toThrow(
      'sparseCrossEntropy: targets must be int32 of shape [2], got float32 [2]',
    );
    expect(() => sparseCrossEntropy(logits, t([0, 1]), tf.ones([3]))).toThrow(
      'sparseCrossEntropy: mask must be float32 of shape [2], got float32 [3]',
    );
    expect(() => sparseCrossEntropy(tf.zeros([2, 3, 1]), t([0, 1]))).toThrow(
      'sparseCrossEntropy: logits must be float32 of rank 2, got float32 [2,3,1]',
    );
  }));
});

describe('tokenLogProbs', () => {
  const B = 2;
  const T = 3;
  const logits3d = () => tf.tensor3d(logitsData, [B, T, V]);
  const targets2d = () => tf.tensor2d(targetsData, [B, T], 'int32');

  // log p(target) the naive way: a one-hot times the log-softmax, summed over the vocabulary.
  const naive = (x: tf.Tensor, targets: tf.Tensor, temperature: number) =>
    tf.sum(tf.mul(tf.logSoftmax(tf.div(x, temperature)), tf.oneHot(targets, V)), -1);

  it.each([1, 0.7])('matches the naive log-softmax in value and gradient at temperature %p', (temperature) => {
    const logits = logits3d();
    const targets = targets2d();
    const dy = tf.tensor2d([0.3, -1, 2, 0.5, 1, -0.25], [B, T]); // weights as a policy loss would give
    const ours = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(x, targets, temperature), dy)))(logits);
    const ref = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(naive(x, targets, temperature), dy)))(logits);
    expectAllClose(ours.dataSync(), ref.dataSync(), 5);
    const values = tokenLogProbs(logits, targets, temperature);
    expect(values.shape).toEqual([B, T]);
    const expected = targetsData.map((t, n) => refLogProb(logitsData.slice(n * V, (n + 1) * V).map((x) => x / temperature), t));
    expectAllClose(values.dataSync(), expected, 5);
    tf.dispose([logits, targets, dy, ours, ref, values]);
  });

  it('accepts [N, V] logits with [N] targets', () => {
    const logits = tf.tensor2d(logitsData, [N, V]);
    const targets = tf.tensor1d(targetsData, 'int32');
    const values = tokenLogProbs(logits, targets);
    expect(values.shape).toEqual([N]);
    expect(values.dataSync()[2]).toBeCloseTo(refLogProb(logitsData.slice(2 * V, 3 * V), 2), 5);
    expect(() => tokenLogProbs(logits, targets, 0)).toThrow('tokenLogProbs: temperature must be > 0, got 0');
    expect(() => tokenLogProbs(logits, targets2d())).toThrow(
      'tokenLogProbs: targets must be int32 of shape [6], got int32 [2,3]',
    );
    tf.dispose([logits, targets, values]);
  });
});

describe('entropyFromLogits', () => {
  it('is log V for uniform logits, ~0 for a peaked row, and matches the float64 reference', () => {
    const uniform = entropyFromLogits(tf.fill([2, V], 7.5));
    expectAllClose(uniform.dataSync(), [Math.log(V), Math.log(V)], 5);
    const peaked = entropyFromLogits(tf.tensor1d([1e4, 0, 0, -1e4]));
    expect(peaked.shape).toEqual([]);
    expect(peaked.dataSync()[0]).toBeCloseTo(0, 6);
    const temperature = 2;
    const ours = entropyFromLogits(tf.tensor3d(logitsData, [2, 3, V]), temperature);
    expect(ours.shape).toEqual([2, 3]);
    const expected = Array.from({ length: N }, (_, n) => {
      const row = logitsData.slice(n * V, (n + 1) * V).map((x) => x / temperature);
      return -row.reduce((s, _, j) => s + Math.exp(refLogProb(row, j)) * refLogProb(row, j), 0);
    });
    expectAllClose(ours.dataSync(), expected, 5);
    tf.dispose([uniform, peaked, ours]);
  });

  it('has the gradient of the float64 reference: dH/dx = -p (log p + H) / temperature', () => {
    const temperature = 2;
    const x = tf.tensor2d(logitsData, [N, V]);
    const dy = Array.from({ length: N }, (_, n) => 0.5 + n); // a different weight per row
    const grad = tf.grad((l: tf.Tensor) => tf.sum(tf.mul(entropyFromLogits(l, temperature), tf.tensor1d(dy))))(x);
    const expected = Array.from({ length: N }, (_, n) => {
      const row = logitsData.slice(n * V, (n + 1) * V).map((v) => v / temperature);
      const lp = row.map((_, j) => refLogProb(row, j));
      const h = -lp.reduce((s, l) => s + Math.exp(l) * l, 0);
      return lp.map((l) => (dy[n] * -Math.exp(l) * (l + h)) / temperature);
    }).flat();
    expectAllClose(grad.dataSync(), expected, 5);
    tf.dispose([x, grad]);
  });
});
