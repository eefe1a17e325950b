// The next-token loss on a tiny random Qwen2 model against a hand computation (log-softmax of model.logits
// in float64 at the counted positions), right padding, masks, and the token-weighted evaluation.
import * as tf from '@tensorflow/tfjs';
import { makeConfig, Qwen2Model } from '@rlhf-code/model';
import { LmBatch, padLmBatch } from './lm-data';
import { causalLmLoss, evaluateLmLoss, lmMicroBatch, lmRowLosses } from './lm-loss';
import { gradientsOf } from '@rlhf-code/trainer-core';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const V = 64;
const PAD = 63;
const cfg = makeConfig({
  hidden_size: 32,
  intermediate_size: 48,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: V,
  initializer_range: 0.2, // spread-out logits, so a wrong position or target changes the loss visibly
});

let model: Qwen2Model;
beforeAll(() => {
  model = Qwen2Model.init(cfg, { seed: 11 });
});
// No afterAll dispose: useTestBackend's shutdown runs first and frees the backend's memory anyway.

// Three examples of different lengths: a prompt (mask 0) then a response (mask 1).
const examples = [
  { ids: [3, 17, 42, 8, 8, 30, 1], lossMask: [0, 0, 0, 1, 1, 1, 1] },
  { ids: [9, 50, 2, 11], lossMask: [0, 1, 1, 1] },
  { ids: [4, 4, 60, 7, 33, 21, 5, 12, 40], lossMask: [0, 0, 0, 0, 0, 1, 1, 0, 1] },
];

/** log p(ids[t+1] | ids[..t]) summed over counted t, each row run alone (no padding), in float64. */
function handLoss(rows: { ids: number[]; lossMask: number[] }[]): { sum: number; n: number } {
  let sum = 0;
  let n = 0;
  for (const { ids, lossMask } of rows) {
    const logits = tf.tidy(() => model.logits(tf.tensor2d([ids], [1, ids.length], 'int32'))).arraySync()[0] as number[][]; // [T, V]
    for (let t = 0; t + 1 < ids.length; t++) {
      if (lossMask[t + 1] !== 1) continue;
      const row = logits[t];
      const max = Math.max(...row);
      const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
      sum += lse - row[ids[t + 1]];
      n++;
    }
  }
  return { sum, n };
}

const lossOf = (batch: LmBatch) => tf.tidy(() => causalLmLoss(model, batch).dataSync()[0]);

test('causalLmLoss equals the hand-computed mean cross-entropy at the masked targets, right padding included', () => {
  const batch = padLmBatch(examples, PAD);
  expect(batch.ids[1]).toEqual([9, 50, 2, 11, PAD, PAD, PAD, PAD, PAD]); // padding is really there
  const { sum, n } = handLoss(examples);
  expect(n).toBe(4 + 3 + 3);
  const loss = lossOf(batch);
  expect(loss).toBeGreaterThan(1); // not a degenerate model
  expect(Math.abs(loss - sum / n)).toBeLessThan(1e-4 * (sum / n));
  // Each row alone agrees with its own reference too.
  for (const ex of examples) {
    const ref = handLoss([ex]);
    expect(lossOf(padLmBatch([ex], PAD))).toBeCloseTo(ref.sum / ref.n, 4);
  }
});

test('gradients flow only through counted targets', () => {
  // An all-zero loss mask: loss 0 and zero gradients everywhere.
  const none = padLmBatch(examples.map((e) => ({ ids: e.ids, lossMask: e.lossMask.map(() => 0) })), PAD);
  const { loss, grads } = gradientsOf(model.params, () => ({ loss: causalLmLoss(model, none) }));
  expect(loss).toBe(0);
  for (const [name, g] of Object.entries(grads)) {
    const maxAbs = tf.tidy(() => tf.max(tf.abs(g)).dataSync()[0]);
    if (maxAbs !== 0) throw new Error(`${name}: gradient ${maxAbs} with nothing to predict`);
  }
  tf.dispose(Object.values(grads));

  // Changing an uncounted last token (of a right-padded row, and of the longest row) changes nothing;
  // changing a counted one does.
  const base = padLmBatch(examples, PAD);
  const edited = (row: number, t: number, id: number, mask?: number) => {
    const ex = examples.map((e) => ({ ids: [...e.ids], lossMask: [...e.lossMask] }));
    ex[row].ids[t] = id;
    if (mask !== undefined) ex[row].lossMask[t] = mask;
    return padLmBatch(ex, PAD);
  };
  const l0 = lossOf(base);
  expect(lossOf(edited(1, 3, 33, 0))).not.toBeCloseTo(l0, 5); // dropping a counted target changes the mean
  // Row 2's token 7 (mask 0) is an input to later counted targets: changing it must change the loss.
  expect(lossOf(edited(2, 7, 13))).not.toBeCloseTo(l0, 5);
  // Row 1's last real token with its mask set to 0: what it is no longer matters.
  const masked = lossOf(edited(1, 3, 11, 0));
  expect(lossOf(edited(1, 3, 44, 0))).toBeCloseTo(masked, 6);
  // The target after row 0's last token is padding (mask 0): the pad id does not matter either.
  const otherPad = padLmBatch(examples, 0);
  expect(lossOf(otherPad)).toBeCloseTo(l0, 6);
});

test('the LM head on the target positions alone: the same loss and gradients as on every position', () => {
  const batch = padLmBatch(examples, PAD); // 10 targets of 24 positions: the gathered path
  const full = () =>
    tf.tidy(() => {
      const B = batch.ids.length;
      const T = batch.ids[0].length;
      const logits = tf.slice(model.logits(tf.tensor2d(batch.ids, [B, T], 'int32'), { mask: tf.tensor2d(batch.attention, [B, T], 'int32') }), [0, 0, 0], [B, T - 1, V]);
      const flat = tf.reshape(logits, [-1, V]);
      const targets = tf.reshape(tf.slice(tf.tensor2d(batch.ids, [B, T], 'int32'), [0, 1], [B, T - 1]), [-1]);
      const mask = tf.tensor1d(batch.loss.flatMap((r) => r.slice(1)), 'float32');
      const nll = tf.neg(tf.sum(tf.mul(tf.logSoftmax(flat), tf.oneHot(targets, V)), -1));
      return tf.div(tf.sum(tf.mul(nll, mask)), tf.sum(mask)) as tf.Scalar;
    });
  const a = gradientsOf(model.params, () => ({ loss: causalLmLoss(model, batch) }));
  const b = gradientsOf(model.params, () => ({ loss: full() }));
  expect(a.loss).toBeCloseTo(b.loss, 5);
  for (const [name, g] of Object.entries(a.grads)) {
    const err = tf.tidy(() => tf.div(tf.max(tf.abs(tf.sub(g, b.grads[name]))), tf.add(tf.max(tf.abs(b.grads[name])), 1e-12)).dataSync()[0]);
    if (err > 1e-4) throw new Error(`${name}: gradients differ by ${err} (relative)`);
  }
  tf.dispose([...Object.values(a.grads), ...Object.values(b.grads)]);
});

test('lmMicroBatch weighs by target tokens; evaluateLmLoss is the token-weighted mean', () => {
  const b1 = padLmBatch(examples.slice(0, 2), PAD);
  const b2 = padLmBatch(examples.slice(2), PAD);
  const empty = padLmBatch([{ ids: [1, 2, 3], lossMask: [1, 0, 0] }], PAD); // only position 0: nothing to predict
  expect(lmMicroBatch(model, b1).weight).toBe(7);
  expect(lmMicroBatch(model, b2).weight).toBe(3);
  expect(lmMicroBatch(model, empty).weight).toBe(1); // never weight 0
  const mb = lmMicroBatch(model, b1).loss();
  expect(mb.loss.dataSync()[0]).toBeCloseTo(lossOf(b1), 6);
  mb.loss.dispose();

  const before = tf.memory().numTensors;
  const { loss, tokens } = evaluateLmLoss(model, [b1, empty, b2]);
  expect(tf.memory().numTensors).toBe(before);
  const { sum, n } = handLoss(examples);
  expect(tokens).toBe(n);
  expect(Math.abs(loss - sum / n)).toBeLessThan(1e-4 * (sum / n));
  // The token-weighted mean, not the mean of the batch means.
  expect(Math.abs(loss - (lossOf(b1) + lossOf(b2)) / 2)).toBeGreaterThan(1e-3);
  expect(evaluateLmLoss(model, [empty])).toEqual({ loss: NaN, tokens: 0 });
});

test('lmRowLosses: each row its own hand-computed summed cross-entropy and target count, padding and masks included', () => {
  const batch = padLmBatch([...examples, { ids: [1, 2, 3], lossMask: [1, 0, 0] }], PAD);
  const before = tf.memory().numTensors;
  const rows = lmRowLosses(model, batch);
  expect(tf.memory().numTensors).toBe(before);
  expect(rows.map((r) => r.tokens)).toEqual([...examples.map((e) => handLoss([e]).n), 0]);
  examples.forEach((e, i) => expect(Math.abs(rows[i].sum - handLoss([e]).sum)).toBeLessThan(1e-4 * handLoss([e]).sum));
  expect(rows[examples.length].sum).toBe(0);
  // the rows' token-weighted mean is evaluateLmLoss's figure
  const total = rows.reduce((a, r) => ({ sum: a.sum + r.sum, tokens: a.tokens + r.tokens }), { sum: 0, tokens: 0 });
  expect(total.sum / total.tokens).toBeCloseTo(evaluateLmLoss(model, [batch]).loss, 5);
});
