// The decode path's one-call layers (fusedDecodeLayer) against its per-op layers (decodeSettings.fusedLayers off, the
// reference) and against the composite tfjs path, with fp32, bf16 and int8 frozen weights: the logits of a prefill and
// of every decoding step, greedy tokens and log-probs, tensor bookkeeping, and LoRA adapters (their terms inside
// the one call; op by op in training mode, where dropout draws masks).
// Tolerances: against the per-op path, the same kernels run in the same order, so the logits agree to 1e-6 (they have
// been bit-equal); against the composite path (tfjs matMul on dequantised weights, other summation orders) 1e-5 + 1e-4
// relative, as native-paths.test.ts.
import * as tf from '@tensorflow/tfjs';
import { initBackend, type WeightDtype } from '@rlhf-code/backend';
import { closeness, nativeAddonBuilt, withoutNativeKernels } from '@rlhf-code/backend/testing';
import { makeConfig } from './config';
import { decodeSettings } from './decode';
import { generate } from './generate';
import { KVCache } from './kv-cache';
import type { LoraTarget } from './lora';
import { Qwen2Model } from './model';

// Odd sizes on purpose (head dim 14, 3 query heads on 1 kv head, hidden 42, MLP 50): the products' and attention's
// tails. Rows of int8 / bf16 matrices stack only when whole int32 words: 42 * (3 + 2) * 14 and 2 * 50 * 42 are.
const CONFIG = makeConfig({
  hidden_size: 42, num_hidden_layers: 3, num_attention_heads: 3, num_key_value_heads: 1, intermediate_size: 50,
  vocab_size: 97, tie_word_embeddings: true, max_position_embeddings: 256, initializer_range: 0.2,
});
const DTYPES: WeightDtype[] = ['fp32', 'bf16', 'int8'];
const PROMPTS = [[5, 17, 3, 88, 41, 9, 60], [12, 7, 33]]; // two rows, the second left-padded

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

afterEach(() => {
  decodeSettings.fusedLayers = true;
});

/** A random model whose biases and norm weights are random too (init makes them 0 and 1, which would hide their use). */
function randomModel(baseDtype: WeightDtype): Qwen2Model {
  const model = Qwen2Model.init(CONFIG, { seed: 4, baseDtype, trainable: false });
  let seed = 100;
  for (const [name, v] of Object.entries(model.params)) {
    if (name.endsWith('.bias')) v.assign(tf.randomNormal(v.shape, 0, 0.5, 'float32', seed++));
    if (name.endsWith('norm.weight')) v.assign(tf.randomUniform(v.shape, 0.5, 1.5, 'float32', seed++));
  }
  return model;
}

/** With the one-call layers on or off. */
async function withFused<T>(on: boolean, fn: () => T | Promise<T>): Promise<T> {
  decodeSettings.fusedLayers = on;
  try {
    return await fn();
  } finally {
    decodeSettings.fusedLayers = true;
  }
}

/** Logits [B, V] of the last position after a left-padded prefill, then of each of `steps` single-token steps (fixed tokens). */
function stepLogits(model: Qwen2Model, steps: number): Float32Array[] {
  const T = Math.max(...PROMPTS.map((p) => p.length));
  const ids = PROMPTS.flatMap((p) => [...new Array(T - p.length).fill(0), ...p]);
  const mask = PROMPTS.flatMap((p) => [...new Array(T - p.length).fill(0), ...p.map(() => 1)]);
  const cache = new KVCache({ capacity: 4 }); // grows during the run
  const out: Float32Array[] = [];
  try {
    let input = { ids, mask, T };
    for (let s = 0; s <= steps; s++) {
      out.push(tf.tidy(() => {
        const hidden = model.forward(tf.tensor2d(input.ids, [2, input.T], 'int32'), { mask: tf.tensor2d(input.mask, [2, input.T]), cache });
        const last = tf.reshape(tf.slice(hidden, [0, input.T - 1, 0], [2, 1, CONFIG.hidden_size]), [2, CONFIG.hidden_size]) as tf.Tensor2D;
        return Float32Array.from(model.lmHead(last).dataSync());
      }));
      input = { ids: [(s * 31 + 7) % CONFIG.vocab_size, (s * 17 + 2) % CONFIG.vocab_size], mask: [1, 1], T: 1 };
    }
  } finally {
    cache.dispose();
  }
  return out;
}

/** The kernels a cached forward pass of `model` runs (a prefill of PROMPTS[0]). */
async function kernelsOfDecode(model: Qwen2Model): Promise<string[]> {
  const cache = new KVCache();
  try {
    const info = await tf.profile(() => {
      tf.tidy(() => {
        model.forward(tf.tensor2d([PROMPTS[0]], undefined, 'int32'), { cache });
      });
    });
    return info.kernels.map((k) => k.name);
  } finally {
    cache.dispose();
  }
}

(nativeAddonBuilt() ? describe : describe.skip).each(DTYPES)('%s base', (dtype) => {
  let model: Qwen2Model;
  beforeAll(() => {
    model = randomModel(dtype);
  });
  afterAll(() => model.dispose());

  test('every layer runs in one native call', async () => {
    const kernels = await kernelsOfDecode(model);
    expect(kernels.filter((k) => k === 'RlhfDecodeLayer')).toHaveLength(CONFIG.num_hidden_layers);
    expect(kernels).not.toContain('RlhfCachedAttention');
    const perOp = await withFused(false, () => kernelsOfDecode(model));
    expect(perOp).not.toContain('RlhfDecodeLayer');
  });

  test('logits of the prefill and of each step: as the per-op layers (1e-6) and the composite path', async () => {
    const fused = stepLogits(model, 5);
    const perOp = await withFused(false, () => stepLogits(model, 5));
    const composite = await withoutNativeKernels(() => stepLogits(model, 5));
    fused.forEach((l, s) => {
      expect(closeness(l, perOp[s], 1e-6, 1e-6)).toBeLessThanOrEqual(1);
      expect(closeness(l, composite[s], 1e-5, 1e-4)).toBeLessThanOrEqual(1);
    });
  });

  test('greedy generation: the same tokens and log-probs, and no tensor left behind', async () => {
    const run = () => generate(model, PROMPTS, { maxNewTokens: 8, greedy: true, padId: 0 });
    await run(); // builds the decode path's stacked matrices (freed with each generation's cache)
    const before = tf.memory().numTensors;
    const fused = await run();
    expect(tf.memory().numTensors).toBe(before);
    const perOp = await withFused(false, run);
    const composite = await withoutNativeKernels(run);
    expect(fused.map((g) => g.ids)).toEqual(perOp.map((g) => g.ids));
    expect(fused.map((g) => g.ids)).toEqual(composite.map((g) => g.ids));
    fused.forEach((g, b) => {
      expect(closeness(g.logprobs, perOp[b].logprobs, 1e-6, 1e-6)).toBeLessThanOrEqual(1);
      expect(closeness(g.logprobs, composite[b].logprobs, 1e-5, 1e-4)).toBeLessThanOrEqual(1);
    });
    expect(tf.memory().numTensors).toBe(before);
  });
});

(nativeAddonBuilt() ? describe : describe.skip).each([
  ['fp32', ['v_proj', 'down_proj']],
  ['int8', ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']],
  ['bf16', ['k_proj', 'o_proj', 'up_proj']],
] as [WeightDtype, LoraTarget[]][])('a LoRA adapter on a %s base (%j)', (dtype, targets) => {
  let model: Qwen2Model;
  beforeAll(() => {
    model = randomModel(dtype);
    model.addLora({ r: 2, alpha: 4, dropout: 0.1, targets }, { seed: 2 });
    let seed = 9;
    for (const v of Object.values(model.adapters)) v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', seed++));
  });
  afterAll(() => model.dispose());

  test('its layers run in one native call with its terms: as the per-op layers (1e-6) and the composite path', async () => {
    expect((await kernelsOfDecode(model)).filter((k) => k === 'RlhfDecodeLayer')).toHaveLength(CONFIG.num_hidden_layers);
    const fused = stepLogits(model, 3);
    const perOp = await withFused(false, () => stepLogits(model, 3));
    const composite = await withoutNativeKernels(() => stepLogits(model, 3));
    const base = stepLogits(model.view(null), 3);
    fused.forEach((l, s) => {
      expect(closeness(l, perOp[s], 1e-6, 1e-6)).toBeLessThanOrEqual(1);
      expect(closeness(l, composite[s], 1e-5, 1e-4)).toBeLessThanOrEqual(1);
    });
    expect(closeness(fused[0], base[0], 1e-5, 1e-4)).toBeGreaterThan(1); // the adapter changes the logits
  });

  test('in training mode (dropout draws masks) its layers run op by op', async () => {
    model.train(true);
    try {
      expect(await kernelsOfDecode(model)).not.toContain('RlhfDecodeLayer');
    } finally {
      model.train(false);
    }
    expect(await kernelsOfDecode(model)).toContain('RlhfDecodeLayer');
  });
});
