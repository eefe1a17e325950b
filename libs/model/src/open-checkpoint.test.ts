// What a model flag may name: a checkpoint or a LoRA adapter folder (an adapter on an adapter too) of the kind the
// command needs; anything else is one error naming the flag and the folder, found from config files alone. Opened, the
// model comes with the folder's tokenizer, checked to fit it.
import * as fs from 'fs';
import * as path from 'path';
import { checkpointAt, checkpointOr, openCheckpoint } from './open-checkpoint';
import { saveTinyAdapter, saveTinyModel, tempDir } from './testing/tiny-model';

let dir: string;
const at = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = tempDir('model-folder-');
  await saveTinyModel(at('lm'), { seed: 1 });
  await saveTinyModel(at('rm'), { seed: 2, kind: 'rm' });
  await saveTinyAdapter(at('sft'), at('lm'), { seed: 3 }); // CAUSAL_LM on a checkpoint
  await saveTinyAdapter(at('ppo'), at('sft'), { seed: 4 }); // CAUSAL_LM on an adapter
  await saveTinyAdapter(at('rm-lora'), at('sft'), { kind: 'rm', seed: 5 }); // SEQ_CLS on an adapter
  fs.mkdirSync(at('empty'));
  fs.writeFileSync(at('file'), 'x');
  fs.mkdirSync(at('moved'));
  for (const f of ['adapter_config.json', 'adapter_model.safetensors']) fs.copyFileSync(path.join(at('sft'), f), path.join(at('moved'), f));
  const moved = JSON.parse(fs.readFileSync(path.join(at('moved'), 'adapter_config.json'), 'utf8'));
  fs.writeFileSync(path.join(at('moved'), 'adapter_config.json'), JSON.stringify({ ...moved, base_model_name_or_path: at('gone') }));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('checkpoints and adapter folders (an adapter on an adapter too) pass for their role', () => {
  for (const name of ['lm', 'sft', 'ppo']) expect(checkpointOr(at(name), '--model')).toMatchObject({ dir: at(name), kind: 'causal-lm', isAdapter: name !== 'lm' });
  for (const name of ['rm', 'rm-lora']) expect(checkpointOr(at(name), '--reward-model', 'reward-model')).toMatchObject({ kind: 'reward-model' });
  expect(checkpointOr(at('rm'), '--model')).toEqual({ problem: 'a checkpoint of a reward model (Qwen2ForSequenceClassification), not a causal LM' });
  expect(() => checkpointAt(at('ppo'), '--model')).not.toThrow();
});

test('anything else is one error naming the flag and the folder', () => {
  const err = (name: string, role?: 'causal-lm' | 'reward-model') => () => checkpointAt(at(name), '--flag', role);
  expect(err('nope')).toThrow(`--flag: ${at('nope')}: folder not found`);
  expect(err('file')).toThrow(`--flag: ${at('file')}: not a folder`);
  expect(err('empty')).toThrow(`--flag: ${at('empty')}: neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)`);
  expect(err('moved')).toThrow(`--flag: ${at('moved')}: ${path.join(at('moved'), 'adapter_config.json')}: base_model_name_or_path ${JSON.stringify(at('gone'))} is not a checkpoint folder here`);
  expect(err('sft', 'reward-model')).toThrow(`--flag: ${at('sft')}: a LoRA adapter of a causal LM, not a reward model (task_type SEQ_CLS); train one with \`rm train\``);
  expect(err('lm', 'reward-model')).toThrow(`--flag: ${at('lm')}: a checkpoint of a causal LM, not a reward model (Qwen2ForSequenceClassification)`);
  expect(err('rm-lora')).toThrow(`--flag: ${at('rm-lora')}: a LoRA adapter of a reward model (task_type SEQ_CLS), not a causal LM`);
  expect(err('rm')).toThrow(`--flag: ${at('rm')}: a checkpoint of a reward model (Qwen2ForSequenceClassification), not a causal LM`);
});

test('openCheckpoint: the model and the tokenizer of the folder, checked once; a reward model by the kind of its Checkpoint', async () => {
  const lm = await openCheckpoint(at('sft'), { flag: '--model', trainable: false });
  expect(lm.model.lora).not.toBeNull(); // an adapter folder: its base with the adapter active
  expect(lm.tokenizer.vocabSize).toBeLessThanOrEqual(lm.model.config.vocab_size);
  expect(lm.checkpoint.where).toBe(`--model: ${at('sft')}`);
  expect(lm.checkpoint.tokenizer()).toBe(lm.tokenizer); // read once
  lm.model.dispose();
  const merged = await openCheckpoint(lm.checkpoint, { merge: true, tokenizer: false });
  expect(merged.model.lora).toBeNull();
  expect((merged as { tokenizer?: unknown }).tokenizer).toBeUndefined();
  merged.model.dispose();
  const rm = await openCheckpoint(checkpointAt(at('rm-lora'), '--reward-model', 'reward-model'), { trainable: false });
  expect(rm.model.score([[1, 2, 3]], rm.tokenizer.padId, 1)).toHaveLength(1);
  rm.model.dispose();
});

test('openCheckpoint: a folder that is no causal LM, or whose tokenizer outgrows its embedding, is one error naming the flag', async () => {
  await expect(openCheckpoint(at('rm'), { flag: '--model' })).rejects.toThrow(`--model: ${at('rm')}: a checkpoint of a reward model (Qwen2ForSequenceClassification), not a causal LM`);
  await saveTinyModel(at('small-vocab'), { seed: 6, config: { vocab_size: 1000 } });
  await expect(openCheckpoint(at('small-vocab'), { flag: '--model' })).rejects.toThrow(new RegExp(`^--model: ${at('small-vocab')}: its tokenizer has \\d+ tokens, more than the model's 1000$`));
  const { model } = await openCheckpoint(at('small-vocab'), { tokenizer: false }); // no text, no tokenizer to fit
  expect(model.config.vocab_size).toBe(1000);
  model.dispose();
});
