import * as tf from '@tensorflow/tfjs';
import { resumableRng, Qwen2Model, ScalarHead } from '@rlhf-code/model';
import { tokenLogProbs } from '@rlhf-code/trainer-core';
import { forwardResponses, forwardResponsesToHost, responseLogProbs } from './policy-forward';
import { LocalEngine } from '@rlhf-code/engine';
import { chunksByLength, layoutSequences, sampleResponses, selectRows, takeRows } from './rollout';
import { tinyConfig, TINY_EOS, TINY_PAD } from './testing/tiny';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const prompts = [[5, 6, 7], [8], [9, 10]];
const responses = [[11, 12], [13, 14, 15, TINY_EOS], [16]];

describe('layoutSequences', () => {
  it('left-pads prompts and right-pads responses', () => {
    const b = layoutSequences(prompts, responses, TINY_PAD);
    expect(b.promptWidth).toBe(3);
    expect(b.responseWidth).toBe(4);
    expect(b.ids[1]).toEqual([0, 0, 8, 13, 14, 15, 1]);
    expect(b.attention[1]).toEqual([0, 0, 1, 1, 1, 1, 1]);
    expect(b.ids[2]).toEqual([0, 9, 10, 16, 0, 0, 0]);
    expect(b.attention[2]).toEqual([0, 1, 1, 1, 0, 0, 0]);
    expect(b.targets[2]).toEqual([16, 0, 0, 0]);
    expect(b.responseMask).toEqual([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]);
    const sub = selectRows(b, [2, 0], TINY_PAD);
    expect([sub.promptWidth, sub.responseWidth]).toEqual([3, 2]);
    expect(takeRows(b.responseMask, [2, 0], 2)).toEqual(sub.responseMask);
    expect(() => layoutSequences([[1]], [[]], 0)).toThrow('response 0 is empty');
  });

  it('chunksByLength: every row once, in chunks of at most the size, shortest rows first (ties keep their order)', () => {
    const len = [7, 3, 9, 3, 1];
    expect(chunksByLength([0, 1, 2, 3, 4], 2, (r) => len[r])).toEqual([[4, 1], [3, 0], [2]]);
    expect(chunksByLength([2, 0], 5, (r) => len[r])).toEqual([[0, 2]]);
    expect(chunksByLength([], 3, (r) => len[r])).toEqual([]);
  });
});

describe('forwardResponses', () => {
  let model: Qwen2Model;
  beforeAll(() => (model = Qwen2Model.init(tinyConfig(), { seed: 1 })));
  afterAll(() => model.dispose());

  it('gives each response token its log-prob at temperature T, as an unpadded forward pass does', () => {
    const T = 0.7;
    const head = ScalarHead.init(16, { name: 'v_head', bias: true, seed: 3 });
    const b = layoutSequences(prompts, responses, TINY_PAD);
    const f = forwardResponses(model, b, { temperature: T, valueHead: head, entropy: true });
    const logp = f.logprobs.arraySync();
    const values = f.values!.arraySync();
    const entropy = f.entropy!.arraySync();
    const w = head.weight.dataSync();
    const bias = head.bias!.dataSync()[0];
    prompts.forEach((p, i) => {
      const seq = [...p, ...responses[i]];
      const { logits, hidden } = tf.tidy(() => {
        const ids = tf.tensor2d([seq], undefined, 'int32');
        return { logits: model.logits(ids).arraySync()[0], hidden: model.forward(ids).arraySync()[0] };
      });
      responses[i].forEach((tok, t) => {
        const at = p.length - 1 + t; // the position that predicts response token t
        const z = logits[at].map((x) => x / T);
        const lse = Math.log(z.reduce((s, x) => s + Math.exp(x), 0));
        expect(logp[i][t]).toBeCloseTo(z[tok] - lse, 4);
        const probs = z.map((x) => Math.exp(x - lse));
        expect(entropy[i][t]).toBeCloseTo(-probs.reduce((s, q) => s + q * Math.log(q), 0), 4);
        expect(values[i][t]).toBeCloseTo(hidden[at].reduce((s, h, d) => s + h * w[d], bias), 4);
      });
      for (let t = responses[i].length; t < 4; t++) expect(entropy[i][t]).toBe(0);
    });
    tf.dispose([f.logprobs, f.values!, f.entropy!]);
    // The chunked host version (each chunk laid out narrower) gives the same numbers, 0 on padding.
    // Chunks are taken in order of length (rows 2, then 0 and 1) and the results put back in row order.
    const host = forwardResponsesToHost(model, b, { temperature: T, valueHead: head, entropy: true, chunkSize: 2, padId: TINY_PAD });
    host.logprobs.forEach((row, i) => row.forEach((x, t) => expect(x).toBeCloseTo(b.responseMask[i][t] ? logp[i][t] : 0, 4)));
    host.values!.forEach((row, i) => row.forEach((x, t) => expect(x).toBeCloseTo(b.responseMask[i][t] ? values[i][t] : 0, 4)));
    host.entropy!.forEach((row, i) => row.forEach((x, t) => expect(x).toBeCloseTo(entropy[i][t], 4)));
    head.dispose();
  });

  it('the LM head only at masked-in positions: the gradients of a masked sum are those of the head over every position', () => {
    const T = 0.9;
    const b = layoutSequences(prompts, responses, TINY_PAD);
    b.responseMask[1] = [1, 0, 0, 1]; // as a tool episode's mask: holes inside the response
    const B = prompts.length;
    const R = b.responseWidth;
    const mask = () => tf.tensor2d(b.responseMask, [B, R], 'float32');
    const sparse = () => tf.sum(tf.mul(forwardResponses(model, b, { temperature: T, entropy: true }).logprobs, mask())) as tf.Scalar;
    const dense = () =>
      tf.tidy(() => {
        const P = b.promptWidth;
        const hidden = model.forward(tf.tensor2d(b.ids, [B, P + R], 'int32'), { mask: tf.tensor2d(b.attention, [B, P + R], 'int32') });
        const h = tf.reshape(tf.slice(hidden, [0, P - 1, 0], [B, R, hidden.shape[2]]), [B * R, -1]) as tf.Tensor2D;
        const lp = tf.reshape(tokenLogProbs(model.lmHead(h), tf.tensor1d(b.targets.flat(), 'int32'), T), [B, R]);
        return tf.sum(tf.mul(lp, mask())) as tf.Scalar;
      });
    const a = tf.variableGrads(sparse);
    const d = tf.variableGrads(dense);
    expect(a.value.dataSync()[0]).toBeCloseTo(d.value.dataSync()[0], 4);
    for (const name of ['model.embed_tokens.weight', 'model.layers.0.self_attn.q_proj.weight', 'model.norm.weight']) {
      const key = model.params[name].name;
      const x = a.grads[key].dataSync();
      const y = d.grads[key].dataSync();
      x.forEach((v, i) => expect(v).toBeCloseTo(y[i], 4));
    }
    tf.dispose([a.value, d.value, ...Object.values(a.grads), ...Object.values(d.grads)]);
  });

  it('responseLogProbs: free rows (left padded in chunks) at temperature T, one number per response token, [] when empty', () => {
    const T = 1.3;
    const rowsP = [[5, 6, 7, 8, 9], [8], [9, 10], [3, 4]];
    const rowsR = [[11, 12], [13, 14, 15, TINY_EOS], [], [16]];
    const lp = responseLogProbs(model, rowsP, rowsR, { temperature: T, padId: TINY_PAD, chunkSize: 2 });
    expect(lp.map((r) => r.length)).toEqual([2, 4, 0, 1]);
    rowsP.forEach((p, i) => {
      // Reference: softmax(logits / T) of one unpadded forward pass over the whole row.
      const logits = tf.tidy(() => model.logits(tf.tensor2d([[...p, ...rowsR[i]]], undefined, 'int32')).arraySync()[0]);
      rowsR[i].forEach((tok, t) => {
        const z = logits[p.length - 1 + t].map((x) => x / T);
        const lse = Math.log(z.reduce((s, x) => s + Math.exp(x), 0));
        expect(lp[i][t]).toBeCloseTo(z[tok] - lse, 4);
      });
    });
    expect(responseLogProbs(model, [[1, 2]], [[]], { temperature: T, padId: TINY_PAD })).toEqual([[]]);
  });

  it('samples responses that stop at EOS and reports which did', async () => {
    const before = tf.memory().numTensors;
    const out = await sampleResponses(new LocalEngine(model), prompts, { maxNewTokens: 6, temperature: 1, vocabSize: model.config.vocab_size, stopTokenIds: [TINY_EOS], rng: resumableRng(0), batchSize: 2 });
    expect(out.responseIds).toHaveLength(3);
    out.responseIds.forEach((r, i) => {
      expect(r.length).toBeGreaterThan(0);
      expect(r.length).toBeLessThanOrEqual(6);
      expect(out.endedWithEos[i]).toBe(r[r.length - 1] === TINY_EOS);
      expect(r.slice(0, -1)).not.toContain(TINY_EOS);
    });
    // generateBatch's seeding rule: the trainer's rng gives each prompt its own stream, so the batch size does not
    // change the samples, and the rng moves on one draw per prompt.
    const rng = resumableRng(0);
    const whole = await sampleResponses(new LocalEngine(model), prompts, { maxNewTokens: 6, temperature: 1, vocabSize: model.config.vocab_size, stopTokenIds: [TINY_EOS], rng });
    expect([whole.responseIds, whole.endedWithEos]).toEqual([out.responseIds, out.endedWithEos]);
    whole.samplerLogprobs.forEach((lp, i) => lp.forEach((x, t) => expect(x).toBeCloseTo(out.samplerLogprobs[i][t], 4)));
    const draws = resumableRng(0);
    prompts.forEach(() => draws.next());
    expect(rng.next()).toBe(draws.next());
    out.samplerLogprobs.forEach((lp, i) => expect(lp).toHaveLength(out.responseIds[i].length));
    expect(tf.memory().numTensors).toBe(before);
  });

  it('vocabSize: no id at or past it is sampled (a vocab_size padded past the tokenizer), even at a high temperature', async () => {
    const opts = { maxNewTokens: 6, temperature: 50, vocabSize: model.config.vocab_size, stopTokenIds: [TINY_EOS], rng: resumableRng(1) };
    const limit = 10; // ids 0-9 only; near-uniform sampling over the rest would draw past it almost surely
    const free = await sampleResponses(new LocalEngine(model), prompts, opts);
    expect(free.responseIds.flat().some((id) => id >= limit)).toBe(true);
    const masked = await sampleResponses(new LocalEngine(model), prompts, { ...opts, rng: resumableRng(1), vocabSize: limit });
    expect(masked.responseIds.flat().every((id) => id < limit)).toBe(true);
  });
});
