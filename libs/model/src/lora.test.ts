// LoRA against its definition: a fresh adapter changes nothing, a trained one equals the merged weights W + alpha/r BA,
// only the adapters get gradients, PEFT's files round-trip, and a wrong adapter is one clear error.
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { loadMergedWeights, saveCheckpoint } from './checkpoint-folder';
import { ADAPTER_CONFIG_FILE, readAdapter, saveAdapter, type LoraConfig } from './lora';
import { Qwen2Model } from './model';
import { tempDir, tinyConfig } from './testing/tiny-model';

beforeAll(() => initBackend({ quiet: true }));

const config = tinyConfig({ vocab_size: 40, max_position_embeddings: 32, tie_word_embeddings: false, initializer_range: 0.2 });
const ids = () => tf.tensor2d([[1, 5, 9, 3, 7], [2, 2, 8, 4, 6]], undefined, 'int32');
const lora: LoraConfig = { r: 4, alpha: 8, dropout: 0, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] };

function logitsOf(m: Qwen2Model): Float32Array {
  return tf.tidy(() => m.logits(ids()).dataSync() as Float32Array);
}

/** Put random values into every B (a fresh adapter has B = 0, which would hide a wrong B A product). */
function randomizeB(m: Qwen2Model): void {
  let seed = 7;
  for (const [name, v] of Object.entries(m.adapters)) if (name.includes('lora_B')) v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', seed++));
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test('a fresh adapter leaves the outputs unchanged; a trained one equals the merged weights', () => {
  const m = Qwen2Model.init(config, { seed: 1 });
  const base = logitsOf(m);
  m.addLora(lora, { seed: 3 });
  expect(Object.keys(m.adapters)).toHaveLength(2 * 7 * config.num_hidden_layers);
  expect(Object.keys(m.adapters)[0]).toBe('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight');
  expect(maxDiff(logitsOf(m), base)).toBe(0);
  randomizeB(m);
  const adapted = logitsOf(m);
  expect(maxDiff(adapted, base)).toBeGreaterThan(1e-2);
  const merged = Qwen2Model.fromWeights(config, m.mergedWeights(), { trainable: false });
  expect(maxDiff(logitsOf(merged), adapted)).toBeLessThan(1e-4);
  merged.dispose();
  m.dispose();
});

test('only the adapters are trainable and get gradients; numTensors stays flat', () => {
  const m = Qwen2Model.init(config, { seed: 2 });
  m.addLora({ ...lora, targets: ['q_proj', 'v_proj'] }, { seed: 1 });
  randomizeB(m);
  expect(Object.values(m.params).every((v) => !v.trainable)).toBe(true);
  const trainable = m.trainableParams();
  expect(Object.keys(trainable).every((n) => /lora_[AB]/.test(n))).toBe(true);
  const before = tf.memory().numTensors;
  for (let i = 0; i < 2; i++) {
    const { value, grads } = tf.variableGrads(() => tf.tidy(() => tf.mean(tf.square(m.logits(ids())))) as tf.Scalar, Object.values(trainable));
    expect(Object.keys(grads).length).toBe(Object.keys(trainable).length);
    expect(Object.values(grads).some((g) => tf.tidy(() => tf.max(tf.abs(g)).dataSync()[0]) > 0)).toBe(true);
    value.dispose();
    tf.dispose(grads);
  }
  expect(tf.memory().numTensors).toBe(before);
  m.dispose();
});

test('dropout applies in training mode only', () => {
  const m = Qwen2Model.init(config, { seed: 4 });
  m.addLora({ ...lora, dropout: 0.5 }, { seed: 2 });
  randomizeB(m);
  const evalA = logitsOf(m);
  expect(maxDiff(logitsOf(m), evalA)).toBe(0);
  m.train(true);
  expect(maxDiff(logitsOf(m), evalA)).toBeGreaterThan(0);
  m.train(false);
  expect(maxDiff(logitsOf(m), evalA)).toBe(0);
  m.dispose();
});

test("PEFT's files round-trip onto the same base; another base, rank or target is one clear error", async () => {
  const m = Qwen2Model.init(config, { seed: 5 });
  m.addLora(lora, { seed: 9 });
  randomizeB(m);
  const dir = path.join(tempDir('lora-'), 'adapter');
  await saveAdapter(dir, m.lora!, m.adapterWeights(), 'models/tiny');
  const cfgJson = JSON.parse(fs.readFileSync(path.join(dir, ADAPTER_CONFIG_FILE), 'utf8'));
  expect(cfgJson).toMatchObject({ peft_type: 'LORA', task_type: 'CAUSAL_LM', r: 4, lora_alpha: 8, target_modules: lora.targets, base_model_name_or_path: 'models/tiny' });
  const read = await readAdapter(dir);
  const again = Qwen2Model.init(config, { seed: 5 });
  again.addLora(read.config, { weights: read.tensors, where: dir });
  expect(maxDiff(logitsOf(again), logitsOf(m))).toBe(0);

  const wider = Qwen2Model.init({ ...config, intermediate_size: 48 }, { seed: 5 });
  expect(() => wider.addLora(read.config, { weights: read.tensors, where: dir })).toThrow(
    `${dir}: base_model.model.model.layers.0.mlp.gate_proj.lora_B.weight has shape [64,4], but this base model needs [48,4] (the adapter was made for another base)`,
  );
  expect(() => Qwen2Model.init(config).addLora({ ...lora, r: 0 })).toThrow('LoRA rank must be a positive integer, got 0');
  expect(() => Qwen2Model.init(config).addLora({ ...lora, r: 2.5 })).toThrow('LoRA rank must be a positive integer, got 2.5');
  expect(() => Qwen2Model.init(config).addLora({ ...lora, targets: ['q_proj', 'qkv_proj' as never] })).toThrow('LoRA target "qkv_proj" is not a projection of a Qwen2 layer');
  fs.writeFileSync(path.join(dir, ADAPTER_CONFIG_FILE), JSON.stringify({ ...cfgJson, r: -1 }));
  await expect(readAdapter(dir)).rejects.toThrow(`${path.join(dir, ADAPTER_CONFIG_FILE)}: r: Too small`);
  [m, again, wider].forEach((x) => x.dispose());
});

test('named adapter sets on one base: none active = the base, views and switching are exact, a missing name is an error', () => {
  const m = Qwen2Model.init(config, { seed: 1 });
  const base = logitsOf(m);
  m.addLora(lora, { seed: 3 });
  randomizeB(m);
  const policy = logitsOf(m);
  m.addLora({ ...lora, r: 2, targets: ['q_proj'] }, { name: 'other', seed: 4 });
  expect(m.activeAdapter).toBe('other');
  expect(maxDiff(logitsOf(m), base)).toBe(0); // its B is still zero
  m.setAdapter('default');
  const baseView = m.view(null);
  expect(maxDiff(logitsOf(baseView), base)).toBe(0);
  baseView.dispose(); // a view frees nothing
  expect(m.activeAdapter).toBe('default');
  expect(maxDiff(logitsOf(m), policy)).toBe(0);
  expect(Object.keys(m.trainableParams()).every((n) => n.includes('lora_'))).toBe(true);
  expect(Object.keys(m.trainableParams())).toHaveLength(2 * 7 * config.num_hidden_layers); // the active set's only
  expect(() => m.setAdapter('nope')).toThrow('setAdapter: no adapter named "nope" (have: default, other)');
  expect(() => m.addLora(lora, { name: 'other' })).toThrow('already has an adapter named "other"');
  m.dispose();
});

test('an adapter on an adapter loads as the first one merged plus the second; merge folds both', async () => {
  const dir = tempDir('lora-chain-');
  const base = Qwen2Model.init(config, { seed: 6 });
  await saveCheckpoint(path.join(dir, 'base'), { config, weights: base.hostWeights() });
  base.addLora(lora, { seed: 1 });
  randomizeB(base);
  const first = logitsOf(base);
  await saveCheckpoint(path.join(dir, 'sft'), { config, weights: new Map(), adapter: { config: lora, tensors: base.adapterWeights(), baseModel: path.join(dir, 'base') } });
  // A second adapter, made for the first one's model; base_model_name_or_path relative to the adapter folder.
  const sft = await Qwen2Model.load(path.join(dir, 'sft'), { merge: true });
  expect(sft.lora).toBeNull();
  expect(maxDiff(logitsOf(sft), first)).toBeLessThan(1e-4);
  sft.addLora({ ...lora, r: 2 }, { seed: 2 });
  randomizeB(sft);
  const second = logitsOf(sft);
  await saveCheckpoint(path.join(dir, 'ppo'), { config, weights: new Map(), adapter: { config: sft.lora!, tensors: sft.adapterWeights(), baseModel: '../sft' } });
  const back = await Qwen2Model.load(path.join(dir, 'ppo'));
  expect(back.lora?.r).toBe(2);
  expect(maxDiff(logitsOf(back), second)).toBeLessThan(1e-4);
  expect(maxDiff(logitsOf(back.view(null)), first)).toBeLessThan(1e-4); // its base is the first merged
  const { weights } = await loadMergedWeights(path.join(dir, 'ppo'));
  const merged = Qwen2Model.fromWeights(config, weights);
  expect(maxDiff(logitsOf(merged), second)).toBeLessThan(1e-4);
  fs.writeFileSync(path.join(dir, 'ppo', ADAPTER_CONFIG_FILE), JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(dir, 'ppo', ADAPTER_CONFIG_FILE), 'utf8')), base_model_name_or_path: 'gone' }));
  await expect(Qwen2Model.load(path.join(dir, 'ppo'))).rejects.toThrow(`${path.join(dir, 'ppo', ADAPTER_CONFIG_FILE)}: base_model_name_or_path "gone" is not a checkpoint folder here`);
  [base, sft, back, merged].forEach((x) => x.dispose());
});
