import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  HostTensor,
  readSafetensors,
  readSafetensorsHeader,
  writeSafetensors,
} from './safetensors';
import { Qwen2Config, expectedParameterShapes, parseConfig, readConfig } from './config';
import { loadCheckpointWeights, saveCheckpoint, saveTrainingState } from './checkpoint-folder';
import { loadTrainingState } from './trainer-state';

const FIXTURES = path.join(__dirname, '../../../test-fixtures');
const UNTIED = path.join(FIXTURES, 'qwen2-tiny-f32-untied');
const TIED_BF16 = path.join(FIXTURES, 'qwen2-tiny-bf16-tied');
const SHARDED = path.join(FIXTURES, 'qwen2-tiny-f32-sharded');

// Read independently with a 20-line Python reader (struct + json + numpy, BF16 as u16 << 16):
// first three values, last value and float64 sum of a few tensors, and the sum over all tensors.
type Ref = { first: number[]; last: number; sum: number };
const REFERENCE: Record<string, { total: number; tensors: Record<string, Ref> }> = {
  [UNTIED]: {
    total: 121.14890072363664,
    tensors: {
      'model.embed_tokens.weight': { first: [-0.5629199147224426, -0.576180100440979, -0.12528929114341736], last: -0.7289020419120789, sum: -121.95599257905633 },
      'model.layers.1.self_attn.k_proj.bias': { first: [0.06366457045078278, 0.11232298612594604, 0.12543492019176483], last: 0.039947979152202606, sum: 1.1363172912970185 },
      'model.layers.0.mlp.down_proj.weight': { first: [-0.023864666000008583, 0.040602073073387146, 0.09651511162519455], last: -0.11709415912628174, sum: 3.5434975980351737 },
      'lm_head.weight': { first: [-0.12174399197101593, -0.04601036012172699, -0.09115756303071976], last: -0.12385064363479614, sum: -52.35496596825851 },
    },
  },
  [TIED_BF16]: {
    total: 286.91842106031254,
    tensors: {
      'model.embed_tokens.weight': { first: [-0.76171875, -0.375, -0.326171875], last: -0.59765625, sum: -25.91136395931244 },
      'model.layers.1.self_attn.k_proj.bias': { first: [0.11083984375, 0.0849609375, 0.027099609375], last: -0.01422119140625, sum: 0.2661895751953125 },
      'model.layers.0.mlp.down_proj.weight': { first: [-0.1591796875, -0.1611328125, -0.138671875], last: -0.02587890625, sum: 4.388886585831642 },
    },
  },
  [SHARDED]: {
    total: 171.39214427527952,
    tensors: {
      'model.embed_tokens.weight': { first: [-0.5204005837440491, 0.4583020806312561, -0.6520951986312866], last: 0.25395286083221436, sum: -163.76898345580935 },
      'model.layers.1.self_attn.k_proj.bias': { first: [0.07713421434164047, 0.018505467101931572, -0.02183820866048336], last: 0.05658520385622978, sum: -1.0480728966649622 },
      'model.layers.0.mlp.down_proj.weight': { first: [0.0024812088813632727, 0.14122118055820465, -0.059202224016189575], last: -0.22241716086864471, sum: 7.746471276444481 },
      'lm_head.weight': { first: [-0.019867781549692154, -0.16469798982143402, -0.054523833096027374], last: -0.011341159231960773, sum: -21.506925730493435 },
    },
  },
};

let tmp: string;
let counter = 0;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'checkpoint-test-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const fresh = (name: string): string => path.join(tmp, `${name}-${counter++}`);

/** A writable copy of a (read-only) fixture folder. */
function copyFixture(src: string): string {
  const dst = fresh(path.basename(src));
  fs.cpSync(src, dst, { recursive: true });
  fs.chmodSync(dst, 0o755);
  for (const f of fs.readdirSync(dst)) fs.chmodSync(path.join(dst, f), 0o644);
  return dst;
}

const sum = (a: Float32Array): number => a.reduce((s, v) => s + v, 0);
const bits = (t: HostTensor): Uint32Array => new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length);
const sameBits = (a: HostTensor, b: HostTensor): boolean =>
  a.shape.join() === b.shape.join() && Buffer.compare(Buffer.from(bits(a).buffer), Buffer.from(bits(b).buffer)) === 0;

function expectSameWeights(a: Map<string, HostTensor>, b: Map<string, HostTensor>): void {
  expect([...a.keys()]).toEqual([...b.keys()]);
  for (const [name, t] of a) expect([name, sameBits(t, b.get(name)!)]).toEqual([name, true]);
}

/** The data section of a safetensors file (everything after the header). */
function dataSection(file: string): Buffer {
  const b = fs.readFileSync(file);
  return b.subarray(8 + Number(b.readBigUInt64LE(0)));
}

describe('loadCheckpointWeights', () => {
  it.each([UNTIED, TIED_BF16, SHARDED])('loads %s with the config shapes and reference values', async (dir) => {
    const cfg = readConfig(dir);
    const weights = await loadCheckpointWeights(dir, cfg);
    const shapes = expectedParameterShapes(cfg);
    expect([...weights.keys()]).toEqual([...shapes.keys()]);
    for (const [name, t] of weights) {
      expect(t.shape).toEqual(shapes.get(name));
      expect(t.data.length).toBe(shapes.get(name)!.reduce((a, b) => a * b, 1));
    }
    const ref = REFERENCE[dir];
    for (const [name, r] of Object.entries(ref.tensors)) {
      const d = weights.get(name)!.data;
      expect([...d.subarray(0, 3)]).toEqual(r.first);
      expect(d[d.length - 1]).toBe(r.last);
      expect(sum(d)).toBeCloseTo(r.sum, 9);
    }
    expect([...weights.values()].reduce((s, t) => s + sum(t.data), 0)).toBeCloseTo(ref.total, 8);
  });

  it('ties lm_head: no lm_head.weight in the map of a tied checkpoint', async () => {
    const weights = await loadCheckpointWeights(TIED_BF16, readConfig(TIED_BF16));
    expect(weights.has('lm_head.weight')).toBe(false);
    expect(weights.size).toBe(26);
  });

  it('reads a sharded checkpoint exactly like the same weights in one file', async () => {
    const cfg = readConfig(SHARDED);
    const sharded = await loadCheckpointWeights(SHARDED, cfg);
    const single = fresh('single');
    await saveCheckpoint(single, { config: cfg, weights: sharded });
    expect(fs.readdirSync(single).sort()).toEqual(['config.json', 'model.safetensors']);
    expectSameWeights(await loadCheckpointWeights(single, readConfig(single)), sharded);
  });

  it('names the tensor, its expected shape and the file when a tensor is missing', async () => {
    const cfg = readConfig(UNTIED);
    const weights = await loadCheckpointWeights(UNTIED, cfg);
    weights.delete('model.layers.1.mlp.up_proj.weight');
    const dir = fresh('missing');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(UNTIED, 'config.json'), path.join(dir, 'config.json'));
    const file = path.join(dir, 'model.safetensors');
    await writeSafetensors(file, weights);
    await expect(loadCheckpointWeights(dir, cfg)).rejects.toThrow(
      `${file}: missing tensor model.layers.1.mlp.up_proj.weight (expected shape [160, 64])`,
    );
  });

  it('names tensor, both shapes and file when a tensor does not match the config', async () => {
    const cfg = parseConfig({ ...readConfig(UNTIED), intermediate_size: 128 }, 'test');
    await expect(loadCheckpointWeights(UNTIED, cfg)).rejects.toThrow(
      `${path.join(UNTIED, 'model.safetensors')}: tensor model.layers.0.mlp.gate_proj.weight has shape [160, 64], expected [128, 64] from the config`,
    );
    // in a sharded checkpoint the shard holding the tensor is named
    const shardedCfg = parseConfig({ ...readConfig(SHARDED), vocab_size: 1000 }, 'test');
    await expect(loadCheckpointWeights(SHARDED, shardedCfg)).rejects.toThrow(
      `${path.join(SHARDED, 'model-00001-of-00003.safetensors')}: tensor model.embed_tokens.weight has shape [1024, 64], expected [1000, 64]`,
    );
  });

  it('checks the shard index against the shards', async () => {
    const dir = copyFixture(SHARDED);
    const indexFile = path.join(dir, 'model.safetensors.index.json');
    const index = JSON.parse(fs.readFileSync(indexFile, 'utf8'));
    index.weight_map['model.norm.weight'] = 'model-00001-of-00003.safetensors';
    fs.writeFileSync(indexFile, JSON.stringify(index));
    await expect(loadCheckpointWeights(dir, readConfig(dir))).rejects.toThrow(
      `${path.join(dir, 'model-00001-of-00003.safetensors')}: no tensor named model.norm.weight (listed in ${indexFile})`,
    );
    index.weight_map['model.norm.weight'] = '../elsewhere.safetensors';
    fs.writeFileSync(indexFile, JSON.stringify(index));
    await expect(loadCheckpointWeights(dir, readConfig(dir))).rejects.toThrow(
      `${indexFile}: weight_map.model.norm.weight must be a file name in the same folder, got "../elsewhere.safetensors"`,
    );
  });

  it('names the file when it is truncated, and the folder when there are no weights', async () => {
    const dir = copyFixture(UNTIED);
    const file = path.join(dir, 'model.safetensors');
    fs.truncateSync(file, fs.statSync(file).size - 100);
    await expect(loadCheckpointWeights(dir, readConfig(dir))).rejects.toThrow(
      `${file}: tensor model.norm.weight data_offsets [870400, 870656] run past the end of the data`,
    );
    fs.rmSync(file);
    await expect(loadCheckpointWeights(dir, readConfig(dir))).rejects.toThrow(
      `${dir}: no model.safetensors or model.safetensors.index.json`,
    );
    fs.writeFileSync(path.join(dir, 'pytorch_model.bin'), '');
    await expect(loadCheckpointWeights(dir, readConfig(dir))).rejects.toThrow('pytorch_model.bin is not supported');
  });

  it('returns known heads, warns about unknown tensors and checks a stored tied head', async () => {
    const cfg = readConfig(TIED_BF16);
    const weights = await loadCheckpointWeights(TIED_BF16, cfg);
    const D = cfg.hidden_size;
    const extra = new Map(weights);
    extra.set('v_head.weight', { shape: [1, D], data: new Float32Array(D).fill(0.5) });
    extra.set('v_head.bias', { shape: [1], data: Float32Array.from([0.25]) });
    extra.set('score.weight', { shape: [3, D], data: new Float32Array(3 * D) });
    extra.set('model.layers.0.self_attn.rotary_emb.inv_freq', { shape: [8], data: new Float32Array(8) });
    extra.set('lm_head.weight', weights.get('model.embed_tokens.weight')!); // equal to the embedding: accepted
    const dir = fresh('extras');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(TIED_BF16, 'config.json'), path.join(dir, 'config.json'));
    const file = path.join(dir, 'model.safetensors');
    await writeSafetensors(file, extra);

    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const loaded = await loadCheckpointWeights(dir, cfg);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe(
      `${dir}: ignoring 1 tensor(s) a Qwen2 model does not use: model.layers.0.self_attn.rotary_emb.inv_freq`,
    );
    expect([...loaded.keys()].slice(-3)).toEqual(['score.weight', 'v_head.bias', 'v_head.weight']);
    expect(loaded.has('lm_head.weight')).toBe(false);
    expect([...loaded.get('v_head.bias')!.data]).toEqual([0.25]);
    expect(loaded.get('score.weight')!.shape).toEqual([3, D]);

    const head = new Float32Array(weights.get('model.embed_tokens.weight')!.data);
    head[5] += 1;
    extra.set('lm_head.weight', { shape: [cfg.vocab_size, D], data: head });
    await writeSafetensors(file, extra);
    await expect(loadCheckpointWeights(dir, cfg)).rejects.toThrow(
      `${file}: lm_head.weight differs from model.embed_tokens.weight but the config sets tie_word_embeddings`,
    );

    extra.delete('lm_head.weight');
    extra.set('v_head.weight', { shape: [D], data: new Float32Array(D) });
    await writeSafetensors(file, extra);
    await expect(loadCheckpointWeights(dir, cfg)).rejects.toThrow(`${file}: tensor v_head.weight has shape [64], expected [1, 64]`);
    warn.mockRestore();
  });

  it('loads a Qwen2ForSequenceClassification checkpoint (score head, no lm_head)', async () => {
    const base = readConfig(UNTIED);
    const cfg = parseConfig({ ...base, architectures: ['Qwen2ForSequenceClassification'], id2label: { '0': 'LABEL_0' } }, 'rm');
    const weights = await loadCheckpointWeights(UNTIED, base);
    weights.delete('lm_head.weight');
    weights.set('score.weight', { shape: [1, 64], data: new Float32Array(64).fill(-1) });
    const dir = fresh('rm');
    await saveCheckpoint(dir, { config: cfg, weights });
    const loaded = await loadCheckpointWeights(dir, readConfig(dir));
    expect([...loaded.keys()].slice(-2)).toEqual(['model.norm.weight', 'score.weight']);
    weights.set('score.weight', { shape: [2, 64], data: new Float32Array(128) });
    await expect(saveCheckpoint(fresh('rm'), { config: cfg, weights })).rejects.toThrow(
      'tensor score.weight has shape [2, 64], expected [1, 64]',
    );
  });
});

describe('saveCheckpoint', () => {
  let cfg: Qwen2Config;
  let weights: Map<string, HostTensor>;
  beforeAll(async () => {
    cfg = readConfig(UNTIED);
    weights = await loadCheckpointWeights(UNTIED, cfg);
  });

  it('round-trips F32 bit-exactly, stores the same bytes as the fixture and keeps config fields', async () => {
    const dir = fresh('f32');
    await saveCheckpoint(dir, { config: cfg, weights });
    expectSameWeights(await loadCheckpointWeights(dir, readConfig(dir)), weights);
    expect(dataSection(path.join(dir, 'model.safetensors')).equals(dataSection(path.join(UNTIED, 'model.safetensors')))).toBe(true);
    expect((await readSafetensorsHeader(path.join(dir, 'model.safetensors'))).metadata).toEqual({ format: 'pt' });
    const written = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    expect(written).toEqual({ ...JSON.parse(fs.readFileSync(path.join(UNTIED, 'config.json'), 'utf8')), torch_dtype: 'float32' });
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('.'))).toEqual([]); // no temp siblings left
  });

  it('writes BF16 byte-identical to the torch-written fixture and records the dtype', async () => {
    const tiedCfg = readConfig(TIED_BF16);
    const tied = await loadCheckpointWeights(TIED_BF16, tiedCfg);
    const dir = fresh('bf16');
    await saveCheckpoint(dir, { config: tiedCfg, weights: tied, dtype: 'BF16' });
    const file = path.join(dir, 'model.safetensors');
    expect(dataSection(file).equals(dataSection(path.join(TIED_BF16, 'model.safetensors')))).toBe(true);
    expect((await readSafetensorsHeader(file)).tensors.get('model.norm.weight')!.dtype).toBe('BF16');
    expect(readConfig(dir).torch_dtype).toBe('bfloat16');
    const dir3 = fresh('dtype-field');
    await saveCheckpoint(dir3, { config: parseConfig({ ...tiedCfg, dtype: 'float32' }, 'x'), weights: tied, dtype: 'BF16' });
    expect(readConfig(dir3)).toMatchObject({ torch_dtype: 'bfloat16', dtype: 'bfloat16' });
    expectSameWeights(await loadCheckpointWeights(dir, readConfig(dir)), tied);

    // F32 weights saved as BF16 come back rounded: within bf16's relative precision 2^-8
    const dir2 = fresh('bf16-from-f32');
    await saveCheckpoint(dir2, { config: cfg, weights, dtype: 'BF16' });
    const back = await loadCheckpointWeights(dir2, readConfig(dir2));
    const a = weights.get('lm_head.weight')!.data;
    const b = back.get('lm_head.weight')!.data;
    expect(a.some((v, i) => v !== b[i])).toBe(true);
    expect(a.every((v, i) => Math.abs(v - b[i]) <= Math.abs(v) * 2 ** -8)).toBe(true);
  });

  it('keepFiles carries a run file over each replacement, also into a folder that is not a checkpoint yet', async () => {
    const dir = fresh('keep');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'metrics.jsonl'), '{"step":1}\n');
    await expect(saveCheckpoint(dir, { config: cfg, weights })).rejects.toThrow('not a checkpoint');
    await saveCheckpoint(dir, { config: cfg, weights, keepFiles: ['metrics.jsonl'] });
    fs.appendFileSync(path.join(dir, 'metrics.jsonl'), '{"step":2}\n');
    await saveCheckpoint(dir, { config: cfg, weights, keepFiles: ['metrics.jsonl'] });
    expect(fs.readFileSync(path.join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n{"step":2}\n');
    await expect(saveCheckpoint(dir, { config: cfg, weights, keepFiles: ['config.json'] })).rejects.toThrow('keepFiles entry "config.json"');
  });

  it('copies tokenizer files and writes extra files', async () => {
    const tok = fresh('tok');
    fs.mkdirSync(tok);
    fs.writeFileSync(path.join(tok, 'tokenizer.json'), '{"model":{}}');
    fs.writeFileSync(path.join(tok, 'tokenizer_config.json'), '{"eos_token":"<|endoftext|>"}');
    fs.writeFileSync(path.join(tok, 'merges.txt'), 'a b\n');
    fs.writeFileSync(path.join(tok, 'README.md'), 'not a tokenizer file');
    const dir = fresh('withtok');
    await saveCheckpoint(dir, {
      config: cfg,
      weights,
      tokenizerDir: tok,
      extraFiles: { 'generation_config.json': { eos_token_id: [2] }, 'NOTES.txt': 'trained by test\n' },
    });
    expect(fs.readdirSync(dir).sort()).toEqual([
      'NOTES.txt', 'config.json', 'generation_config.json', 'merges.txt', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json',
    ]);
    expect(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')).toBe('{"eos_token":"<|endoftext|>"}');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'generation_config.json'), 'utf8'))).toEqual({ eos_token_id: [2] });
    expect(fs.readFileSync(path.join(dir, 'NOTES.txt'), 'utf8')).toBe('trained by test\n');

    await expect(saveCheckpoint(fresh('x'), { config: cfg, weights, tokenizerDir: dir + '/..' })).rejects.toThrow('no tokenizer files');

    // tokenizerConfig sets fields of the copied tokenizer_config.json and keeps the others.
    const patched = fresh('patched');
    await saveCheckpoint(patched, { config: cfg, weights, tokenizerDir: tok, tokenizerConfig: { fim_mode: 'spm' } });
    expect(JSON.parse(fs.readFileSync(path.join(patched, 'tokenizer_config.json'), 'utf8'))).toEqual({ eos_token: '<|endoftext|>', fim_mode: 'spm' });
    expect(fs.readFileSync(path.join(tok, 'tokenizer_config.json'), 'utf8')).toBe('{"eos_token":"<|endoftext|>"}'); // the source is untouched
    fs.rmSync(path.join(tok, 'tokenizer_config.json'));
    const created = fresh('created');
    await saveCheckpoint(created, { config: cfg, weights, tokenizerDir: tok, tokenizerConfig: { fim_mode: 'spm' } });
    expect(JSON.parse(fs.readFileSync(path.join(created, 'tokenizer_config.json'), 'utf8'))).toEqual({ fim_mode: 'spm' });
    await expect(saveCheckpoint(fresh('y'), { config: cfg, weights, tokenizerConfig: { fim_mode: 'spm' } })).rejects.toThrow('tokenizerConfig needs a tokenizerDir');
    await expect(saveCheckpoint(fresh('x'), { config: cfg, weights, extraFiles: { 'config.json': {} } })).rejects.toThrow(
      'extraFiles.config.json would overwrite a file the checkpoint writes',
    );
    await expect(saveCheckpoint(fresh('x'), { config: cfg, weights, extraFiles: { '../escape.txt': '' } })).rejects.toThrow(
      'extraFiles key "../escape.txt" must be a plain file name',
    );
  });

  it('rejects weights that do not match the config before touching the disk', async () => {
    const dir = fresh('bad');
    const missing = new Map(weights);
    missing.delete('model.norm.weight');
    await expect(saveCheckpoint(dir, { config: cfg, weights: missing })).rejects.toThrow(
      `saveCheckpoint(${dir}): missing tensor model.norm.weight (expected shape [64])`,
    );
    const unknown = new Map(weights).set('foo.weight', { shape: [1], data: new Float32Array(1) });
    await expect(saveCheckpoint(dir, { config: cfg, weights: unknown })).rejects.toThrow('tensors a Qwen2 model does not have: foo.weight');
    const tiedCfg = parseConfig({ ...cfg, tie_word_embeddings: true }, 'x');
    await expect(saveCheckpoint(dir, { config: tiedCfg, weights })).rejects.toThrow(
      'lm_head.weight given but the config ties it to model.embed_tokens.weight',
    );
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('replaces an existing checkpoint folder fully, and keeps it when a save fails', async () => {
    const dir = copyFixture(SHARDED); // shards + index + config
    fs.writeFileSync(path.join(dir, 'optimizer.safetensors'), 'stale');
    await saveCheckpoint(dir, { config: cfg, weights });
    expect(fs.readdirSync(dir).sort()).toEqual(['config.json', 'model.safetensors']);
    expectSameWeights(await loadCheckpointWeights(dir, readConfig(dir)), weights);

    // a failure in the middle of writing (after the model file) leaves the old folder untouched
    const snapshot = () => fs.readdirSync(dir).map((f) => [f, createHash('sha256').update(fs.readFileSync(path.join(dir, f))).digest('hex')]);
    const before = snapshot();
    const bad = { toJSON: () => { throw new Error('boom'); } };
    const zeroed = new Map([...weights].map(([n, t]) => [n, { shape: t.shape, data: new Float32Array(t.data.length) }]));
    await expect(saveCheckpoint(dir, { config: cfg, weights: zeroed, extraFiles: { 'x.json': bad } })).rejects.toThrow('boom');
    expect(snapshot()).toEqual(before);
    expect(fs.readdirSync(path.dirname(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses to replace a folder that is not a checkpoint', async () => {
    const dir = fresh('notckpt');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'thesis.tex'), 'precious');
    await expect(saveCheckpoint(dir, { config: cfg, weights })).rejects.toThrow(
      `refusing to replace ${dir}: it is not empty and has no config.json`,
    );
    expect(fs.readdirSync(dir)).toEqual(['thesis.tex']);
  });
});

describe('training state', () => {
  let cfg: Qwen2Config;
  let weights: Map<string, HostTensor>;
  beforeAll(async () => {
    cfg = readConfig(UNTIED);
    weights = await loadCheckpointWeights(UNTIED, cfg);
  });

  const moments = (v: number): Map<string, HostTensor> =>
    new Map([
      ['m/model.norm.weight', { shape: [64], data: new Float32Array(64).fill(v) }],
      ['v/model.norm.weight', { shape: [64], data: Float32Array.from({ length: 64 }, (_, i) => i * 1e-7 + v) }],
    ]);

  it('saves with the checkpoint in one swap and loads back exactly', async () => {
    const dir = fresh('resume');
    const state = { step: 1200, rng: { seed: 'abc', i: 3 }, config: { lr: 3e-4 } };
    await saveCheckpoint(dir, { config: cfg, weights, trainingState: { tensors: moments(0.1), state } });
    expect(fs.readdirSync(dir).sort()).toEqual(['config.json', 'model.safetensors', 'optimizer.safetensors', 'trainer_state.json']);
    const ts = await loadTrainingState(dir);
    expect(ts.state).toEqual(state);
    expectSameWeights(ts.tensors, moments(0.1));
  });

  it('saveTrainingState replaces only the training files, linking the model files', async () => {
    const dir = fresh('resume2');
    await saveCheckpoint(dir, { config: cfg, weights, trainingState: { tensors: moments(0.1), state: { step: 1 } } });
    const modelIno = fs.statSync(path.join(dir, 'model.safetensors')).ino;
    await saveTrainingState(dir, { tensors: moments(0.2), state: { step: 2 } });
    expect(fs.statSync(path.join(dir, 'model.safetensors')).ino).toBe(modelIno); // hard link, not a copy
    const ts = await loadTrainingState(dir);
    expect(ts.state).toEqual({ step: 2 });
    expectSameWeights(ts.tensors, moments(0.2));
    expectSameWeights(await loadCheckpointWeights(dir, readConfig(dir)), weights);
    expect(fs.readdirSync(path.dirname(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('names what is missing or malformed', async () => {
    const dir = fresh('nostate');
    await saveCheckpoint(dir, { config: cfg, weights });
    await expect(loadTrainingState(dir)).rejects.toThrow(`${dir}: no training state to resume from (missing trainer_state.json)`);
    await expect(saveTrainingState(dir, { tensors: moments(0), state: [] as never })).rejects.toThrow(
      `saveTrainingState(${dir}): trainingState.state must be a JSON object`,
    );
    await saveTrainingState(dir, { tensors: moments(0), state: { step: 0 } });
    fs.writeFileSync(path.join(dir, 'trainer_state.json'), '[1]');
    await expect(loadTrainingState(dir)).rejects.toThrow(`${path.join(dir, 'trainer_state.json')}: must hold a JSON object`);
  });
});

it('readSafetensors agrees with loadCheckpointWeights on a fixture file', async () => {
  const raw = await readSafetensors(path.join(UNTIED, 'model.safetensors'));
  const loaded = await loadCheckpointWeights(UNTIED, readConfig(UNTIED));
  expect(new Set(raw.keys())).toEqual(new Set(loaded.keys()));
  for (const [name, t] of loaded) expect(sameBits(t, raw.get(name)!)).toBe(true);
});
