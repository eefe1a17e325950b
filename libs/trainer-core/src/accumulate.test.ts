import * as tf from '@tensorflow/tfjs';
import { GradAccumulator } from './accumulate';
import { useTestBackend } from './testing/backend';
import { toyLossAndGrads, toyParams } from './testing/toy-model';

useTestBackend();

const V = 11;
// 4 sequences of 5 tokens; the mask keeps 2, 5, 3 and 4 tokens.
const tokens = [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [0, 3, 6, 9, 1], [2, 4, 6, 8, 10]];
const targets = tokens.map((row) => row.map((t) => (t + 1) % V));
const mask = [[0, 0, 0, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [1, 1, 1, 1, 0]];

// Gradients of the toy model on rows [from, to) of the batch.
function gradsOfRows(params: ReturnType<typeof toyParams>, from: number, to: number, withMask = true) {
  return tf.tidy(() => {
    const rows = (data: number[][], dtype: 'int32' | 'float32') => tf.tensor2d(data.slice(from, to), undefined, dtype);
    const m = withMask ? rows(mask, 'float32') : tf.onesLike(rows(mask, 'float32'));
    return toyLossAndGrads(params, rows(tokens, 'int32'), rows(targets, 'int32'), m).grads;
  });
}

function expectSameGrads(actual: Record<string, tf.Tensor>, expected: Record<string, tf.Tensor>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const name of Object.keys(expected)) {
    const [a, e] = [actual[name].dataSync(), expected[name].dataSync()];
    expect(a.length).toBe(e.length);
    e.forEach((x, i) => expect(a[i]).toBeCloseTo(x, 6));
  }
}

describe('GradAccumulator', () => {
  it('weighted by token counts, equals the gradient of the whole batch (unequal micro-batches)', () => {
    const params = toyParams(V, 6, 1);
    const big = gradsOfRows(params, 0, 4);
    const acc = new GradAccumulator();
    for (const [from, to, count] of [[0, 1, 2], [1, 3, 8], [3, 4, 4]]) {
      const grads = gradsOfRows(params, from, to);
      acc.add(grads, count);
      tf.dispose(grads);
    }
    expect(acc.totalWeight).toBe(14);
    expect(acc.microBatches).toBe(3);
    const mean = acc.take();
    expectSameGrads(mean, big);
    expect(acc.totalWeight).toBe(0);
    tf.dispose([big, mean, params]);
    acc.dispose();
  });

  it('weighted by count (default), equals the whole batch when micro-batches have equal token counts', () => {
    const params = toyParams(V, 6, 2);
    const big = gradsOfRows(params, 0, 4, false);
    const acc = new GradAccumulator();
    for (const [from, to] of [[0, 2], [2, 4]]) {
      const grads = gradsOfRows(params, from, to, false);
      acc.add(grads);
      tf.dispose(grads);
    }
    const mean = acc.take();
    expectSameGrads(mean, big);
    // With unequal token counts, weight 1 is the mean of micro-batch means, not the whole-batch gradient.
    const unequal = [gradsOfRows(params, 0, 1), gradsOfRows(params, 1, 4)];
    unequal.forEach((grads) => acc.add(grads));
    const meanOfMeans = acc.take();
    const wholeBatch = gradsOfRows(params, 0, 4);
    expect(meanOfMeans['lm_head.bias'].sub(wholeBatch['lm_head.bias']).abs().max().dataSync()[0]).toBeGreaterThan(1e-3);
    tf.dispose([big, mean, unequal, meanOfMeans, wholeBatch, params]);
    acc.dispose();
  });

  it('one micro-batch: its gradient exactly, whatever its weight, with no multiply or divide', async () => {
    const params = toyParams(V, 6, 4);
    const grads = gradsOfRows(params, 0, 4);
    const acc = new GradAccumulator();
    let mean: Record<string, tf.Tensor> = {};
    const profile = await tf.profile(() => {
      acc.add(grads, 7);
      mean = acc.take();
    });
    expect(profile.kernels.map((k) => k.name).filter((n) => n === 'Multiply' || n === 'RealDiv')).toEqual([]);
    for (const name of Object.keys(grads)) expect(Array.from(mean[name].dataSync())).toEqual(Array.from(grads[name].dataSync()));
    // The caller's tensors and the mean are separate: disposing the gradients leaves the mean readable.
    tf.dispose(grads);
    expect(mean['lm_head.bias'].dataSync().length).toBeGreaterThan(0);
    // Two micro-batches after it: weighted as before (w1 g1 + w2 g2) / (w1 + w2).
    const g1 = gradsOfRows(params, 0, 2);
    const g2 = gradsOfRows(params, 2, 4);
    acc.add(g1, 2);
    acc.add(g2, 6);
    const two = acc.take();
    const expected = tf.tidy(() => tf.div(tf.add(tf.mul(g1['lm_head.bias'], 2), tf.mul(g2['lm_head.bias'], 6)), 8));
    expect(Array.from(two['lm_head.bias'].dataSync())).toEqual(Array.from(expected.dataSync()));
    tf.dispose([mean, g1, g2, two, expected, params]);
    acc.dispose();
  });

  it('keeps numTensors flat across add/take cycles and reset() discards', () => {
    const params = toyParams(V, 6, 3);
    const grads = gradsOfRows(params, 0, 4);
    const acc = new GradAccumulator();
    const counts: number[] = [];
    for (let cycle = 0; cycle < 4; cycle++) {
      acc.add(grads, 2);
      acc.add(grads, 3);
      tf.dispose(acc.take());
      counts.push(tf.memory().numTensors);
    }
    expect(new Set(counts).size).toBe(1);
    acc.add(grads, 5);
    acc.reset();
    const scaled = tf.tidy(() => ({ 'lm_head.bias': tf.mul(grads['lm_head.bias'], 3) }));
    acc.add({ ...grads, ...scaled }); // only this add counts after reset()
    const mean = acc.take();
    expect(Array.from(mean['lm_head.bias'].dataSync())).toEqual(Array.from(scaled['lm_head.bias'].dataSync()));
    tf.dispose([grads, scaled, mean, params]);
    acc.dispose();
  });

  it('rejects a gradient missing from some micro-batches, a changed shape, a bad weight and an empty take', () => {
    const acc = new GradAccumulator();
    const [a, b, c] = [tf.ones([2]), tf.ones([3]), tf.ones([2, 2])];
    expect(() => acc.take()).toThrow('GradAccumulator.take: no gradient was added');
    acc.add({ a, b });
    expect(() => acc.add({ a })).toThrow('GradAccumulator.add: gradient "b" is in only some of the micro-batches');
    expect(() => acc.add({ a, b, c })).toThrow('GradAccumulator.add: gradient "c" is in only some of the micro-batches');
    expect(() => acc.add({ a: c, b })).toThrow('GradAccumulator.add: gradient "a" has shape [2,2], expected [2]');
    expect(() => acc.add({ a, b }, 0)).toThrow('GradAccumulator.add: invalid weight 0');
    expect(acc.microBatches).toBe(1);
    tf.dispose([a, b, c]);
    acc.dispose();
  });
});
