// The sft CLI end to end (real tsx, real backend) on a tiny random Qwen2 with the shipped 16k tokenizer:
// data and model errors as one line, a short run's checkpoint folder, and --resume (after --max-steps, and
// after Ctrl-C) ending in the same weights as an uninterrupted run.
import { spawn } from 'child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isHeldOut, TokenCacheWriter, tokenizerSha256 } from '@rlhf-code/data';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { BASE_MODEL as BASE, printedConfig, REPO_ROOT as ROOT, runApp } from '@rlhf-code/cli/testing';
import { saveTinyAppModel } from '@rlhf-code/model/testing';
import { PretrainSettings, SftSettings } from '@rlhf-code/train';
import { readSafetensors, readSafetensorsHeader } from '@rlhf-code/model';

const ENV = { ...process.env, RLHF_THREADS: '1' };

const sft = (...args: string[]) => runApp('sft', args);

const ROWS = Array.from({ length: 8 }, (_, i) => ({
  prompt: `# Write a function f${i} that returns ${i}.\n`,
  response: `def f${i}():\n    return ${i}\n`,
}));
// 8 prompts, held-out fraction 0.1 -> 7 training examples; batch 2 -> 3 steps per epoch.
const SMALL = ['--batch-size', '2', '--max-len', '64', '--quiet'];

const metricLines = (out: string) =>
  readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
/** Steps of the training lines (eval lines share a step with a training line). */
const trainSteps = (out: string) => metricLines(out).filter((m) => 'loss' in m).map((m) => m.step);
const weightsOf = (out: string) => readFileSync(path.join(out, 'model.safetensors'));
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);
const stackLines = (stderr: string) => stderr.split('\n').filter((l) => /^\s+at /.test(l));

let dir: string;
let model: string;
let data: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sft-test-'));
  model = path.join(dir, 'tiny');
  await saveTinyAppModel(model, 'tiny-sft');
  data = path.join(dir, 'sft.jsonl');
  writeFileSync(data, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sft train: errors', () => {
  it('names file:line and the field of a bad data line, without a stack trace', () => {
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(ROWS[0])}\n\n${JSON.stringify({ prompt: 'def f():' })}\n`);
    const r = sft('train', '--model', model, '--data', bad, '--out', path.join(dir, 'bad-out'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sft: error: ${bad}:3: field "response": missing (expected string)\n`);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(existsSync(path.join(dir, 'bad-out'))).toBe(false);
  });

  it('names the line of a fill-in-the-middle record whose suffix is not a string', () => {
    const bad = path.join(dir, 'bad-suffix.jsonl');
    writeFileSync(bad, `${JSON.stringify(ROWS[0])}\n${JSON.stringify({ prompt: 'def f():\n', suffix: 3, response: '    pass\n' })}\n`);
    const r = sft('train', '--model', model, '--data', bad, '--out', path.join(dir, 'bad-suffix-out'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sft: error: ${bad}:2: field "suffix": expected string, received number\n`);
    expect(existsSync(path.join(dir, 'bad-suffix-out'))).toBe(false);
  });

  it('says in one line, naming the flag, that a --model folder is neither a checkpoint nor a LoRA adapter folder', () => {
    const noConfig = path.join(dir, 'tokenizer-only');
    mkdirSync(noConfig);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) writeFileSync(path.join(noConfig, f), readFileSync(path.join(BASE, f)));
    const r = sft('train', '--model', noConfig, '--data', data, '--out', path.join(dir, 'no-config-out'));
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('sft: error:'));
    expect(errors).toEqual([`sft: error: --model: ${noConfig}: neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)`]);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(existsSync(path.join(dir, 'no-config-out'))).toBe(false);

    const missing = path.join(dir, 'no-such-model');
    const r2 = sft('train', '--model', missing, '--data', data, '--out', path.join(dir, 'no-config-out'));
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(`sft: error: --model: ${missing}: folder not found\n`);
  });
});

describe('sft train: runs', () => {
  it('trains --max-steps 2 and writes a complete checkpoint folder', () => {
    const out = path.join(dir, 'two-steps');
    const r = sft('train', '--model', model, '--data', data, '--out', out, '--max-steps', '2', ...SMALL);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sft train: backend wasm; 7 training / 1 held-out examples from ${data}\n`);
    expect(lastJson(r.stdout)).toMatchObject({ stage: 'sft', out, step: 2, interrupted: false });
    expect(stackLines(r.stderr)).toEqual([]);

    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'trainer_state.json', 'metrics.jsonl']) {
      expect(existsSync(path.join(out, f))).toBe(true);
    }
    expect(readdirSync(out).filter((f) => f.includes('.tmp'))).toEqual([]); // no leftovers of the atomic save
    expect(readFileSync(path.join(out, 'tokenizer.json'), 'utf8')).toBe(readFileSync(path.join(BASE, 'tokenizer.json'), 'utf8'));
    expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(path.join(model, 'config.json'), 'utf8')));
    expect(weightsOf(out).equals(weightsOf(model))).toBe(false); // it did train
    expect(JSON.parse(readFileSync(path.join(out, 'trainer_state.json'), 'utf8')).position).toEqual({ step: 2, epoch: 0, stepInEpoch: 2 });

    expect(trainSteps(out)).toEqual([1, 2]);
    const metrics = metricLines(out);
    for (const m of metrics.filter((m) => 'loss' in m)) {
      expect(Number.isFinite(m.loss) && Number.isFinite(m.grad_norm) && m.lr > 0).toBe(true);
    }
    const evals = metrics.filter((m) => 'eval/loss' in m);
    expect(evals.map((m) => m.step)).toEqual([2]);
    expect(evals[0]['eval/loss']).toBe(lastJson(r.stdout)['eval/loss']);
  });

  it('--resume after --max-steps continues to the same weights as an uninterrupted run (constant lr)', () => {
    // --max-steps also sets the length of the warmup/cosine schedule, so only a constant learning rate
    // makes a 2-step run the first 2 steps of a 4-step one.
    const flags = ['--model', model, '--data', data, ...SMALL, '--lr', '0.01', '--min-lr', '0.01', '--warmup-steps', '0', '--weight-decay', '0.1'];
    const a = path.join(dir, 'resume-a');
    const b = path.join(dir, 'resume-b');
    expect(sft('train', ...flags, '--out', a, '--max-steps', '4').code).toBe(0);
    expect(sft('train', ...flags, '--out', b, '--max-steps', '2').code).toBe(0);
    expect(weightsOf(b).equals(weightsOf(a))).toBe(false);
    const r = sft('train', ...flags, '--out', b, '--max-steps', '4', '--resume');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sft: resuming from ${b} at step 2 (epoch 0, step 2 in it)\n`);
    expect(lastJson(r.stdout)).toMatchObject({ step: 4, interrupted: false });

    expect(weightsOf(b).equals(weightsOf(a))).toBe(true);
    expect(trainSteps(b)).toEqual([1, 2, 3, 4]);
    const losses = (out: string) => metricLines(out).filter((m) => 'loss' in m).map((m) => m.loss);
    expect(losses(b)).toEqual(losses(a));
  });

  it('Ctrl-C saves a checkpoint; --resume then ends where an uninterrupted run does (warmup + cosine)', async () => {
    const flags = ['--model', model, '--data', data, ...SMALL, '--epochs', '8', '--warmup-steps', '3', '--lr', '0.01'];
    const a = path.join(dir, 'sigint-a');
    const c = path.join(dir, 'sigint-c');
    expect(sft('train', ...flags, '--out', a).code).toBe(0);
    expect(trainSteps(a)).toHaveLength(24);

    // Interrupt once step 2 is in metrics.jsonl. Run as the nx targets run it: node itself with tsx as a loader
    // (the tsx wrapper relays a SIGINT and SIGKILLs the child unless it acknowledges within 30 ms, which a process
    // in the middle of a training step cannot do).
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/sft/src/main.ts', 'train', ...flags, '--out', c], { cwd: ROOT, env: ENV });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const metrics = path.join(c, 'metrics.jsonl');
    const timer = setInterval(() => {
      if (existsSync(metrics) && readFileSync(metrics, 'utf8').includes('"step":2,')) {
        clearInterval(timer);
        child.kill('SIGINT');
      }
    }, 20);
    const code = await exited;
    clearInterval(timer);
    expect(code).toBe(130); // interrupted is not success: `sft train && rm train` stops here
    expect(stderr).toContain('SIGINT: stopping after this step and saving a checkpoint');
    const stopped = lastJson(stdout);
    expect(stopped.interrupted).toBe(true);
    expect(stopped.step).toBeGreaterThanOrEqual(2);
    expect(stopped.step).toBeLessThan(24);
    expect(JSON.parse(readFileSync(path.join(c, 'trainer_state.json'), 'utf8')).position.step).toBe(stopped.step);

    const r = sft('train', ...flags, '--out', c, '--resume');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sft: resuming from ${c} at step ${stopped.step} `);
    expect(weightsOf(c).equals(weightsOf(a))).toBe(true);
    expect(trainSteps(c)).toEqual(trainSteps(a));
  });

  it('trains on a mix of plain and fill-in-the-middle records', () => {
    const mixed = path.join(dir, 'mixed.jsonl');
    const fimRows = ROWS.map((r, i) => (i % 2 ? { ...r, suffix: `\nprint(f${i}())\n` } : r));
    writeFileSync(mixed, fimRows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = path.join(dir, 'mixed-run');
    const r = sft('train', '--model', model, '--data', mixed, '--out', out, '--max-steps', '2', ...SMALL);
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ stage: 'sft', step: 2, interrupted: false });
    expect(Number.isFinite(lastJson(r.stdout)['eval/loss'])).toBe(true);
  });

  it('--export writes the trained weights alone in BF16, with the tokenizer and eval.json', async () => {
    const out = path.join(dir, 'export-run');
    const exp = path.join(dir, 'export-weights');
    const r = sft('train', '--model', model, '--data', data, '--out', out, '--max-steps', '2', '--export', exp, ...SMALL);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sft sft: exported ${exp} (BF16)\n`);
    expect(existsSync(path.join(exp, 'trainer_state.json'))).toBe(false); // no optimizer state
    expect(readFileSync(path.join(exp, 'tokenizer.json'), 'utf8')).toBe(readFileSync(path.join(model, 'tokenizer.json'), 'utf8'));
    expect(JSON.parse(readFileSync(path.join(exp, 'eval.json'), 'utf8'))).toEqual({ step: 2, 'eval/loss': lastJson(r.stdout)['eval/loss'] });
    expect(JSON.parse(readFileSync(path.join(exp, 'training_args.json'), 'utf8'))).toMatchObject({ stage: 'sft', export: exp, maxSteps: 2 });
    // The same weights as the F32 checkpoint in --out, rounded to BF16 (8 significant bits: relative error <= 2^-8).
    const [a, b] = await Promise.all([readSafetensors(path.join(exp, 'model.safetensors')), readSafetensors(path.join(out, 'model.safetensors'))]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    let worst = 0;
    const header = await readSafetensorsHeader(path.join(exp, 'model.safetensors'));
    expect(new Set([...header.tensors.values()].map((e) => e.dtype))).toEqual(new Set(['BF16']));
    for (const [name, t] of a) {
      t.data.forEach((v, i) => {
        const ref = b.get(name)!.data[i];
        worst = Math.max(worst, Math.abs(v - ref) / Math.max(Math.abs(ref), 1e-30));
      });
    }
    expect(worst).toBeLessThanOrEqual(2 ** -8);
    expect(worst).toBeGreaterThan(0); // it was rounded, not copied as F32
  });

  it('--resume into an empty --out says there is no checkpoint and starts from step 0', () => {
    const out = path.join(dir, 'resume-empty');
    const r = sft('train', '--model', model, '--data', data, '--out', out, '--max-steps', '1', '--resume', ...SMALL);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sft: --resume: no checkpoint (trainer_state.json) in ${out} yet, starting from step 0\n`);
    expect(r.stderr).not.toContain('resuming from');
    expect(trainSteps(out)).toEqual([1]);
  });
});

describe('sft settings', () => {
  it('--print-config: the schemas\' defaults; a --config file, then flags, override them', () => {
    expect(printedConfig('sft', ['train'])).toEqual(SftSettings.parse({}));
    expect(printedConfig('sft', ['pretrain'])).toEqual(PretrainSettings.parse({}));
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'sft-config-')), 'sft.yaml');
    writeFileSync(file, 'lr: 0.001\nepochs: 5\nschedule: linear\n');
    expect(printedConfig('sft', ['train', '--config', file, '--epochs', '2'])).toEqual(SftSettings.parse({ lr: 0.001, epochs: 2, schedule: 'linear' }));
  });

  it('a bad combination names the setting, without a stack trace', () => {
    const r = sft('pretrain', '--heads', '3', '--print-config');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sft: error: --heads: 3 must be a multiple of kvHeads (2)');
    const c = sft('train', '--min-lr', '1', '--print-config');
    expect(c.stderr).toContain('sft: error: --min-lr: must not exceed lr (0.0003)');
    expect(stackLines(r.stderr + c.stderr)).toEqual([]);
  });
});


describe('sft pretrain: --init and several corpus folders', () => {
  // Two corpus folders; file names chosen so each folder has training and held-out files (the path-hash split).
  const corpusDirs: string[] = [];
  const counts = { train: 0, test: 0 };
  beforeAll(() => {
    for (const name of ['c1', 'c2']) {
      const d = path.join(dir, name);
      mkdirSync(d);
      for (let i = 0; i < 12; i++) {
        const rel = `${name}_mod${i}.py`;
        writeFileSync(path.join(d, rel), `def f${i}(x):\n    """Return x plus ${i}."""\n    return x + ${i}\n\n\nprint(f${i}(1))\n`);
        counts[isHeldOut(rel) ? 'test' : 'train']++;
      }
      corpusDirs.push(d);
    }
  });

  it('continues from the --init weights with a fresh optimizer, reading every folder of --corpus', async () => {
    expect(counts.test).toBeGreaterThan(0);
    const out = path.join(dir, 'pretrain-init');
    const r = sft(
      'pretrain', '--init', model, '--corpus', corpusDirs.join(','), '--out', out, '--max-steps', '2', '--seq-len', '32',
      '--batch-size', '2', '--lr', '1e-9', '--warmup-steps', '0', '--save-every', '0', '--quiet',
    );
    expect(r.stderr).toContain(`corpus ${counts.train} training files, ${counts.test} held-out files`);
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ stage: 'pretrain', step: 2, interrupted: false });
    // The architecture is the --init checkpoint's (width 16), not the shape flags' defaults (256).
    const config = JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'));
    const initConfig = JSON.parse(readFileSync(path.join(model, 'config.json'), 'utf8'));
    for (const k of ['hidden_size', 'num_hidden_layers', 'intermediate_size', 'vocab_size']) expect(config[k]).toBe(initConfig[k]);
    // At lr 1e-9 the weights are still the --init ones (a random init would differ by ~0.05).
    const [a, b] = await Promise.all([readSafetensors(path.join(out, 'model.safetensors')), readSafetensors(path.join(model, 'model.safetensors'))]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    let maxDiff = 0;
    for (const [name, t] of a) t.data.forEach((v, i) => (maxDiff = Math.max(maxDiff, Math.abs(v - b.get(name)!.data[i]))));
    expect(maxDiff).toBeLessThan(1e-6);
  });

  it('--fim-mode spm is recorded in the checkpoint and its export; --init of an SPM checkpoint stays SPM', () => {
    const fimMode = (d: string) => JSON.parse(readFileSync(path.join(d, 'tokenizer_config.json'), 'utf8')).fim_mode;
    const common = ['--corpus', corpusDirs[0], '--max-steps', '1', '--seq-len', '32', '--batch-size', '2', '--save-every', '0', '--quiet', '--fim-rate', '1'];
    // A PSM copy of the tiny model (its tokenizer comes from models/base, which is SPM).
    const psm = path.join(dir, 'tiny-psm');
    cpSync(model, psm, { recursive: true });
    const { fim_mode: _drop, ...psmConfig } = JSON.parse(readFileSync(path.join(psm, 'tokenizer_config.json'), 'utf8'));
    writeFileSync(path.join(psm, 'tokenizer_config.json'), JSON.stringify(psmConfig));
    const psmRun = sft('pretrain', '--init', psm, '--out', path.join(dir, 'pretrain-psm'), ...common);
    expect(psmRun.code).toBe(0);
    expect(psmRun.stderr).toContain('FIM rate 1 (PSM order)');
    const [out, exp] = [path.join(dir, 'pretrain-spm'), path.join(dir, 'pretrain-spm-export')];
    const r = sft('pretrain', '--init', psm, '--out', out, '--export', exp, '--fim-mode', 'spm', ...common);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('FIM rate 1 (SPM order)');
    expect(fimMode(out)).toBe('spm');
    expect(fimMode(exp)).toBe('spm');
    expect(fimMode(psm)).toBeUndefined(); // --init's own folder is untouched
    // Continued pretraining from the SPM checkpoint keeps its order without the flag.
    const again = sft('pretrain', '--init', exp, '--out', path.join(dir, 'pretrain-spm-2'), ...common);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('(SPM order)');
    expect(fimMode(path.join(dir, 'pretrain-spm-2'))).toBe('spm');
    // sft train reads the order from --model and writes it on.
    const t = sft('train', '--model', exp, '--data', data, '--out', path.join(dir, 'train-spm'), '--max-steps', '1', ...SMALL);
    expect(t.code).toBe(0);
    expect(fimMode(path.join(dir, 'train-spm'))).toBe('spm');
    const bad = sft('pretrain', '--init', psm, '--out', path.join(dir, 'never'), '--fim-mode', 'mps', ...common);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("'mps' is invalid");
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });

  it('refuses an --init checkpoint whose vocabulary is not the tokenizer\'s, in one line', () => {
    const other = path.join(dir, 'other-vocab');
    mkdirSync(other);
    const config = JSON.parse(readFileSync(path.join(model, 'config.json'), 'utf8'));
    writeFileSync(path.join(other, 'config.json'), JSON.stringify({ ...config, vocab_size: 1000 }));
    const r = sft('pretrain', '--init', other, '--corpus', corpusDirs[0], '--out', path.join(dir, 'never'), '--max-steps', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`sft: error: --init ${other}: its vocab_size is 1000 but the tokenizer models/tokenizer-code16k has 16384 tokens`),
    );
    expect(stackLines(r.stderr)).toEqual([]);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });

  it('names a missing corpus folder', () => {
    const missing = path.join(dir, 'no-corpus');
    const r = sft('pretrain', '--init', model, '--corpus', `${corpusDirs[0]},${missing}`, '--out', path.join(dir, 'never'), '--max-steps', '1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Corpus folder not found: ${missing}`);
    expect(stackLines(r.stderr)).toEqual([]);
  });
});

describe('sft pretrain --cache', () => {
  it('--max-minutes saves a checkpoint and exits 0 with a line saying how to resume', () => {
    // A tiny token cache of the shipped tokenizer's ids (what prep:corpus writes).
    const cache = path.join(dir, 'token-cache');
    const tokDir = path.join(ROOT, 'models/tokenizer-code16k');
    const tok = loadTokenizer(tokDir);
    const w = new TokenCacheWriter(cache, { dtype: 'uint16', tokenizer: { dir: tokDir, sha256: tokenizerSha256(tokDir), vocab_size: tok.vocabSize } });
    for (const r of ROWS) w.add('train', tok.encode(r.prompt + r.response, { parseSpecialTokens: false }), { path: 'x.py', package: 'p' });
    w.add('heldout', tok.encode(ROWS[0].response, { parseSpecialTokens: false }), { path: 'h.py', package: 'p' });
    w.close();
    const out = path.join(dir, 'pretrain-cache');
    const tiny = ['--hidden-size', '16', '--layers', '1', '--heads', '2', '--kv-heads', '1', '--intermediate-size', '32', '--seq-len', '16', '--batch-size', '2', '--quiet'];
    const r = sft('pretrain', '--cache', cache, '--out', out, '--max-steps', '100000', '--schedule', 'wsd', '--max-minutes', '0.001', ...tiny);
    expect(r.code).toBe(0);
    const result = lastJson(r.stdout);
    expect(result).toMatchObject({ stage: 'pretrain', interrupted: false, outOfTime: true });
    expect(r.stderr).toContain(`sft pretrain: --max-minutes 0.001 spent at step ${result.step}; checkpoint saved in ${out}. Continue with the same command and --resume\n`);
    expect(JSON.parse(readFileSync(path.join(out, 'trainer_state.json'), 'utf8')).position.step).toBe(result.step);
    expect(stackLines(r.stderr)).toEqual([]);
  });
});

describe('sft init: a random checkpoint of any Qwen2 config.json', () => {
  const tiny = {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: 16384,
    max_position_embeddings: 128,
    rope_theta: 1000000.0,
    tie_word_embeddings: false,
    rms_norm_eps: 1e-6,
    initializer_range: 0.02,
    bos_token_id: 16358,
    eos_token_id: 16358,
    use_sliding_window: false,
  };

  it('writes a loadable checkpoint in the layout of a real one, the same for the same seed', async () => {
    const cfg = path.join(dir, 'tiny-config.json');
    writeFileSync(cfg, JSON.stringify(tiny));
    const [a, b] = [path.join(dir, 'init-a'), path.join(dir, 'init-b')];
    const r = sft('init', '--model-config', cfg, '--out', a, '--seed', '3', '--dtype', 'F32');
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ stage: 'init', out: a, dtype: 'F32', params: 16384 * 32 * 2 + 2 * (32 * 2 + 32 * 32 + 32 + 2 * (16 * 32 + 16) + 32 * 32 + 3 * 64 * 32) + 32 }); // untied head; per layer: norms, q, k, v, o, MLP
    expect(sft('init', '--model-config', cfg, '--out', b, '--seed', '3', '--dtype', 'F32').code).toBe(0);
    expect(readFileSync(path.join(a, 'model.safetensors')).equals(readFileSync(path.join(b, 'model.safetensors')))).toBe(true);
    expect(readdirSync(a).sort()).toEqual(['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
    expect(JSON.parse(readFileSync(path.join(a, 'config.json'), 'utf8'))).toMatchObject({ ...tiny, torch_dtype: 'float32' });
    // It runs: generate 3 tokens from it.
    const g = runApp('generate', ['run', '--model', a, '--ids', '[1, 2, 3]', '--max-new-tokens', '3', '--json']);
    expect(g.code).toBe(0);
    expect(lastJson(g.stdout).ids).toHaveLength(3);
  });

  it('a config that is not Qwen2, or a tokenizer larger than its vocabulary, is one line naming the file', () => {
    const bad = path.join(dir, 'llama-config.json');
    writeFileSync(bad, JSON.stringify({ ...tiny, model_type: 'llama' }));
    const r = sft('init', '--model-config', bad, '--out', path.join(dir, 'never'));
    expect(r.stderr).toBe(`sft: error: ${bad}: unsupported model_type "llama" (only "qwen2" is supported)\n`);
    const small = path.join(dir, 'small-vocab.json');
    writeFileSync(small, JSON.stringify({ ...tiny, vocab_size: 1000 }));
    const s = sft('init', '--model-config', small, '--out', path.join(dir, 'never'));
    expect(s.stderr).toMatch(/^sft: error: models\/tokenizer-code16k: its tokenizer has 16\d{3} tokens, more than the vocab_size 1000 of .*small-vocab.json\n$/);
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });
});

describe('sft train with LoRA', () => {
  const adapterOf = (out: string) => readFileSync(path.join(out, 'adapter_model.safetensors'));

  it("writes PEFT's adapter folder (no full weights), leaves the base untouched, resumes, and merges", () => {
    const baseBytes = weightsOf(model);
    const flags = ['--model', model, '--data', data, ...SMALL, '--lora-rank', '4', '--lora-alpha', '8', '--lora-targets', 'q_proj,v_proj,down_proj'];
    const constant = ['--lr', '0.01', '--schedule', 'constant', '--warmup-steps', '0'];
    const a = path.join(dir, 'lora-a');
    const r = sft('train', ...flags, ...constant, '--out', a, '--max-steps', '4', '--merge-export', path.join(dir, 'lora-merged'), '--export-dtype', 'F32');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/sft train: LoRA r=4 alpha=8 on q_proj, v_proj, down_proj: [\d,]+ trainable of [\d,]+ parameters/);
    expect(readdirSync(a).sort()).toEqual([
      'adapter_config.json', 'adapter_model.safetensors', 'eval.json', 'metrics.jsonl', 'optimizer.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'trainer_state.json', 'training_args.json',
    ].filter((f) => f !== 'eval.json'));
    expect(JSON.parse(readFileSync(path.join(a, 'adapter_config.json'), 'utf8'))).toMatchObject({
      peft_type: 'LORA', r: 4, lora_alpha: 8, target_modules: ['q_proj', 'v_proj', 'down_proj'], base_model_name_or_path: model,
    });
    const header = adapterOf(a);
    const names = Object.keys(JSON.parse(header.subarray(8, 8 + Number(header.readBigUInt64LE(0))).toString('utf8'))).filter((n) => n !== '__metadata__');
    expect(names.sort()).toEqual(
      ['self_attn.q_proj', 'self_attn.v_proj', 'mlp.down_proj'].flatMap((m) => ['A', 'B'].map((w) => `base_model.model.model.layers.0.${m}.lora_${w}.weight`)).sort(),
    );
    expect(weightsOf(model).equals(baseBytes)).toBe(true); // the base is never written

    // Two steps, then --resume to four: the same adapter as four straight steps.
    const b = path.join(dir, 'lora-b');
    expect(sft('train', ...flags, ...constant, '--out', b, '--max-steps', '2').code).toBe(0);
    const resumed = sft('train', ...flags, ...constant, '--out', b, '--max-steps', '4', '--resume');
    expect(resumed.stderr).toContain(`sft: resuming from ${b} at step 2`);
    expect(adapterOf(b).equals(adapterOf(a))).toBe(true);
    const wrongRank = sft('train', ...flags.map((x) => (x === '4' ? '8' : x)), '--out', b, '--max-steps', '5', '--resume');
    expect(wrongRank.stderr).toContain(`sft: error: ${b}: cannot resume: its adapter has rank 4, --lora-rank is 8 (resume with the same settings)\n`);

    // The adapter folder runs as a model (its base + the adapter), and the merged checkpoint gives the same greedy tokens.
    const gen = (m: string) => lastJson(runApp('generate', ['run', '--model', m, '--ids', '[5, 9, 2]', '--max-new-tokens', '6', '--json']).stdout).ids;
    const merged = path.join(dir, 'lora-merged');
    expect(existsSync(path.join(merged, 'model.safetensors'))).toBe(true);
    expect(gen(a)).toEqual(gen(merged));
  });

  it('LoRA settings errors are one line each', () => {
    const base = ['train', '--model', model, '--data', data, '--print-config'];
    expect(sft(...base, '--lora-rank', '1.5').stderr).toBe('sft: error: --lora-rank: Invalid input: expected int, received number\n');
    expect(sft(...base, '--lora-rank', '4', '--lora-targets', 'q_proj,qkv').stderr).toMatch(/^sft: error: --lora-targets \(item 2\): Invalid option/);
    expect(sft(...base, '--merge-export', 'x').stderr).toBe('sft: error: --merge-export: needs LoRA (--lora-rank > 0)\n');
    expect(sft(...base, '--lora-rank', '4', '--export', 'x').stderr).toBe('sft: error: --export: with LoRA, use --merge-export (the adapters merged into a full checkpoint)\n');
  });
});
