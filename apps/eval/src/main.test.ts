// The eval CLI's wiring: each command runs with the settings libs/eval declares, and bad settings are one line each;
// LoRA adapter folders evaluate, score and serve as the KL reference exactly as their merged checkpoints do.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { printedConfig, runApp } from '@rlhf-code/cli/testing';
import { EvalBaseSettings, EvalRunSettings, EvalSeedsSettings } from '@rlhf-code/eval';
import { Qwen2Model, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { saveTinyAdapter, saveTinyModel } from '@rlhf-code/model/testing';

describe('eval settings', () => {
  it('--print-config: run prints its settings with or without --models (running needs them); base takes the schema defaults', () => {
    expect(printedConfig('eval', ['run', '--models', 'sft=results/sft'])).toEqual(EvalRunSettings.parse({ models: 'sft=results/sft' }));
    expect(printedConfig('eval', ['run'])).toEqual(EvalRunSettings.parse({}));
    expect(printedConfig('eval', ['base', '--limit', '10'])).toEqual(EvalBaseSettings.parse({ limit: 10 }));
  });

  it('run: stubs on by default, dev data, candidate temperatures and dev samples from their flags', () => {
    const defaults = EvalRunSettings.parse({ models: 'a=b' });
    expect(defaults).toMatchObject({ stubs: true, temperatures: [0, 0.2, 0.4, 0.6, 0.8, 1], devSamples: 4 });
    expect(defaults.devData).toBeUndefined();
    const argv = ['run', '--models', 'a=b', '--dev-data', 'dev.jsonl', '--temperatures', '0, 0.3,1', '--dev-samples', '2', '--no-stubs'];
    expect(printedConfig('eval', argv)).toEqual({ ...defaults, devData: 'dev.jsonl', temperatures: [0, 0.3, 1], devSamples: 2, stubs: false });
  });

  it('errors name the flag, one line each', () => {
    const r = runApp('eval', ['run']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('eval: error: --models: required (give --models, or "models" in a --config file)\n');
    const s = runApp('eval', ['run', '--models', 'a=b', '--samples', '0', '--no-greedy-pass', '--print-config']);
    expect(s.stderr).toBe('eval: error: --samples: 0 with --no-greedy-pass leaves nothing to evaluate\n');
    const d = runApp('eval', ['run', '--models', 'a=b', '--dev-data', 'dev.jsonl', '--greedy', '--print-config']);
    expect(d.stderr).toBe('eval: error: --dev-data: needs sampled answers (a chosen temperature above 0 is sampled): not with --greedy or --samples 0\n');
    const t = runApp('eval', ['run', '--models', 'a=b', '--temperatures', '0.2,0,0.2', '--print-config']);
    expect(t.stderr).toBe('eval: error: --temperatures: lists a temperature twice\n');
  });

  it('seeds: --runs is a list of folders, each once; a folder that is no eval:run output is named', () => {
    expect(printedConfig('eval', ['seeds', '--runs', 'a/eval,b/eval'])).toEqual(EvalSeedsSettings.parse({ runs: ['a/eval', 'b/eval'] }));
    expect(runApp('eval', ['seeds', '--runs', 'a,b,a', '--print-config']).stderr).toBe('eval: error: --runs: lists a folder twice\n');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eval-seeds-'));
    try {
      const r = runApp('eval', ['seeds', '--runs', dir, '--out', path.join(dir, 'out')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`eval: error: --runs: ${dir}: no eval.json (give folders that eval:run --out wrote)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('base-compare: two eval base outputs paired, the table on stdout and in --out; missing flags and folders named', () => {
    expect(runApp('eval', ['base-compare', '--candidate', 'x']).stderr).toBe('eval: error: --baseline is required: the eval base output folder compared against\n');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eval-base-compare-'));
    const write = (name: string, windows: number[], exact: number[]) => {
      mkdirSync(path.join(dir, name));
      const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
      const heldout = { seq_len: 512, n_windows: windows.length, loss: mean(windows), window_losses: windows, n_windows_fim: 1, loss_fim: 5, window_losses_fim: [5] };
      const fim = { n: exact.length, max_new_tokens: 64, min_new_tokens: 1, first_line_exact: mean(exact), syntax_valid: 1, accepted_per_request: 0, per_example: { first_line_exact: exact, syntax_valid: exact.map(() => 1), accepted: exact.map(() => 0) } };
      writeFileSync(path.join(dir, name, 'base_eval.json'), JSON.stringify({ model: `models/${name}`, heldout, fim, functions: null }));
    };
    try {
      write('v1', [4, 5, 6], [0, 1, 0, 0]);
      write('v2', [3.5, 4.4, 5.6], [1, 1, 0, 1]);
      const r = runApp('eval', ['base-compare', '--baseline', path.join(dir, 'v1'), '--candidate', path.join(dir, 'v2'), '--out', path.join(dir, 'cmp')]);
      expect(r.code).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toBe('| figure | n | baseline (models/v1) | candidate (models/v2) | difference (SE) | 95% interval |');
      expect(lines[2]).toBe('| heldout.loss | 3 | 5.000 | 4.500 | -0.500 (0.058) | -0.748, -0.252 |');
      expect(lines[4]).toMatch(/^\| fim\.first_line_exact \| 4 \| 0\.250 \| 0\.750 \| \+0\.500 \(0\.289\) \| /);
      expect(readFileSync(path.join(dir, 'cmp', 'base_compare.md'), 'utf8')).toBe(r.stdout);
      expect(JSON.parse(readFileSync(path.join(dir, 'cmp', 'base_compare.json'), 'utf8')).rows).toHaveLength(5);
      const bad = runApp('eval', ['base-compare', '--baseline', path.join(dir, 'v1'), '--candidate', path.join(dir, 'none')]);
      expect(bad.stderr).toBe(`eval: error: --candidate: ${path.join(dir, 'none')} does not exist (an eval base output folder, or its base_eval.json)\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('eval run on LoRA adapter folders', () => {
  const FIXTURE = path.join(__dirname, '../../../libs/eval/src/fixtures/tiny_eval.jsonl');
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  const evalJson = (out: string) => JSON.parse(readFileSync(path.join(out, 'eval.json'), 'utf8'));
  const run = (out: string, ...args: string[]) => runApp('eval', ['run', '--data', FIXTURE, '--greedy', '--max-new-tokens', '8', '--no-stubs', '--no-chart', '--out', at(out), ...args]);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'eval-lora-'));
    await saveTinyModel(at('base'), { seed: 1 });
    await saveTinyAdapter(at('sft'), at('base'), { seed: 2 }); // what `sft train --lora-rank` writes
    await saveTinyAdapter(at('rm'), at('sft'), { kind: 'rm', seed: 3 }); // `rm train --model <sft> --lora-rank`: on an adapter
    // The same two models with their adapters merged in, as plain checkpoints.
    const lm = await Qwen2Model.load(at('sft'), { merge: true, trainable: false });
    await saveCheckpoint(at('sft-merged'), { config: lm.config, weights: lm.hostWeights(), tokenizerDir: at('base') });
    lm.dispose();
    const rm = await RewardModel.load(at('rm'), { trainable: false });
    await saveCheckpoint(at('rm-merged'), { config: rm.config, weights: rm.backbone.mergedWeights(), tokenizerDir: at('base') });
    rm.dispose();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--models, --reward-model and --sft-ref take adapter folders: the same answers, rm_score and KL as the merged checkpoints', () => {
    const a = run('a', '--models', `lora=${at('sft')},merged=${at('sft-merged')}`, '--reward-model', at('rm'), '--sft-ref', at('sft'));
    expect(a.stderr).not.toContain('error');
    expect(a.code).toBe(0);
    const b = run('b', '--models', `lora=${at('sft')}`, '--reward-model', at('rm-merged'), '--sft-ref', at('sft-merged'));
    expect(b.code).toBe(0);
    const { models } = evalJson(at('a'));
    const other = evalJson(at('b')).models;
    for (const k of ['pass_at_1', 'syntax_valid', 'mean_len', 'distinct_1']) expect(models.lora[k]).toBe(models.merged[k]);
    expect(models.lora.mean_len).toBeGreaterThan(0);
    expect(Number.isFinite(models.lora.rm_score)).toBe(true);
    expect(models.lora.rm_score).toBeCloseTo(models.merged.rm_score, 4); // the RM adapter scores both alike...
    expect(other.lora.rm_score).toBeCloseTo(models.lora.rm_score, 4); // ...and as its merged checkpoint does
    expect(models.lora.greedy_log_ratio).toBeCloseTo(0, 4); // the reference is the same model
    expect(other.lora.greedy_log_ratio).toBeCloseTo(0, 4);
    const samples = readFileSync(path.join(at('a'), 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const responses = (m: string) => samples.filter((x) => x.model === m).map((x) => x.response);
    expect(responses('lora')).toEqual(responses('merged'));
  });

  it('errors name the flag and the folder, before any model loads', () => {
    const err = (...args: string[]) => run('x', ...args).stderr;
    expect(err('--models', `sft=${at('rm')}`, '--reward-model', 'none')).toBe(
      `eval: error: --models: sft=${at('rm')}: a LoRA adapter of a reward model (task_type SEQ_CLS), not a causal LM\n`,
    );
    expect(err('--models', `sft=${at('sft')}`, '--reward-model', at('sft'))).toBe(
      `eval: error: --reward-model: ${at('sft')}: a LoRA adapter of a causal LM, not a reward model (task_type SEQ_CLS); train one with \`rm train\`; pass "none" to skip rm_score\n`,
    );
    expect(err('--models', `sft=${at('base')}`, '--reward-model', at('nope'))).toBe(`eval: error: --reward-model: ${at('nope')}: folder not found; pass "none" to skip rm_score\n`);
    expect(err('--models', `sft=${at('base')},x=${dir}`, '--reward-model', 'none')).toBe(
      `eval: error: --models: x=${dir}: neither a checkpoint folder (no config.json) nor a LoRA adapter folder (no adapter_config.json)\n`,
    );
    expect(err('--models', `sft=${at('base')}`, '--reward-model', 'none', '--sft-ref', at('rm'))).toBe(
      `eval: error: --sft-ref: "${at('rm')}" is not a model name from --models (sft), and as a folder: a LoRA adapter of a reward model (task_type SEQ_CLS), not a causal LM\n`,
    );
  });
});
