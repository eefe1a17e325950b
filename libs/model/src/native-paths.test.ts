// The model's native paths (training attention/RMSNorm/SwiGLU, the decode path over a preallocated KV cache)
// against its composite tfjs path on the same weights: logits at real positions, gradients of every parameter,
// cached generation, and memory. The golden-fixture tests (model.test.ts) check both against PyTorch.
import * as tf from '@tensorflow/tfjs';
import { hasNativeKernels, initBackend } from '@rlhf-code/backend';
import { closeness, nativeAddonBuilt, withoutNativeKernels } from '@rlhf-code/backend/testing';
import { makeConfig } from './config';
import { generate, type Generation } from './generate';
import { KVCache } from './kv-cache';
import { Qwen2Model } from './model';
import { resumableRng } from './sampling';
import { prefixLayout } from './shared-prefix';

// A config with sizes that are multiples of the kernels' vector width, one with rows of 150 positions, and one with odd
// sizes everywhere (head dim 14, 3 query heads on 1 kv head, hidden 42, MLP 50, 13 positions).
const CONFIGS = [
  { name: 'even sizes', T: 12, config: makeConfig({
    hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 96,
    vocab_size: 101, tie_word_embeddings: false, max_position_embeddings: 256,
  }) },
  // Rows longer than the training attention's query blocks (64): whole blocks, then a part of one.
  { name: 'long rows', T: 150, config: makeConfig({
    hidden_size: 32, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, intermediate_size: 48,
    vocab_size: 61, tie_word_embeddings: true, max_position_embeddings: 256,
  }) },
  { name: 'odd sizes', T: 13, config: makeConfig({
    hidden_size: 42, num_hidden_layers: 2, num_attention_heads: 3, num_key_value_heads: 1, intermediate_size: 50,
    vocab_size: 77, tie_word_embeddings: true, max_position_embeddings: 256,
  }) },
];

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

describe.each(CONFIGS)('$name', ({ config, T }) => {
  let model: Qwen2Model;
  // Two rows, the second left-padded by 5: ids [2, T] and mask.
  const B = 2;
  const ids = Array.from({ length: B * T }, (_, i) => (i * 37 + 11) % config.vocab_size);
  const mask = Array.from({ length: B * T }, (_, i) => (i >= T && i < T + 5 ? 0 : 1));
  beforeAll(() => {
    model = Qwen2Model.init(config, { seed: 3 });
  });

  /** The values at the real (mask 1) positions of [B, T, width] outputs. */
  function atRealPositions(values: Float32Array, width: number): Float32Array {
    return Float32Array.from(values.filter((_, i) => mask[Math.floor(i / width)] === 1));
  }

  (nativeAddonBuilt() ? describe : describe.skip)('native paths match the composite path', () => {
    test('the native kernels are in use', () => expect(hasNativeKernels()).toBe(true));

    test('logits at real positions, with left padding', async () => {
      const logits = () =>
        tf.tidy(() => Float32Array.from(model.logits(tf.tensor2d(ids, [B, T], 'int32'), { mask: tf.tensor2d(mask, [B, T]) }).dataSync()));
      const native = logits();
      const composite = await withoutNativeKernels(logits);
      expect(closeness(atRealPositions(native, config.vocab_size), atRealPositions(composite, config.vocab_size), 1e-5, 1e-4)).toBeLessThanOrEqual(1);
    });

    test('gradients of a masked loss for every parameter', async () => {
      const grads = () =>
        tf.tidy(() => {
          const { grads } = tf.variableGrads(() => {
            const logits = model.logits(tf.tensor2d(ids, [B, T], 'int32'), { mask: tf.tensor2d(mask, [B, T]) });
            const weights = tf.reshape(tf.tensor2d(mask, [B, T]), [B, T, 1]);
            return tf.sum(tf.mul(tf.sin(logits), weights)) as tf.Scalar;
          });
          // Variable names carry the model instance's prefix (qwen2_N/): keyed by the HF name.
          return Object.fromEntries(Object.entries(grads).map(([k, g]) => [k.slice(k.indexOf('/') + 1), Float32Array.from(g.dataSync())]));
        });
      const native = grads();
      const composite = await withoutNativeKernels(grads);
      expect(Object.keys(native).sort()).toEqual(Object.keys(model.params).sort());
      for (const name of Object.keys(composite)) {
        const worst = closeness(native[name], composite[name], 1e-4, 1e-3);
        if (!(worst <= 1)) throw new Error(`gradient of ${name}: scaled error ${worst}`);
      }
    });

    test('rows that share their first tokens compute them once: the same hidden states and gradients as the full pass', () => {
      // Four rows: a 9-token shared start (rows 0 and 1 left-padded by 2 and 1), own tails of 1-6 tokens, right padding.
      const head = Array.from({ length: 9 }, (_, i) => (i * 13 + 5) % config.vocab_size);
      const rows = [[2, 3], [1, 6], [0, 1], [0, 4]].map(([left, own], r) => ({ left, tokens: [...head, ...Array.from({ length: own }, (_, i) => (r * 31 + i * 7 + 3) % config.vocab_size)] }));
      const W = Math.max(...rows.map((r) => r.left + r.tokens.length)) + 1; // one column of right padding at least
      const sIds = rows.flatMap((r) => [...new Array(r.left).fill(0), ...r.tokens, ...new Array(W - r.left - r.tokens.length).fill(0)]);
      const sMask = rows.flatMap((r) => [...new Array(r.left).fill(0), ...r.tokens.map(() => 1), ...new Array(W - r.left - r.tokens.length).fill(0)]);
      const layout = prefixLayout(sIds, sMask, 4, W);
      expect(layout?.n).toBe(9); // the whole head is shared (every row keeps a token of its own after it)
      const real = (values: Float32Array, width: number) => Float32Array.from(values.filter((_, i) => sMask[Math.floor(i / width)] === 1));
      const run = (sharePrefix: boolean) =>
        tf.tidy(() => {
          const ids4 = tf.tensor2d(sIds, [4, W], 'int32');
          const mask4 = tf.tensor2d(sMask, [4, W]);
          const hidden = Float32Array.from(model.forward(ids4, { mask: mask4, sharePrefix }).dataSync());
          const { grads } = tf.variableGrads(() => tf.sum(tf.mul(tf.sin(model.logits(ids4, { mask: mask4, sharePrefix })), tf.reshape(mask4, [4, W, 1]))) as tf.Scalar);
          return { hidden, grads: Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, Float32Array.from(g.dataSync())])) };
        });
      const tensors = tf.memory().numTensors;
      for (const recompute of [false, true]) {
        model.recomputeLayers = recompute;
        const [shared, full] = [run(true), run(false)];
        expect(closeness(real(shared.hidden, config.hidden_size), real(full.hidden, config.hidden_size), 1e-5, 1e-4)).toBeLessThanOrEqual(1);
        for (const name of Object.keys(full.grads)) {
          const worst = closeness(shared.grads[name], full.grads[name], 1e-4, 1e-3);
          if (!(worst <= 1)) throw new Error(`gradient of ${name} (recompute ${recompute}): scaled error ${worst}`);
        }
      }
      model.recomputeLayers = false;
      expect(tf.memory().numTensors).toBe(tensors);
      // Too short a shared start, or one row: the full pass.
      expect(prefixLayout(sIds.map((t, i) => (i % W === 2 + 4 ? t + 1 : t)), sMask, 4, W)).toBeNull(); // row 0 differs at its 5th token
      expect(prefixLayout(sIds.slice(0, W), sMask.slice(0, W), 1, W)).toBeNull();
    });

    test('cached greedy generation: same tokens, same log-probs, logits of each step', async () => {
      const prompts = [ids.slice(0, T), ids.slice(T + 5, 2 * T)];
      const run = () => generate(model, prompts, { maxNewTokens: 8, greedy: true, padId: 0 });
      const native = await run();
      const composite = await withoutNativeKernels(run);
      expect(native.map((g) => g.ids)).toEqual(composite.map((g) => g.ids));
      native.forEach((g, b) => expect(closeness(g.logprobs, composite[b].logprobs, 1e-5, 1e-4)).toBeLessThanOrEqual(1));
    });

    test('with a LoRA adapter (on some projections), and a view of the base without it: same tokens and log-probs', async () => {
      const m = Qwen2Model.init(config, { seed: 3 });
      m.addLora({ r: 3, alpha: 6, dropout: 0, targets: ['q_proj', 'v_proj', 'o_proj', 'up_proj', 'down_proj'] }, { seed: 2 });
      let seed = 5;
      for (const v of Object.values(m.adapters)) v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', seed++));
      const prompts = [ids.slice(0, T), ids.slice(T + 5, 2 * T)];
      for (const model of [m, m.view(null)]) {
        const run = () => generate(model, prompts, { maxNewTokens: 8, greedy: true, padId: 0 });
        const native = await run();
        const composite = await withoutNativeKernels(run);
        expect(native.map((g) => g.ids)).toEqual(composite.map((g) => g.ids));
        native.forEach((g, b) => expect(closeness(g.logprobs, composite[b].logprobs, 1e-5, 1e-4)).toBeLessThanOrEqual(1));
      }
      const withAdapter = await generate(m, prompts, { maxNewTokens: 8, greedy: true, padId: 0 });
      const base = await generate(m.view(null), prompts, { maxNewTokens: 8, greedy: true, padId: 0 });
      expect(withAdapter.map((g) => g.logprobs)).not.toEqual(base.map((g) => g.logprobs));
      m.dispose();
    });

    test('finished rows leave the batch: each row samples what it samples alone, on both paths', async () => {
      // Five prompts of different lengths; a third of the vocabulary stops a row, so rows finish at different steps.
      const prompts = [3, 7, T, 5, 9].map((n, r) => ids.slice(r, r + n));
      const rngs = () => prompts.map((_, r) => resumableRng(`row${r}`));
      const opts = { maxNewTokens: 12, temperature: 1, padId: 0, stopTokenIds: Array.from({ length: Math.floor(config.vocab_size / 3) }, (_, i) => i) };
      const keepRows = jest.spyOn(KVCache.prototype, 'keepRows');
      for (const path of [(f: () => Promise<Generation[]>) => f(), withoutNativeKernels]) {
        const tensors = tf.memory().numTensors;
        const singles: Generation[] = [];
        for (const [r, p] of prompts.entries()) singles.push((await path(() => generate(model, [p], { ...opts, rngs: [rngs()[r]] })))[0]);
        keepRows.mockClear();
        const batch = await path(() => generate(model, prompts, { ...opts, rngs: rngs() }));
        expect(keepRows).toHaveBeenCalled(); // the case under test happened
        expect(new Set(batch.map((g) => g.ids.length)).size).toBeGreaterThan(1);
        expect(batch.map((g) => g.ids)).toEqual(singles.map((g) => g.ids));
        batch.forEach((g, r) => expect(closeness(g.logprobs, singles[r].logprobs, 1e-5, 1e-4)).toBeLessThanOrEqual(1));
        expect(tf.memory().numTensors).toBe(tensors);
      }
      keepRows.mockRestore();
    });

    test('a prefix every prompt shares is prefilled once: each row samples what it samples alone, on both paths', async () => {
      // A 9-token shared start, then rests of different lengths (two prompts identical, as in a GRPO group).
      const head = ids.slice(0, 9);
      const prompts = [[5], [5], ids.slice(T, T + 4), ids.slice(T + 1, T + 3)].map((rest) => [...head, ...rest]);
      const rngs = () => prompts.map((_, r) => resumableRng(`row${r}`));
      const opts = { maxNewTokens: 6, temperature: 1, padId: 0 };
      const forward = jest.spyOn(model, 'forward');
      for (const path of [(f: () => Promise<Generation[]>) => f(), withoutNativeKernels]) {
        const singles: Generation[] = [];
        for (const [r, p] of prompts.entries()) singles.push((await path(() => generate(model, [p], { ...opts, rngs: [rngs()[r]] })))[0]);
        forward.mockClear();
        const batch = await path(() => generate(model, prompts, { ...opts, rngs: rngs() }));
        // The shared part in one row, then the rests but their last token for the 3 distinct prompts (3 columns wide),
        // then every row's last prompt token (the two identical prompts are prefilled once and copied).
        expect(forward.mock.calls[0][0].shape).toEqual([1, 9]);
        expect(forward.mock.calls[1][0].shape).toEqual([3, 3]);
        expect(forward.mock.calls[2][0].shape).toEqual([4, 1]);
        expect(batch.map((g) => g.ids)).toEqual(singles.map((g) => g.ids));
        batch.forEach((g, r) => expect(closeness(g.logprobs, singles[r].logprobs, 1e-5, 1e-4)).toBeLessThanOrEqual(1));
      }
      forward.mockRestore();
    });

    test('the decode cache grows past its capacity and keeps what it held', async () => {
      const prompt = tf.tensor2d(ids.slice(0, T), [1, T], 'int32');
      const step = tf.tensor2d([7], [1, 1], 'int32');
      const last = (cache: KVCache) =>
        tf.tidy(() => {
          model.forward(prompt, { cache });
          let hidden = model.forward(step, { cache });
          hidden = model.forward(step, { cache });
          return Float32Array.from(hidden.dataSync());
        });
      const small = new KVCache({ capacity: 2 }); // grows on the prompt, then on each step
      const roomy = new KVCache({ capacity: 64 });
      expect(closeness(last(small), last(roomy), 1e-6, 1e-5)).toBeLessThanOrEqual(1);
      expect(small.length).toBe(T + 2);
      small.dispose();
      roomy.dispose();
      tf.dispose([prompt, step]);
    });

    test('no tensors leak over training steps and generations', async () => {
      const stepOnce = () =>
        tf.tidy(() => {
          const { value, grads } = tf.variableGrads(() => tf.mean(model.logits(tf.tensor2d(ids, [B, T], 'int32'))) as tf.Scalar);
          value.dataSync();
          tf.dispose(grads);
        });
      stepOnce();
      await generate(model, [ids.slice(0, 5)], { maxNewTokens: 3, greedy: true, padId: 0 }); // builds the fused weights once
      const before = tf.memory().numTensors;
      for (let i = 0; i < 3; i++) {
        stepOnce();
        await generate(model, [ids.slice(0, 5)], { maxNewTokens: 3, greedy: true, padId: 0 });
      }
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});
