import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { saveTinyAdapter, saveTinyModel } from '@rlhf-code/model/testing';
import { checkModelDirs, parseModelsFlag, resolveKlReference } from './models-flag';

describe('parseModelsFlag', () => {
  it('reads name=DIR pairs in order, trimming spaces', () => {
    expect(parseModelsFlag('base=models/base, sft=results/sft,ppo=/abs/p=q')).toEqual([
      { name: 'base', dir: 'models/base' },
      { name: 'sft', dir: 'results/sft' },
      { name: 'ppo', dir: '/abs/p=q' }, // only the first "=" separates
    ]);
  });

  it('rejects bad syntax with a message naming the flag and the entry', () => {
    expect(() => parseModelsFlag('')).toThrow('--models: expected name=DIR[,name=DIR...], got nothing');
    expect(() => parseModelsFlag('models/base')).toThrow('--models: "models/base" is not name=DIR');
    expect(() => parseModelsFlag('base=a,,sft=b')).toThrow('--models: empty entry in "base=a,,sft=b"');
    expect(() => parseModelsFlag('base=')).toThrow('--models: "base=" has no folder after "="');
    expect(() => parseModelsFlag('my model=x')).toThrow('--models: model name "my model" in "my model=x" must be letters');
    expect(() => parseModelsFlag('a=x,a=y')).toThrow('--models: model name "a" is given twice');
  });
});

describe('folders', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-flags-'));
    await saveTinyModel(path.join(tmp, 'ok'), { seed: 1 });
    await saveTinyAdapter(path.join(tmp, 'lora'), path.join(tmp, 'ok'), { seed: 2 });
    await saveTinyAdapter(path.join(tmp, 'rm-lora'), path.join(tmp, 'ok'), { kind: 'rm', seed: 3 });
    fs.mkdirSync(path.join(tmp, 'empty'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('checkModelDirs takes checkpoints and LoRA adapter folders, and lists every other folder', () => {
    const ok = path.join(tmp, 'ok');
    const checked = checkModelDirs([{ name: 'a', dir: ok }, { name: 'l', dir: path.join(tmp, 'lora') }]);
    expect(checked.map((m) => m.checkpoint)).toMatchObject([{ dir: ok, flag: '--models a', isAdapter: false }, { flag: '--models l', isAdapter: true }]); // checked once: the evaluation opens these
    const run = () =>
      checkModelDirs([
        { name: 'a', dir: ok },
        { name: 'b', dir: path.join(tmp, 'nope') },
        { name: 'c', dir: path.join(tmp, 'empty') },
        { name: 'r', dir: path.join(tmp, 'rm-lora') },
      ]);
    expect(run).toThrow(
      `--models: b=${path.join(tmp, 'nope')}: folder not found\n` +
        `--models: c=${path.join(tmp, 'empty')}: neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)\n` +
        `--models: r=${path.join(tmp, 'rm-lora')}: a LoRA adapter of a reward model (task_type SEQ_CLS), not a causal LM`,
    );
  });

  it('resolveKlReference: default "sft", a name, a folder, none, or an error', () => {
    const models = [{ name: 'base', dir: 'B' }, { name: 'sft', dir: 'S' }];
    expect(resolveKlReference(models, undefined)).toEqual({ dir: 'S', name: 'sft' });
    expect(resolveKlReference([models[0]], undefined)).toBeNull();
    expect(resolveKlReference(models, 'base')).toEqual({ dir: 'B', name: 'base' });
    expect(resolveKlReference(models, 'none')).toBeNull();
    const ok = path.join(tmp, 'ok');
    expect(resolveKlReference(models, ok)).toMatchObject({ dir: ok, name: null, checkpoint: { dir: ok, flag: '--sft-ref' } });
    const lora = path.join(tmp, 'lora');
    expect(resolveKlReference(models, lora)).toMatchObject({ dir: lora, name: null, checkpoint: { dir: lora, isAdapter: true } });
    expect(() => resolveKlReference(models, 'xyz')).toThrow('--sft-ref: "xyz" is not a model name from --models (base, sft), and as a folder: folder not found');
  });
});
