import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
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
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-flags-'));
    fs.mkdirSync(path.join(tmp, 'ok'));
    fs.writeFileSync(path.join(tmp, 'ok', 'config.json'), '{}');
    fs.mkdirSync(path.join(tmp, 'empty'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('checkModelDirs lists every missing or non-checkpoint folder', () => {
    const ok = path.join(tmp, 'ok');
    expect(() => checkModelDirs([{ name: 'a', dir: ok }])).not.toThrow();
    const run = () => checkModelDirs([{ name: 'a', dir: ok }, { name: 'b', dir: path.join(tmp, 'nope') }, { name: 'c', dir: path.join(tmp, 'empty') }]);
    expect(run).toThrow(`--models: b=${path.join(tmp, 'nope')}: folder not found\n--models: c=${path.join(tmp, 'empty')}: no config.json`);
  });

  it('resolveKlReference: default "sft", a name, a folder, none, or an error', () => {
    const models = [{ name: 'base', dir: 'B' }, { name: 'sft', dir: 'S' }];
    expect(resolveKlReference(models, undefined)).toEqual({ dir: 'S', name: 'sft' });
    expect(resolveKlReference([models[0]], undefined)).toBeNull();
    expect(resolveKlReference(models, 'base')).toEqual({ dir: 'B', name: 'base' });
    expect(resolveKlReference(models, 'none')).toBeNull();
    const ok = path.join(tmp, 'ok');
    expect(resolveKlReference(models, ok)).toEqual({ dir: ok, name: null });
    expect(() => resolveKlReference(models, 'xyz')).toThrow('--sft-ref: "xyz" is neither a model name from --models (base, sft) nor a checkpoint folder');
  });
});
