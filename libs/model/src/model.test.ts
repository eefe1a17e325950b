// The Qwen2 model against golden logits from an independent PyTorch implementation (test-fixtures/,
// made by tools/make_qwen2_fixture.py) and against a naive reference on other shapes.
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { makeConfig } from './config';
import { Qwen2Model } from './model';
import { KVCache } from './kv-cache';
import { resumableRng } from './sampling';
import { referenceLogits } from './testing/reference-forward';

const FIXTURES = path.join(__dirname, '../../../test-fixtures');

interface Golden {
  input_ids: number[][];
  logits: number[][][];
  padded_input_ids: number[][];
  padded_attention_mask: number[][];
  padded_logits_valid_positions_only: (number[] | null)[][];
  greedy_from_row0_8_new_tokens: number[];
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

beforeAll(async () => {
  await initBackend({ quiet: true });
});

describe.each([
  ['qwen2-tiny-f32-untied', 1e-4],
  ['qwen2-tiny-bf16-tied', 2e-3],
  ['qwen2-tiny-f32-sharded', 1e-4],
])('golden fixture %s', (name, atol) => {
  const dir = path.join(FIXTURES, name);
  const golden: Golden = JSON.parse(fs.readFileSync(path.join(dir, 'golden.json'), 'utf8'));
  let model: Qwen2Model;
  beforeAll(async () => {
    model = await Qwen2Model.load(dir);
  });
  afterAll(() => model.dispose());

  test('logits match', () => {
    const logits = tf.tidy(() => model.logits(tf.tensor2d(golden.input_ids, undefined, 'int32')));
    expect(maxAbsDiff(logits.dataSync(), golden.logits.flat(2))).toBeLessThan(atol);
    logits.dispose();
  });

  test('left-padded rows match at valid positions', () => {
    const logits = tf.tidy(() =>
      model.logits(tf.tensor2d(golden.padded_input_ids, undefined, 'int32'), {
        mask: tf.tensor2d(golden.padded_attention_mask),
      }),
    );
    const got = logits.arraySync() as number[][][];
    logits.dispose();
    let checked = 0;
    golden.padded_logits_valid_positions_only.forEach((row, b) =>
      row.forEach((want, t) => {
        if (want === null) return;
        expect(maxAbsDiff(got[b][t], want)).toBeLessThan(atol);
        checked++;
      }),
    );
    expect(checked).toBe(golden.padded_attention_mask.flat().filter((m) => m === 1).length);
  });

  test('greedy continuation with the KV cache matches', async () => {
    const { generate } = await import('./generate');
    const [out] = await generate(model, [golden.input_ids[0]], { maxNewTokens: 8, greedy: true, padId: 0 });
    expect(out.ids).toEqual(golden.greedy_from_row0_8_new_tokens);
    expect(out.finishReason).toBe('length');
  });
});

describe('shapes beyond the fixtures, against a naive reference', () => {
  test.each([
    { heads: 6, kv: 2, theta: 10000, vocab: 37, tie: false, hd: undefined },
    { heads: 4, kv: 1, theta: 500000, vocab: 50, tie: true, hd: undefined },
    { heads: 2, kv: 2, theta: 1e6, vocab: 23, tie: true, hd: 16 },
  ])('heads %o', async ({ heads, kv, theta, vocab, tie, hd }) => {
    const cfg = makeConfig({
      hidden_size: 24,
      intermediate_size: 40,
      num_hidden_layers: 2,
      num_attention_heads: heads,
      num_key_value_heads: kv,
      head_dim: hd,
      vocab_size: vocab,
      rope_theta: theta,
      tie_word_embeddings: tie,
      initializer_range: 0.3,
    });
    const model = Qwen2Model.init(cfg, { seed: 7 });
    // Random biases and norm weights too, so every parameter matters.
    for (const [name, v] of Object.entries(model.params)) {
      if (name.endsWith('.bias') || name.endsWith('norm.weight')) v.assign(tf.randomUniform(v.shape, 0.5, 1.5, 'float32', 3));
    }
    const ids = [3, 1, 4, 1, 5, 9, 2, 6, 5 % vocab];
    const logits = tf.tidy(() => model.logits(tf.tensor2d([ids], undefined, 'int32')));
    const want = referenceLogits(cfg as never, model.hostWeights(), ids);
    expect(maxAbsDiff(logits.dataSync(), want.flat())).toBeLessThan(1e-4);
    logits.dispose();
    model.dispose();
  });
});

describe('KV cache and batching', () => {
  let model: Qwen2Model;
  beforeAll(async () => {
    model = await Qwen2Model.load(path.join(FIXTURES, 'qwen2-tiny-f32-untied'));
  });
  afterAll(() => model.dispose());

  test('incremental decoding equals full recomputation', () => {
    const ids = [5, 17, 300, 42, 7, 99, 1000, 3];
    const full = tf.tidy(() => model.logits(tf.tensor2d([ids], undefined, 'int32')));
    const cache = new KVCache();
    const parts: Float32Array[] = [];
    // prefill 5 tokens, then one token at a time
    for (const chunk of [ids.slice(0, 5), ...ids.slice(5).map((i) => [i])]) {
      const l = tf.tidy(() => model.logits(tf.tensor2d([chunk], undefined, 'int32'), { cache }));
      parts.push(l.dataSync() as Float32Array);
      l.dispose();
    }
    cache.dispose();
    const inc = Float32Array.from(parts.flatMap((p) => Array.from(p)));
    expect(maxAbsDiff(inc, full.dataSync())).toBeLessThan(1e-4);
    full.dispose();
  });

  test('sampled log-probs from cached generation equal a full forward pass; batch rows equal single rows', async () => {
    const { generate } = await import('./generate');
    const prompts = [[11, 12, 13, 14, 15, 16], [200, 201], [7, 8, 9]];
    const opts = { maxNewTokens: 6, temperature: 0.8, topP: 1, padId: 0, rngs: prompts.map((_, b) => resumableRng(b)) };
    const batch = await generate(model, prompts, opts);
    for (let b = 0; b < prompts.length; b++) {
      const seq = [...prompts[b], ...batch[b].ids];
      const logp = tf.tidy(() => {
        const logits = tf.div(model.logits(tf.tensor2d([seq], undefined, 'int32')), 0.8);
        return tf.logSoftmax(tf.squeeze(logits, [0])).arraySync() as number[][];
      });
      batch[b].ids.forEach((tok, i) => {
        expect(Math.abs(logp[prompts[b].length - 1 + i][tok] - batch[b].logprobs[i])).toBeLessThan(1e-4);
      });
      // Greedy on a padded batch equals greedy on the row alone.
      const [alone] = await generate(model, [prompts[b]], { maxNewTokens: 6, greedy: true, padId: 0 });
      const [inBatch] = [(await generate(model, prompts, { maxNewTokens: 6, greedy: true, padId: 0 }))[b]];
      expect(inBatch.ids).toEqual(alone.ids);
    }
  });

  test('minNewTokens keeps the stop ids out of the first tokens, with log-probs of the renormalised rest', async () => {
    const { generate } = await import('./generate');
    const prompt = [11, 12, 13, 14, 15, 16];
    const [free] = await generate(model, [prompt], { maxNewTokens: 3, greedy: true, padId: 0 });
    const stop = free.ids[0]; // make the greedy first token a stop token
    const [ended] = await generate(model, [prompt], { maxNewTokens: 3, greedy: true, padId: 0, stopTokenIds: [stop] });
    expect(ended.ids).toEqual([stop]);
    expect(ended.finishReason).toBe('stop');

    const [held] = await generate(model, [prompt], { maxNewTokens: 3, greedy: true, padId: 0, stopTokenIds: [stop], minNewTokens: 1 });
    const logits = tf.tidy(() => tf.squeeze(model.logits(tf.tensor2d([prompt], undefined, 'int32')), [0]).arraySync() as number[][]);
    const last = logits[prompt.length - 1].slice();
    last[stop] = -Infinity;
    const second = last.indexOf(Math.max(...last));
    expect(held.ids[0]).toBe(second);
    const lse = Math.log(last.reduce((s, l) => s + Math.exp(l), 0));
    expect(Math.abs(held.logprobs[0] - (last[second] - lse))).toBeLessThan(1e-4);
    await expect(generate(model, [prompt], { maxNewTokens: 3, greedy: true, padId: 0, minNewTokens: -1 })).rejects.toThrow(
      'minNewTokens must be an integer >= 0',
    );
  });

  test('no tensors leak across forward passes and generation', async () => {
    const { generate } = await import('./generate');
    await generate(model, [[1, 2, 3]], { maxNewTokens: 3, greedy: true, padId: 0 });
    const before = tf.memory().numTensors;
    await generate(model, [[1, 2, 3], [4, 5]], { maxNewTokens: 5, temperature: 1, padId: 0, rngs: [resumableRng(3), resumableRng(4)] });
    tf.dispose(tf.tidy(() => model.logits(tf.tensor2d([[1, 2]], undefined, 'int32'))));
    expect(tf.memory().numTensors).toBe(before);
  });
});
