// The prefix cache (prefix-cache.ts): a prompt decoded from the KV cache of its key's earlier prompt gives the same
// logits, tokens and log-probs as a full prefill (on the native decode path and the composite one), for a prompt that
// extends the cached one (a user typing on), one that diverges mid-way, one that is a prefix of the cached tokens and
// one equal to them; weights that changed, a batch of several prompts, an abort between steps, eviction by the byte
// budget, and every cached tensor freed. Logit tolerance: 2e-4 absolute + 1e-4 relative on logits up to ~13 (this
// model's large initializer_range); a cached prefill and an uncached pass differ by ~6e-5 already (other kernels).
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { closeness, withoutNativeKernels } from '@rlhf-code/backend/testing';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { generateBatch, sampledIds, type Completion, type GenerateBatchOptions } from './generate-batch';
import { KVCache } from './kv-cache';
import { Qwen2Model } from './model';
import { PrefixCache } from './prefix-cache';
import { tinyConfig, TOKENIZER_DIR } from './testing/tiny-model';

const tok = loadTokenizer(TOKENIZER_DIR);
let model: Qwen2Model;

beforeAll(async () => {
  await initBackend({ quiet: true });
  model = Qwen2Model.init(tinyConfig(), { seed: 3, trainable: false });
});
// The model goes with the backend (jest-teardown shuts it down after this file).

const FILE = 'import os\n\n\ndef read_lines(path):\n    with open(path) as f:\n        return [line.rstrip() for line in f]\n';
const ids = (text: string) => tok.encode(text, { parseSpecialTokens: false });
/** A user typing on at the end of FILE, then editing an earlier line (the prompt diverges mid-way), then going back. */
const SESSION = [
  ids(FILE + 'def count'),
  ids(FILE + 'def count_lines(path):\n    return'),
  ids(FILE.replace('rstrip', 'strip') + 'def count_lines(path):'),
  ids(FILE.replace('rstrip', 'strip')), // a prefix of the cached prompt
  ids(FILE.replace('rstrip', 'strip')), // the same again
];

/** Logits [T, V] of every position of `prompt`, all at once (no cache). */
function fullLogits(prompt: number[]): Float32Array {
  return tf.tidy(() => Float32Array.from(model.logits(tf.tensor2d([prompt], undefined, 'int32')).dataSync()));
}

/** The same: the first `reused` positions from a cache that held `cached`, cut to them, then the rest in one pass. */
function logitsAfter(cached: number[], prompt: number[], reused: number): Float32Array {
  const cache = new KVCache({ capacity: 8 }); // grows
  try {
    tf.tidy(() => void model.forward(tf.tensor2d([cached], undefined, 'int32'), { cache }));
    cache.truncate(reused);
    expect(cache.length).toBe(reused);
    return tf.tidy(() => {
      const hidden = model.forward(tf.tensor2d([prompt.slice(reused)], undefined, 'int32'), { cache }); // [1, T - reused, D]
      return Float32Array.from(model.lmHead(tf.reshape(hidden, [prompt.length - reused, -1]) as tf.Tensor2D).dataSync());
    });
  } finally {
    cache.dispose();
  }
}

/** What a generation leaves in the cache: its prompt, then every sampled token but the last. */
const cachedAfter = (prompt: number[], c: Completion) => [...prompt, ...sampledIds(c)].slice(0, prompt.length + sampledIds(c).length - 1);
const shared = (a: number[], b: number[]) => {
  let i = 0;
  while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
  return i;
};

function expectSame(a: Completion, b: Completion): void {
  expect(a.ids).toEqual(b.ids);
  expect(a.stopId).toBe(b.stopId);
  expect(closeness(a.logprobs, b.logprobs, 1e-4, 1e-4)).toBeLessThanOrEqual(1);
  expect(closeness(a.modelLogprobs!, b.modelLogprobs!, 1e-4, 1e-4)).toBeLessThanOrEqual(1);
}

const OPTS: GenerateBatchOptions = { maxNewTokens: 6, temperature: 1, modelLogprobs: true, tokenizer: tok, stop: 'raw', prefillChunk: 16 };

const PATHS: [string, (fn: () => Promise<void>) => Promise<void>][] = [
  ['native decode path', (fn) => fn()],
  ['composite path', (fn) => withoutNativeKernels(fn)],
];

describe.each(PATHS)('%s', (_, path) => {
  test('logits of a prompt decoded from a cut cache equal those of a full pass', () =>
    path(async () => {
      const [a, b] = [SESSION[1], SESSION[2]];
      const n = shared(a, b);
      expect(n).toBeGreaterThan(4);
      expect(n).toBeLessThan(b.length - 4); // diverges mid-way
      const full = fullLogits(b);
      const V = model.config.vocab_size;
      for (const reused of [1, n]) {
        const cut = logitsAfter(a, b, reused);
        expect(closeness(cut, full.subarray(reused * V), 2e-4, 1e-4)).toBeLessThanOrEqual(1);
      }
    }));

  test('a typing session: the same tokens and log-probs as full prefills, each prompt reusing what it shares', () =>
    path(async () => {
      const before = tf.memory().numTensors;
      const cache = new PrefixCache({ maxBytes: 1 << 24 });
      let previous: number[] | null = null;
      for (const [i, prompt] of SESSION.entries()) {
        const [plain] = await generateBatch(model, [prompt], { ...OPTS, seed: i });
        const [cached] = await generateBatch(model, [prompt], { ...OPTS, seed: i, prefixCache: { cache, keys: ['file.py'] } });
        expectSame(cached, plain);
        expect(plain.cachedTokens).toBeUndefined();
        expect(cached.cachedTokens).toBe(previous === null ? 0 : Math.min(shared(previous, prompt), prompt.length - 1));
        previous = cachedAfter(prompt, cached);
      }
      expect(cache.size).toBe(1);
      cache.dispose();
      expect(tf.memory().numTensors).toBe(before);
    }));
});

test('greedy: the same tokens; a batch of several prompts decodes as without the cache and leaves it alone', async () => {
  const cache = new PrefixCache({ maxBytes: 1 << 24 });
  const greedy = { ...OPTS, greedy: true };
  try {
    await generateBatch(model, [SESSION[0]], { ...greedy, prefixCache: { cache, keys: ['a'] } });
    const [one] = await generateBatch(model, [SESSION[1]], { ...greedy, prefixCache: { cache, keys: ['a'] } });
    expect(one.cachedTokens).toBeGreaterThan(0);
    expectSame(one, (await generateBatch(model, [SESSION[1]], greedy))[0]);
    const bytes = cache.bytes;
    const batch = await generateBatch(model, SESSION.slice(0, 2), { ...OPTS, seed: 4, prefixCache: { cache, keys: ['a', 'b'] } });
    const plain = await generateBatch(model, SESSION.slice(0, 2), { ...OPTS, seed: 4 });
    batch.forEach((c, i) => expectSame(c, plain[i]));
    expect(batch.every((c) => c.cachedTokens === undefined)).toBe(true);
    expect([cache.size, cache.bytes]).toEqual([1, bytes]);
    // batchSize 1: each prompt is a batch of its own, and uses its key's entry
    const single = await generateBatch(model, SESSION.slice(1, 3), { ...OPTS, seed: 4, batchSize: 1, prefixCache: { cache, keys: ['a', 'b'] } });
    expect(single.map((c) => c.cachedTokens)).toEqual([SESSION[1].length - 1, 0]);
    expect(cache.size).toBe(2);
  } finally {
    cache.dispose();
  }
});

test('new weights (a published policy, a training step) drop the entry', async () => {
  const own = Qwen2Model.init(tinyConfig(), { seed: 5, trainable: false });
  const cache = new PrefixCache({ maxBytes: 1 << 24 });
  const run = (i: number) => generateBatch(own, [SESSION[i]], { ...OPTS, seed: i, prefixCache: { cache, keys: ['f'] } });
  try {
    await run(0);
    expect((await run(1))[0].cachedTokens).toBeGreaterThan(0);
    const w = own.params['model.norm.weight'];
    const same = tf.mul(w, 1); // the same values in a new tensor
    w.assign(same);
    same.dispose();
    expect((await run(1))[0].cachedTokens).toBe(0);
  } finally {
    cache.dispose();
    own.dispose();
  }
});

test('an abort between decoding steps keeps what was computed for the next prompt', async () => {
  const cache = new PrefixCache({ maxBytes: 1 << 24 });
  let steps = 0;
  const beforeStep = () => {
    if (++steps === 6) throw new Error('client went away'); // after the prefill's pieces and a few decoding steps
  };
  try {
    await expect(generateBatch(model, [SESSION[1]], { ...OPTS, maxNewTokens: 8, minNewTokens: 8, beforeStep, prefixCache: { cache, keys: ['f'] } })).rejects.toThrow('client went away');
    const [next] = await generateBatch(model, [SESSION[1]], { ...OPTS, prefixCache: { cache, keys: ['f'] } });
    expect(next.cachedTokens).toBe(SESSION[1].length - 1);
  } finally {
    cache.dispose();
  }
});

test('eviction: the least recently used entries go when the budget is exceeded, their tensors freed', async () => {
  const probe = new PrefixCache({ maxBytes: 1 << 24 });
  await generateBatch(model, [SESSION[0]], { ...OPTS, prefixCache: { cache: probe, keys: ['x'] } });
  const one = probe.bytes; // one entry's bytes
  probe.dispose();

  const before = tf.memory().numTensors;
  const cache = new PrefixCache({ maxBytes: Math.floor(2.5 * one) });
  const run = async (key: string, i = 0) => (await generateBatch(model, [SESSION[i]], { ...OPTS, prefixCache: { cache, keys: [key] } }))[0];
  await run('a');
  await run('b');
  await run('c');
  expect(cache.size).toBe(2); // 'a' evicted
  const withTwo = tf.memory().numTensors;
  expect((await run('a')).cachedTokens).toBe(0); // 'b' evicted now
  expect((await run('c')).cachedTokens).toBe(SESSION[0].length - 1);
  expect((await run('b')).cachedTokens).toBe(0);
  expect(tf.memory().numTensors).toBe(withTwo);
  cache.dispose();
  expect(tf.memory().numTensors).toBe(before);

  const none = new PrefixCache({ maxBytes: 0 });
  await generateBatch(model, [SESSION[0]], { ...OPTS, prefixCache: { cache: none, keys: ['a'] } });
  expect(none.size).toBe(0);
  none.dispose();
  expect(tf.memory().numTensors).toBe(before);
});
