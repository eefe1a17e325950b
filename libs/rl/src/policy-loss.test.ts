import * as tf from '@tensorflow/tfjs';
import { tokenLogProbs } from '@rlhf-code/trainer-core';
import { clippedPolicyLoss, truncatedIsWeights } from './policy-loss';
import { aggregate } from './masked';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const data = (t: tf.Tensor) => Array.from(t.dataSync());

describe('clippedPolicyLoss', () => {
  // ratios 1.5, 0.7, 1.1, 0.5 with advantages 1, 1, -2, -1 and clip 0.2:
  //   t0: A > 0, ratio above 1.2 -> clipped term -1.2 wins (no gradient)
  //   t1: A > 0, ratio below 0.8 -> unclipped -0.7 is the larger (pessimistic): gradient flows
  //   t2: A < 0, ratio inside the range -> 2.2 either way: gradient flows
  //   t3: A < 0, ratio below 0.8 -> clipped term 0.8 wins (no gradient)
  // loss = (-1.2 - 0.7 + 2.2 + 0.8) / 4 = 0.275; clipfrac = 2/4
  const ratios = [1.5, 0.7, 1.1, 0.5];
  const old = [-1, -2, -0.5, -3];

  it('matches the hand-computed loss, clipfrac, approx KL and gradient', () => {
    const oldLogp = tf.tensor2d([old]);
    const logp = tf.tensor2d([old.map((o, t) => o + Math.log(ratios[t]))]);
    const adv = tf.tensor2d([[1, 1, -2, -1]]);
    const mask = tf.ones([1, 4]);
    const r = clippedPolicyLoss(logp, oldLogp, adv, mask, 0.2);
    expect(r.loss.dataSync()[0]).toBeCloseTo(0.275, 5);
    expect(r.clipfrac.dataSync()[0]).toBeCloseTo(0.5, 6);
    const kl = 0.5 * ratios.reduce((s, x) => s + Math.log(x) ** 2, 0) / 4;
    expect(r.approxKl.dataSync()[0]).toBeCloseTo(kl, 5);
    // d loss / d logp_t = -A_t * ratio_t / 4 where the unclipped term is taken, else 0
    const g = tf.grad((x: tf.Tensor) => clippedPolicyLoss(x, oldLogp, adv, mask, 0.2).loss)(logp);
    const expected = [0, -0.7 / 4, (2 * 1.1) / 4, 0];
    data(g).forEach((v, t) => expect(v).toBeCloseTo(expected[t], 5));
    tf.dispose([oldLogp, logp, adv, mask, r.loss, r.clipfrac, r.approxKl, g]);
  });

  it('clips exactly at the boundaries: just inside has a gradient, just outside none', () => {
    for (const [ratio, adv, clipped] of [
      [1.19, 1, false], [1.21, 1, true], // A > 0: the upper bound matters
      [0.81, -1, false], [0.79, -1, true], // A < 0: the lower bound matters
      [0.5, 1, false], [1.5, -1, false], // the other side is never clipped
    ] as const) {
      const oldLogp = tf.zeros([1, 1]);
      const logp = tf.fill([1, 1], Math.log(ratio));
      const a = tf.fill([1, 1], adv);
      const mask = tf.ones([1, 1]);
      const g = tf.grad((x: tf.Tensor) => clippedPolicyLoss(x, oldLogp, a, mask, 0.2).loss)(logp);
      const r = clippedPolicyLoss(logp, oldLogp, a, mask, 0.2);
      if (clipped) expect(g.dataSync()[0]).toBe(0);
      else expect(g.dataSync()[0]).toBeCloseTo(-adv * ratio, 5);
      expect(r.clipfrac.dataSync()[0]).toBe(clipped ? 1 : 0);
      tf.dispose([oldLogp, logp, a, mask, g, r.loss, r.clipfrac, r.approxKl]);
    }
  });

  it('ignores padding and aggregates by token or by sequence', () => {
    const zero = tf.zeros([2, 3]);
    const adv = tf.tensor2d([[-1, -2, -3], [-10, 99, 99]]); // ratio 1: per-token loss = -A
    const mask = tf.tensor2d([[1, 1, 1], [1, 0, 0]]);
    const tok = clippedPolicyLoss(zero, zero, adv, mask, 0.2, 'token-mean');
    const seq = clippedPolicyLoss(zero, zero, adv, mask, 0.2, 'seq-mean');
    expect(tok.loss.dataSync()[0]).toBeCloseTo((1 + 2 + 3 + 10) / 4, 5);
    expect(seq.loss.dataSync()[0]).toBeCloseTo((2 + 10) / 2, 5);
    tf.dispose([zero, adv, mask, tok.loss, tok.clipfrac, tok.approxKl, seq.loss, seq.clipfrac, seq.approxKl]);
  });

  it('rejects mismatched shapes and a non-positive clip', () => {
    const a = tf.zeros([2, 3]);
    expect(() => clippedPolicyLoss(a, tf.zeros([2, 2]), a, a, 0.2)).toThrow('oldLogp has shape [2,2], expected [2,3]');
    expect(() => clippedPolicyLoss(a, a, tf.zeros([3, 1]), a, 0.2)).toThrow('advantages must be [2, 3] or [2, 1]');
    expect(() => clippedPolicyLoss(a, a, a, a, 0)).toThrow('clip must be > 0');
  });
});

describe('the critic-free online loss (one sequence-level advantage, ratio 1, token mean)', () => {
  it('has the REINFORCE gradient -A_b / (number of tokens)', () => {
    const logp = tf.tensor2d([[-1, -2, -3], [-0.5, -0.5, -0.5]]);
    const adv = tf.tensor2d([[2], [-1]]); // [B, 1], broadcast over tokens
    const mask = tf.tensor2d([[1, 1, 0], [1, 1, 1]]);
    const old = logp.clone(); // a constant: the gradient is taken wrt logp only
    const g = tf.grad((x: tf.Tensor) => clippedPolicyLoss(x, old, adv, mask, 0.2).loss)(logp);
    data(g).forEach((v, i) => expect(v).toBeCloseTo([-0.4, -0.4, 0, 0.2, 0.2, 0.2][i], 6));
    tf.dispose([logp, old, adv, mask, g]);
  });

  it('teaches a tiny categorical policy to prefer the rewarded token', () => {
    // Policy: one logits vector over 3 tokens; responses of 2 tokens; reward +1 when token 2 appears, else -1.
    const logits = tf.variable(tf.zeros([3]));
    const responses = [[0, 1], [2, 0], [1, 1], [2, 2], [0, 0], [1, 2]];
    const reward = responses.map((r) => (r.includes(2) ? 1 : -1));
    const targets = tf.tensor2d(responses, undefined, 'int32');
    const adv = tf.tensor2d(reward.map((r) => [r]));
    const mask = tf.ones([6, 2]);
    const opt = tf.train.sgd(1);
    const p2 = () => tf.tidy(() => tf.softmax(logits).dataSync()[2]);
    const before = p2();
    const logprobs = () => tokenLogProbs(tf.tile(tf.reshape(logits, [1, 1, 3]), [6, 2, 1]), targets); // [6, 2]
    for (let i = 0; i < 20; i++) {
      const old = tf.tidy(logprobs); // the sampling policy: this step's, so the ratio is 1
      opt.minimize(() => clippedPolicyLoss(logprobs(), old, adv, mask, 0.2).loss);
      old.dispose();
    }
    expect(before).toBeCloseTo(1 / 3, 5);
    expect(p2()).toBeGreaterThan(0.9);
    tf.dispose([logits, targets, adv, mask]);
    opt.dispose();
  });
});

describe('aggregate', () => {
  it('rejects an unknown mode', () => {
    const x = tf.zeros([1, 1]);
    expect(() => aggregate(x, x, 'sum' as never)).toThrow('unknown mode "sum"');
    x.dispose();
  });
});

describe('truncated importance weights (--rollout-is token-truncate)', () => {
  // Old (the trainer's recompute) and sampler (the engine's) log-probs of two tokens, a third only the trainer has:
  //   t0: exp(ln 0.4 - ln 0.2) = 2, cut to the cap 1.5;  t1: exp(ln 0.25 - ln 0.25) = 1;  t2: no sampler log-prob -> 1
  const old = [[Math.log(0.4), Math.log(0.25), -1]];
  const sampler = [[Math.log(0.2), Math.log(0.25)]];

  it('are min(cap, exp(old - sampler)), 1 where the engine gave none', () => {
    const w = truncatedIsWeights(old, sampler, 1.5);
    expect(w[0][0]).toBeCloseTo(1.5, 12);
    expect(w[0][1]).toBeCloseTo(1, 12);
    expect(w[0][2]).toBe(1);
    expect(() => truncatedIsWeights(old, sampler, 0)).toThrow('cap must be > 0');
  });

  it('weight each token of the clipped loss, as constants (hand-computed loss and gradient)', () => {
    // A = 1, clip 0.2; ratios 1.25 (t0: clipped term -1.2 wins, no gradient) and 0.9 (t1: -0.9, gradient -ratio);
    // t2 masked out. Weighted token mean: (1.5 x -1.2 + 1 x -0.9) / 2 = -1.35; d/dlogp1 = -0.9 x 1 / 2 = -0.45.
    const oldLogp = tf.tensor2d([old[0]]);
    const ratios = [1.25, 0.9, 1];
    const adv = tf.tensor2d([[1]]);
    const mask = tf.tensor2d([[1, 1, 0]]);
    const isWeights = tf.tensor2d(truncatedIsWeights(old, sampler, 1.5));
    const logp = tf.variable(tf.tensor2d([old[0].map((o, t) => o + Math.log(ratios[t]))]));
    const { value, grads } = tf.variableGrads(() => clippedPolicyLoss(logp, oldLogp, adv, mask, 0.2, 'token-mean', isWeights).loss, [logp]);
    expect(value.dataSync()[0]).toBeCloseTo(-1.35, 5);
    const g = data(grads[logp.name]);
    expect(g[0]).toBeCloseTo(0, 6);
    expect(g[1]).toBeCloseTo(-0.45, 5);
    expect(data(clippedPolicyLoss(logp, oldLogp, adv, mask, 0.2).loss)[0]).toBeCloseTo(-1.05, 5); // unweighted: (-1.2 - 0.9) / 2
    tf.dispose([oldLogp, adv, mask, isWeights, logp, value, grads[logp.name]]);
  });
});
