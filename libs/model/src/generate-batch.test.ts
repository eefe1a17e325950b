// generateBatch, the one generation entry point: results in input order whatever the batching, the seeding rule
// (one stream per prompt from the root stream, so the batch size does not change the samples), stop sets by name.
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { makeConfig } from './config';
import { Completion, generateBatch, sampledIds } from './generate-batch';
import { Qwen2Model } from './model';
import { resumableRng } from './sampling';
import { promoteToken } from './testing/promote-token';

const tok = loadTokenizer(path.join(__dirname, '../../../models/tokenizer-code16k'));
let model: Qwen2Model;

/** The same completions: equal tokens and text; log-probs equal up to the float rounding of a differently padded batch. */
function expectSame(a: readonly Completion[], b: readonly Completion[]): void {
  const strip = (cs: readonly Completion[]) => cs.map(({ logprobs: _, ...rest }) => rest);
  expect(strip(a)).toEqual(strip(b));
  a.forEach((c, i) => c.logprobs.forEach((lp, t) => expect(lp).toBeCloseTo(b[i].logprobs[t], 4)));
}

beforeAll(async () => {
  await initBackend({ quiet: true });
  const config = makeConfig({
    hidden_size: 32, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2,
    vocab_size: tok.vocabSize, max_position_embeddings: 128, tie_word_embeddings: false,
    initializer_range: 0.3, // peaked next-token distributions, still with real choices to sample
  });
  model = Qwen2Model.init(config, { seed: 7, trainable: false });
});
// The model goes with the backend (jest-teardown shuts it down after this file).

// Prompts of different lengths, so batches are left padded and byLength reorders them.
const prompts = ['def add(a, b):\n    return', 'x = 1\n', '# Write a function to find the shared elements of two lists.\n', 'import os\n', 'class A:\n'].map((p) => tok.encode(p));

describe('generateBatch', () => {
  it('concurrent generations take turns: one decoding step per event-loop iteration, so timers and I/O get in between', async () => {
    let steps = 0;
    const opts = { maxNewTokens: 6, minNewTokens: 6, temperature: 1, tokenizer: tok, stop: 'raw' as const, beforeStep: () => void steps++ };
    const seen: number[] = [];
    const runs = [0, 1, 2, 3].map((seed) => generateBatch(model, [prompts[seed]], { ...opts, seed }));
    // A timer set now fires in the next iteration's timers phase: with turn-taking at most one step ran before it
    // (plain setImmediate yields would have let all four generations step first).
    await new Promise<void>((resolve) => setTimeout(() => (seen.push(steps), resolve()), 0));
    await new Promise<void>((resolve) => setTimeout(() => (seen.push(steps), resolve()), 0));
    await Promise.all(runs);
    expect(seen[0]).toBeLessThanOrEqual(1);
    expect(seen[1] - seen[0]).toBeLessThanOrEqual(1);
    expect(steps).toBe(4 * 6);
  });

  it('chunked prefill (a long prompt in pieces, the event loop turning between them) gives the same completions', async () => {
    const tensors = tf.memory().numTensors;
    const opts = { maxNewTokens: 6, temperature: 1, tokenizer: tok, stop: 'raw' as const, seed: 5 };
    const whole = await generateBatch(model, prompts, opts);
    let turns = 0;
    const chunked = await generateBatch(model, prompts, { ...opts, prefillChunk: 4, beforeStep: () => void turns++ });
    expectSame(chunked, whole);
    // The longest prompt is cut in pieces of 4; each piece but the last, and each decoding step, passes beforeStep.
    const T = Math.max(...prompts.map((p) => p.length));
    expect(turns).toBe(Math.ceil(T / 4) - 1 + Math.max(...chunked.map((c) => sampledIds(c).length)));
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('copies of a prompt are prefilled once and decode as they would alone (sampled, chunked or not, behind a shared prefix)', async () => {
    const tensors = tf.memory().numTensors;
    const withCopies = [prompts[0], prompts[2], prompts[0], prompts[0], prompts[2], prompts[1]];
    const sharing = ['# a header every row shares\n', '# a header every row shares\n'].map((h, i) => tok.encode(h + (i === 0 ? 'x = 1\n' : 'import os\n')));
    const cases = [withCopies, [sharing[0], sharing[1], sharing[0], sharing[1]]];
    for (const rows of cases) {
      for (const extra of [{}, { prefillChunk: 4 }, { greedy: true }]) {
        const opts = { maxNewTokens: 6, temperature: 1, tokenizer: tok, stop: 'raw' as const, seed: 11, ...extra };
        const alone = await generateBatch(model, rows, { ...opts, batchSize: 1 }); // one row per batch: nothing to share
        const spy = jest.spyOn(model, 'forward');
        const together = await generateBatch(model, rows, opts);
        // Prefill calls (several positions per row) carry one row per distinct prompt, never a copy.
        const prefillRows = spy.mock.calls.map(([ids]) => (ids as tf.Tensor).shape).filter((shape) => (shape[1] ?? 0) > 1).map((shape) => shape[0]);
        spy.mockRestore();
        expectSame(together, alone);
        expect(prefillRows.length).toBeGreaterThan(0);
        expect(Math.max(...prefillRows)).toBe(new Set(rows.map((p) => p.join(','))).size);
      }
    }
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it("modelLogprobs: the model's own log-probs at temperature 1 of what a tempered sampler chose (a forward pass's log-softmax)", async () => {
    const opts = { maxNewTokens: 6, temperature: 0.01, tokenizer: tok, stop: 'raw' as const, seed: 2 };
    const plain = await generateBatch(model, prompts.slice(0, 2), opts);
    const withModel = await generateBatch(model, prompts.slice(0, 2), { ...opts, modelLogprobs: true });
    expect(withModel.map((c) => c.ids)).toEqual(plain.map((c) => c.ids)); // the same samples
    expect(plain[0].modelLogprobs).toBeUndefined();
    withModel.forEach((c, i) => {
      const ids = [...prompts[i], ...sampledIds(c)];
      const ref = tf.tidy(() => {
        const logp = tf.logSoftmax(model.logits(tf.tensor2d([ids], [1, ids.length], 'int32'))).arraySync()[0] as number[][];
        return sampledIds(c).map((id, t) => logp[prompts[i].length - 1 + t][id]);
      });
      expect(c.modelLogprobs).toHaveLength(ref.length);
      c.modelLogprobs!.forEach((lp, t) => expect(lp).toBeCloseTo(ref[t], 3));
      // The sampler's own log-probs at 0.01 are about 0 (each choice nearly certain); the model's are not.
      expect(Math.min(...ref)).toBeLessThan(-0.05);
    });
  });

  it("a vocab_size padded past the tokenizer's tokens: those ids are never chosen (greedy or sampled), so the text decodes", async () => {
    // 64 padding rows, the one after the tokenizer's last token made every step's greedy choice where the real one was
    const padded = Qwen2Model.init(makeConfig({ ...model.config, vocab_size: tok.vocabSize + 64 }), { seed: 7, trainable: false });
    try {
      const plain = await generateBatch(padded, prompts, { maxNewTokens: 6, greedy: true });
      const pad = tok.vocabSize;
      promoteToken(padded, pad, plain[0].ids[0]);
      // without a tokenizer every id of the logits is fair game: the padding id now comes first
      expect((await generateBatch(padded, prompts.slice(0, 1), { maxNewTokens: 1, greedy: true }))[0].ids).toEqual([pad]);
      // vocabSize without a tokenizer (PPO's rollouts decode later): the same rule
      expect((await generateBatch(padded, prompts.slice(0, 1), { maxNewTokens: 1, greedy: true, vocabSize: tok.vocabSize }))[0].ids[0]).toBeLessThan(pad);
      for (const o of [{ greedy: true }, { temperature: 1, seed: 1 }, { temperature: 50, seed: 2 }]) {
        const done = await generateBatch(padded, prompts, { maxNewTokens: 6, tokenizer: tok, ...o });
        for (const c of done) {
          expect(c.ids.every((id) => id < tok.vocabSize)).toBe(true);
          expect(c.text).toBe(tok.decode(c.ids));
        }
      }
    } finally {
      padded.dispose();
    }
  });

  it('the same seed gives the same samples whatever the batch size and order; another seed others', async () => {
    const tensors = tf.memory().numTensors;
    const opts = { maxNewTokens: 8, temperature: 1, tokenizer: tok, stop: 'raw' as const, seed: 3 };
    const all = await generateBatch(model, prompts, opts);
    for (const batching of [{ batchSize: 1 }, { batchSize: 2 }, { batchSize: 3, byLength: true }]) {
      expectSame(await generateBatch(model, prompts, { ...opts, ...batching }), all);
    }
    // A prompt's samples depend on its index, not on the prompts around it.
    expect((await generateBatch(model, prompts.slice(0, 2), opts)).map((c) => c.ids)).toEqual(all.slice(0, 2).map((c) => c.ids));
    const other = await generateBatch(model, prompts, { ...opts, seed: 4 });
    expect(other.map((c) => c.ids)).not.toEqual(all.map((c) => c.ids));
    expect(tf.memory().numTensors).toBe(tensors);

    // A caller-owned root stream is the seed's stream: the same samples, and it moves on one draw per prompt.
    const rng = resumableRng(3);
    expectSame(await generateBatch(model, prompts, { ...opts, seed: undefined, rng }), all);
    const check = resumableRng(3);
    prompts.forEach(() => check.next());
    expect(rng.next()).toBe(check.next());

    for (const c of all) {
      expect(c.text).toBe(tok.decode(c.ids));
      expect(c.logprobs).toHaveLength(sampledIds(c).length); // one per sampled token, the stop token included
      expect(c.ids).not.toContain(tok.eosId);
      expect(c.finishReason).toBe(c.stopId === null ? 'length' : 'stop');
      expect(sampledIds(c).length).toBeLessThanOrEqual(8);
      expect(c.stopId === null || c.stopId === tok.eosId).toBe(true);
    }
  });

  it('rngs: caller-owned streams, one per prompt: the seeding rule with the streams it would make; each advances one draw per token', async () => {
    const opts = { maxNewTokens: 8, temperature: 1, tokenizer: tok, stop: 'raw' as const };
    const all = await generateBatch(model, prompts, { ...opts, seed: 3 });
    const root = resumableRng(3);
    const streams = prompts.map(() => resumableRng(String(root.next())));
    expectSame(await generateBatch(model, prompts, { ...opts, rngs: streams, batchSize: 2 }), all);
    // A stream moved on by exactly its prompt's sampled tokens.
    const again = resumableRng(3);
    const fresh = prompts.map(() => resumableRng(String(again.next())));
    all.forEach((c, i) => {
      sampledIds(c).forEach(() => fresh[i].next());
      expect(streams[i].next()).toBe(fresh[i].next());
    });
    // A prompt alone with its stream samples what it sampled among the others.
    const one = resumableRng('lone');
    const lone = await generateBatch(model, [prompts[2]], { ...opts, rngs: [one] });
    const among = await generateBatch(model, prompts, { ...opts, rngs: prompts.map((_, i) => resumableRng(i === 2 ? 'lone' : `x${i}`)) });
    expect(lone[0].ids).toEqual(among[2].ids);
    await expect(generateBatch(model, prompts, { ...opts, rngs: [resumableRng(1)] })).rejects.toThrow('generateBatch: 5 prompts need 5 rngs, got 1');
    await expect(generateBatch(model, prompts.slice(0, 1), { ...opts, rngs: [resumableRng(1)], seed: 2 })).rejects.toThrow('generateBatch: give rngs, or rng / seed, not both');
  });

  it('temperatures: each prompt sampled at its own temperature, as it would be alone at that temperature (0: greedy)', async () => {
    const opts = { maxNewTokens: 8, tokenizer: tok, stop: 'raw' as const };
    const temps = [0, 1, 0.5, 1, 0];
    const mixed = await generateBatch(model, prompts, { ...opts, temperatures: temps, rngs: prompts.map((_, i) => resumableRng(`t${i}`)), byLength: true, batchSize: 3 });
    for (const [i, t] of temps.entries()) {
      const alone = await generateBatch(model, [prompts[i]], t === 0 ? { ...opts, greedy: true } : { ...opts, temperature: t, rngs: [resumableRng(`t${i}`)] });
      expectSame([mixed[i]], alone);
    }
    // Different temperatures give different samples from the same stream (the test would pass vacuously otherwise).
    const hot = await generateBatch(model, prompts, { ...opts, temperatures: temps.map(() => 1), rngs: prompts.map((_, i) => resumableRng(`t${i}`)) });
    expect(hot.map((c) => c.ids)).not.toEqual(mixed.map((c) => c.ids));
    await expect(generateBatch(model, prompts, { ...opts, temperatures: [1] })).rejects.toThrow('generateBatch: 5 prompts need 5 temperatures, got 1');
  });

  it('greedy: batches, sorting and streaming do not change the output; onBatch and onText name input indices', async () => {
    const one = await generateBatch(model, prompts, { maxNewTokens: 6, greedy: true, tokenizer: tok, batchSize: 1 });
    const seen: number[][] = [];
    const streamed = prompts.map(() => '');
    const sorted = await generateBatch(model, prompts, {
      maxNewTokens: 6,
      greedy: true,
      tokenizer: tok,
      batchSize: 2,
      byLength: true,
      onBatch: (indices, batch) => {
        seen.push([...indices]);
        expectSame(batch, indices.map((i) => one[i]));
      },
      onText: (i, delta) => (streamed[i] += delta),
    });
    expectSame(sorted, one);
    expect(streamed).toEqual(one.map((c) => c.text));
    const byLength = prompts.map((_, i) => i).sort((a, b) => prompts[a].length - prompts[b].length);
    expect(seen).toEqual([byLength.slice(0, 2), byLength.slice(2, 4), byLength.slice(4)]);
    // Temperature 0 is greedy too, and draws nothing from a caller's stream.
    const rng = resumableRng(1);
    expectSame(await generateBatch(model, prompts, { maxNewTokens: 6, temperature: 0, tokenizer: tok, rng }), one);
    expect(rng.next()).toBe(resumableRng(1).next());
  });

  it('stop sets by name: raw ends at <|endoftext|>, chat also at <|im_end|>, fim at every FIM control token', async () => {
    const prompt = prompts[0];
    const [free] = await generateBatch(model, [prompt], { maxNewTokens: 1, greedy: true });
    const first = free.ids[0];
    const cases: [string, 'raw' | 'chat' | 'fim', boolean][] = [
      ['<|endoftext|>', 'raw', true],
      ['<|im_end|>', 'raw', false],
      ['<|im_end|>', 'chat', true],
      ['<|fim_middle|>', 'chat', false],
      ['<|fim_middle|>', 'fim', true],
      ['<|file_sep|>', 'fim', true],
    ];
    for (const [name, stop, stops] of cases) {
      const id = tok.tokenToId(name)!;
      const original = promoteToken(model, id, first); // `name` becomes the greedy first token
      try {
        const [c] = await generateBatch(model, [prompt], { maxNewTokens: 4, greedy: true, tokenizer: tok, stop });
        if (stops) expect(c).toMatchObject({ ids: [], stopId: id, finishReason: 'stop', text: '' });
        else expect(c.ids[0]).toBe(id);
        expect(c.logprobs).toHaveLength(sampledIds(c).length);
        // minNewTokens: no stop id as the first token; extra stop ids add to the named set.
        const [held] = await generateBatch(model, [prompt], { maxNewTokens: 4, greedy: true, tokenizer: tok, stop, minNewTokens: 1 });
        if (stops) expect(held.ids[0]).not.toBe(id);
        const [extra] = await generateBatch(model, [prompt], { maxNewTokens: 4, greedy: true, tokenizer: tok, stop: 'raw', stopIds: [id] });
        expect(extra).toMatchObject({ ids: [], stopId: id });
      } finally {
        model.assignWeights(original);
      }
    }
    await expect(generateBatch(model, [prompt], { maxNewTokens: 4, greedy: true, stop: 'raw' })).rejects.toThrow('need a tokenizer');
    await expect(generateBatch(model, [prompt], { maxNewTokens: 4, greedy: true, batchSize: 0 })).rejects.toThrow('batchSize must be an integer >= 1');
  });
});
