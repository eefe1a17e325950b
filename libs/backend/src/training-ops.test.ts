// The ops a Qwen2 training step, sampling and the RLHF losses use: forward values and gradients on
// wasm against the cpu backend. A kernel missing on wasm fails here with "not registered".
import * as tf from '@tensorflow/tfjs';
import { initBackend } from './select';
import { expectAllClose, runOn, seededValues } from './testing';

const X = seededValues(2 * 3 * 8, 1); // values in [-1, 1)
const Y = seededValues(2 * 3 * 8, 2);
const x = () => tf.tensor(X, [2, 3, 8]);
const y = () => tf.tensor(Y, [2, 3, 8]);

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

// name -> a function of one tensor whose value and gradient are compared.
const DIFFERENTIABLE: Array<[string, (t: tf.Tensor) => tf.Tensor]> = [
  ['rsqrt (RMSNorm)', (t) => tf.mul(t, tf.rsqrt(tf.add(tf.mean(tf.square(t), -1, true), 1e-6)))],
  ['sigmoid / silu', (t) => tf.mul(t, tf.sigmoid(t))],
  ['softmax', (t) => tf.softmax(tf.mul(t, 3))],
  ['logSoftmax', (t) => tf.logSoftmax(t)],
  ['logSumExp', (t) => tf.logSumExp(t, -1)],
  ['max', (t) => tf.max(t, -1)],
  ['exp / log', (t) => tf.log(tf.add(tf.exp(t), 1))],
  ['sqrt / abs', (t) => tf.sqrt(tf.add(tf.abs(t), 0.1))],
  // log sigmoid(z) = -softplus(-z); tf.logSigmoid's own gradient breaks (on every backend) when
  // its input is an intermediate tensor, so the reward/DPO losses should use this form.
  ['softplus (log sigmoid)', (t) => tf.add(tf.softplus(t), tf.neg(tf.softplus(tf.mul(t, -2))))],
  ['tanh', (t) => tf.tanh(t)],
  ['minimum / maximum (PPO clip)', (t) => tf.minimum(tf.mul(t, y()), tf.mul(tf.clipByValue(t, -0.2, 0.2), y()))],
  ['where with a constant mask', (t) => tf.where(tf.greater(y(), 0), t, tf.mul(t, -2))],
  ['cumsum', (t) => tf.cumsum(t, -1)],
  ['reverse cumsum', (t) => tf.cumsum(t, 1, false, true)],
  ['slice / concat / neg (RoPE rotate_half)', (t) => tf.concat([tf.neg(tf.slice(t, [0, 0, 4], [-1, -1, 4])), tf.slice(t, [0, 0, 0], [-1, -1, 4])], -1)],
  ['transpose / reshape', (t) => tf.reshape(tf.transpose(tf.reshape(t, [2, 3, 2, 4]), [0, 2, 1, 3]), [2, 2, 12])],
  ['tile (GQA repeat_kv)', (t) => tf.tile(tf.reshape(t, [2, 1, 3, 8]), [1, 3, 1, 1])],
  ['broadcastTo', (t) => tf.broadcastTo(tf.reshape(t, [2, 1, 3, 8]), [2, 4, 3, 8])],
  ['split / stack', (t) => tf.stack(tf.split(t, 2, -1).reverse(), 0)],
  ['pad', (t) => tf.pad(t, [[0, 0], [1, 0], [0, 2]])],
  ['mean / sum over axes', (t) => tf.add(tf.mean(t, [0, 2]), tf.sum(t, 1).sum(-1, true))],
  ['div / sub / pow', (t) => tf.div(tf.sub(t, 0.5), tf.add(tf.pow(t, 2), 1))],
  ['gather rows', (t) => tf.gather(tf.reshape(t, [6, 8]), tf.tensor1d([5, 0, 5, 2], 'int32'))],
  ['gather with batchDims 1 (target logits)', (t) => tf.gather(tf.reshape(t, [6, 8]), tf.tensor2d([[1], [7], [0], [2], [2], [5]], [6, 1], 'int32'), 1, 1)],
  ['matMul broadcast [B,H,T,D] x [1,H,D,S]', (t) => tf.matMul(tf.reshape(t, [2, 2, 3, 4]), tf.reshape(y().slice([0, 0, 0], [1, 3, 8]), [1, 2, 4, 3]))],
  ['matMul 3d x 2d (linear on [B,T,C])', (t) => tf.matMul(t, tf.reshape(y().slice([0, 0, 0], [1, 1, 8]), [8, 1]).tile([1, 5]))],
];

describe('forward and gradient on wasm match cpu', () => {
  for (const [name, f] of DIFFERENTIABLE) {
    test(name, async () => {
      const fn = () => {
        const input = x();
        const { value, grad } = tf.valueAndGrad((t: tf.Tensor) => tf.sum(tf.mul(f(t), 0.37)))(input);
        return [f(input), value, grad];
      };
      expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn), 1e-5, 1e-4);
    });
  }
});

// Sampling / bookkeeping ops without gradients.
const FORWARD_ONLY: Array<[string, () => tf.Tensor | tf.Tensor[]]> = [
  ['topk values and indices', () => { const r = tf.topk(x(), 3); return [r.values, tf.cast(r.indices, 'float32')]; }],
  ['argMax', () => tf.cast(tf.argMax(x(), -1), 'float32')],
  ['cumsum of sorted probabilities (top-p)', () => tf.cumsum(tf.topk(tf.softmax(x()), 8).values, -1)],
  ['oneHot / equal / cast', () => tf.cast(tf.equal(tf.oneHot(tf.tensor1d([0, 7, 3], 'int32'), 8), 1), 'float32')],
  ['greaterEqual / logicalAnd / less', () => tf.cast(tf.logicalAnd(tf.greaterEqual(x(), -0.5), tf.less(y(), 0.5)), 'float32')],
  ['range / linalg.bandPart (causal mask)', () => tf.linalg.bandPart(tf.ones([4, 4]), -1, 0).add(tf.range(0, 4).reshape([4, 1]))],
  ['gather along the last axis (target log-probs)', () => tf.gather(tf.reshape(x(), [6, 8]), tf.tensor1d([1, 7, 0, 2, 2, 5], 'int32'), 1, 1)],
];

describe('forward-only ops on wasm match cpu', () => {
  for (const [name, fn] of FORWARD_ONLY) {
    test(name, async () => {
      expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn));
    });
  }
});

test('a tiny Qwen2-style block: loss and every parameter gradient match cpu', async () => {
  const [B, T, C, H, KV, HD, F, V] = [2, 4, 8, 2, 1, 4, 12, 10];
  const tokens = Int32Array.from([1, 5, 5, 9, 0, 3, 7, 3]);
  const targets = Int32Array.from([5, 5, 9, 2, 3, 7, 3, 1]);
  const shapes: Record<string, number[]> = {
    emb: [V, C], ln1: [C], wq: [C, H * HD], bq: [H * HD], wk: [C, KV * HD], bk: [KV * HD], wv: [C, KV * HD],
    bv: [KV * HD], wo: [H * HD, C], ln2: [C], wg: [C, F], wu: [C, F], wd: [F, C], lnf: [C],
  };
  const init = Object.fromEntries(Object.entries(shapes).map(([k, s], i) => [k, seededValues(s.reduce((a, b) => a * b, 1), 10 + i)]));
  // cos/sin for RoPE, [T, HD]
  const angle = (t: number, i: number) => t / 10000 ** ((2 * (i % (HD / 2))) / HD);
  const cos = Float32Array.from({ length: T * HD }, (_, j) => Math.cos(angle(Math.floor(j / HD), j % HD)));
  const sin = Float32Array.from({ length: T * HD }, (_, j) => Math.sin(angle(Math.floor(j / HD), j % HD)));
  const mask = Float32Array.from({ length: T * T }, (_, j) => (j % T > Math.floor(j / T) ? -1e9 : 0));

  const rmsNorm = (h: tf.Tensor, w: tf.Tensor) => tf.mul(tf.mul(h, tf.rsqrt(tf.add(tf.mean(tf.square(h), -1, true), 1e-6))), w);
  const linear = (h: tf.Tensor, w: tf.Tensor, b?: tf.Tensor) => {
    const out = tf.matMul(tf.reshape(h, [-1, h.shape[h.rank - 1]]), w); // 2-D, as the notes advise
    return b ? tf.add(out, b) : out;
  };
  const heads = (h: tf.Tensor, n: number) => tf.transpose(tf.reshape(h, [B, T, n, HD]), [0, 2, 1, 3]); // [B, n, T, HD]
  const rope = (h: tf.Tensor) => {
    const rotated = tf.concat([tf.neg(tf.slice(h, [0, 0, 0, HD / 2], [-1, -1, -1, HD / 2])), tf.slice(h, [0, 0, 0, 0], [-1, -1, -1, HD / 2])], -1);
    return tf.add(tf.mul(h, tf.tensor(cos, [T, HD])), tf.mul(rotated, tf.tensor(sin, [T, HD])));
  };

  const loss = (p: Record<string, tf.Tensor>) => {
    let h = tf.gather(p.emb, tf.tensor(tokens, [B, T], 'int32')); // [B, T, C]
    const a = rmsNorm(h, p.ln1);
    const q = rope(heads(linear(a, p.wq, p.bq), H)); // [B, H, T, HD]
    const k = tf.tile(rope(heads(linear(a, p.wk, p.bk), KV)), [1, H / KV, 1, 1]);
    const v = tf.tile(heads(linear(a, p.wv, p.bv), KV), [1, H / KV, 1, 1]);
    const scores = tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(HD)), tf.tensor(mask, [T, T])); // [B, H, T, T]
    const att = tf.matMul(tf.softmax(scores), v); // [B, H, T, HD]
    h = tf.add(h, tf.reshape(linear(tf.reshape(tf.transpose(att, [0, 2, 1, 3]), [B, T, H * HD]), p.wo), [B, T, C]));
    const m = rmsNorm(h, p.ln2);
    const gate = linear(m, p.wg);
    h = tf.add(h, tf.reshape(linear(tf.mul(tf.mul(gate, tf.sigmoid(gate)), linear(m, p.wu)), p.wd), [B, T, C]));
    const logits = tf.matMul(tf.reshape(rmsNorm(h, p.lnf), [B * T, C]), p.emb, false, true); // tied lm_head, [B*T, V]
    const target = tf.gather(logits, tf.tensor(targets, [B * T, 1], 'int32'), 1, 1); // [B*T, 1]
    return tf.mean(tf.sub(tf.logSumExp(logits, -1, true), target));
  };

  const fn = () => {
    const names = Object.keys(shapes);
    const params = names.map((k) => tf.tensor(init[k], shapes[k]));
    const { value, grads } = tf.valueAndGrads((...ps: tf.Tensor[]) =>
      loss(Object.fromEntries(names.map((k, i) => [k, ps[i]]))),
    )(params);
    return [value, ...grads];
  };
  const got = await runOn('wasm', fn);
  const want = await runOn('cpu', fn);
  expect(got[0][0]).toBeGreaterThan(1); // a real loss around ln(V), not a degenerate 0
  expectAllClose(got, want, 1e-5, 1e-3);
});
