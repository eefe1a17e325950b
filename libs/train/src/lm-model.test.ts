// The model an LM stage starts from when --model is a LoRA adapter folder: its base with the adapter folded in, which
// then trains every weight (rank 0) or one new adapter (rank R); never the loaded adapter itself.
import * as fs from 'fs';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { loadMergedWeights, Qwen2Model } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel, tempDir } from '@rlhf-code/model/testing';
import { loadLmStageModel } from './lm-model';

let dir: string;
const settings = (loraRank: number) => ({ model: path.join(dir, 'sft'), loraRank, loraAlpha: 2 * loraRank, loraDropout: 0, loraTargets: ['q_proj', 'v_proj'] as never, recomputeLayers: false, seed: 1 });
const logits = (m: Qwen2Model) => tf.tidy(() => m.logits(tf.tensor2d([[1, 5, 9, 3]], undefined, 'int32')).dataSync() as Float32Array);
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

beforeAll(async () => {
  dir = tempDir('lm-model-');
  await saveTinyModel(path.join(dir, 'base'), { seed: 1 });
  await saveTinyAdapter(path.join(dir, 'sft'), path.join(dir, 'base'), { seed: 2 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('--model an adapter folder: the merged model trains every weight (rank 0) or a new adapter on it (rank R)', async () => {
  const merged = await Qwen2Model.load(path.join(dir, 'sft'), { merge: true, trainable: false });
  const want = logits(merged);
  const base = await Qwen2Model.load(path.join(dir, 'base'), { trainable: false });
  expect(maxDiff(logits(base), want)).toBeGreaterThan(1e-3); // the adapter matters
  const lines: string[] = [];
  const full = await loadLmStageModel(settings(0), undefined, (l) => lines.push(l));
  expect(full.lora).toBeNull();
  expect(Object.keys(full.trainableParams())).toEqual(Object.keys(merged.params));
  expect(maxDiff(logits(full), want)).toBeLessThan(1e-5);
  const lora = await loadLmStageModel(settings(2), undefined, (l) => lines.push(l));
  expect(lora.lora).toMatchObject({ r: 2, alpha: 4 });
  expect(Object.keys(lora.trainableParams())).toHaveLength(2 * 2 * merged.config.num_hidden_layers); // q and v, A and B
  expect(maxDiff(logits(lora), want)).toBeLessThan(1e-5); // a fresh adapter (B = 0) on the merged model
  expect(lines).toEqual([expect.stringMatching(/^LoRA r=2 alpha=4 on q_proj, v_proj: /)]);
  for (const m of [merged, base, full, lora]) m.dispose();
});

test('--base-dtype int8: the base frozen in int8 under a new adapter; merging folds the adapter into the original weights', async () => {
  const merged = await Qwen2Model.load(path.join(dir, 'sft'), { merge: true, trainable: false });
  const want = logits(merged);
  const low = await loadLmStageModel({ ...settings(2), baseDtype: 'int8' }, undefined, () => undefined);
  expect(low.baseDtype).toBe('int8');
  expect(Object.keys(low.trainableParams())).toHaveLength(2 * 2 * merged.config.num_hidden_layers);
  const scale = want.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  expect(maxDiff(logits(low), want) / scale).toBeLessThan(0.06); // int8's rounding (libs/model frozen-weights.test.ts)
  // A fresh adapter (B = 0) folded into the checkpoint's own weights gives them back exactly: no int8 rounding.
  const out = low.mergedWeights((await loadMergedWeights(path.join(dir, 'sft'))).weights);
  for (const [name, t] of merged.hostWeights()) expect(maxDiff(out.get(name)!.data as Float32Array, t.data as Float32Array)).toBe(0);
  for (const m of [merged, low]) m.dispose();
});
