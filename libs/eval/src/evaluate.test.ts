// The whole evaluation on 3 tiny problems with tiny random checkpoints, the real sandbox and a reward model.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { RewardModel } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { encodePair, loadTokenizer } from '@rlhf-code/tokenizer';
import { readEvalProblems } from './data';
import { evaluate, EvalResult } from './evaluate';
import { sandboxExecutor } from './executor';
import { METRIC_KEYS } from './metrics';
import { saveTinyModel, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { formatMarkdown } from './report';
import { writeEvalOutputs } from './write';

let tmp: string;
let result: EvalResult;
let tensorsBefore = 0;
let tensorsAfter = 0;
const dirs = { base: '', sft: '', rm: '' };
const decoding = { maxNewTokens: 12, batchSize: 2, samples: 2, greedy: true, temperature: 0.7, seed: 0, template: 'raw' as const };

beforeAll(async () => {
  await initBackend({ quiet: true });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-int-'));
  dirs.base = path.join(tmp, 'base');
  dirs.sft = path.join(tmp, 'sft');
  dirs.rm = path.join(tmp, 'rm');
  await saveTinyModel(dirs.base, { seed: 1 });
  await saveTinyModel(dirs.sft, { seed: 2 });
  await saveTinyModel(dirs.rm, { seed: 2, kind: 'rm' });
  const problems = await readEvalProblems(path.join(__dirname, 'fixtures/tiny_eval.jsonl'));
  tensorsBefore = tf.memory().numTensors;
  result = await evaluate({
    ...decoding,
    // "ppo" is the SFT checkpoint itself, so its KL to SFT must be 0.
    models: [{ name: 'base', dir: dirs.base }, { name: 'sft', dir: dirs.sft }, { name: 'ppo', dir: dirs.sft }],
    problems,
    rewardModelDir: dirs.rm,
    klReference: { dir: dirs.sft, name: 'sft' },
    executor: sandboxExecutor({ concurrency: 2 }),
  });
  tensorsAfter = tf.memory().numTensors;
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('evaluate', () => {
  it('eval.json has exactly the agreed shape, with rates in 0..1 and an SE for each', () => {
    const { report } = result;
    expect(Object.keys(report)).toEqual(['n_problems', 'samples_per_problem', 'temperature', 'models']);
    expect(report).toMatchObject({ n_problems: 3, samples_per_problem: 2, temperature: 0.7 });
    expect(Object.keys(report.models)).toEqual(['base', 'sft', 'ppo']);
    for (const [name, m] of Object.entries(report.models)) {
      const extra = name === 'sft' ? ['se', 'greedy'] : ['se', 'vs_sft', 'greedy'];
      expect(Object.keys(m).sort()).toEqual([...METRIC_KEYS, ...extra].sort());
      expect(Object.keys(m.se).sort()).toEqual([...METRIC_KEYS].sort());
      for (const k of ['syntax_valid', 'pass_at_1', 'exec_score', 'defines_called_function', 'distinct_1', 'distinct_2'] as const) {
        expect(m[k]).toBeGreaterThanOrEqual(0);
        expect(m[k]).toBeLessThanOrEqual(1);
        expect(m.se[k]).toBeGreaterThanOrEqual(0);
      }
      expect(m.mean_len).toBeGreaterThan(0);
      expect(m.mean_len).toBeLessThanOrEqual(decoding.maxNewTokens);
      expect(Number.isFinite(m.rm_score)).toBe(true);
      expect(Object.keys(m.greedy!).sort()).toEqual([...METRIC_KEYS.filter((k) => k !== 'kl_to_sft'), 'greedy_log_ratio'].sort());
    }
  });

  it('KL: null for the reference itself, 0 for an identical model, non-zero for another model; paired diffs', () => {
    const { models } = result.report;
    expect(models.sft.kl_to_sft).toBeNull();
    expect(models.ppo.kl_to_sft).toBeCloseTo(0, 4);
    expect(Math.abs(models.base.kl_to_sft!)).toBeGreaterThan(0.1);
    // Same weights, same seed: identical samples, so every paired difference is 0 with SE 0.
    for (const d of Object.values(models.ppo.vs_sft!)) {
      if (d === null) continue;
      expect(d.diff).toBeCloseTo(0, 4);
      expect(d.se ?? 0).toBeCloseTo(0, 4);
    }
    expect(models.base.vs_sft!.exec_score!.diff).toBeCloseTo(models.base.exec_score - models.sft.exec_score, 10);
    expect(models.ppo.greedy!.greedy_log_ratio).toBeCloseTo(0, 4);
  });

  it('samples agree with the metrics, and rm_score is the reward model score of encodePair(prompt, response)', async () => {
    const { samples, report } = result;
    expect(samples).toHaveLength(3 * (3 * 2 + 3));
    for (const name of ['base', 'sft', 'ppo']) {
      const sampled = samples.filter((s) => s.model === name && s.decoding === 'sampled');
      expect(sampled.map((s) => [s.task_id, s.sample])).toEqual([[1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]]);
      expect(report.models[name].pass_at_1).toBeCloseTo(sampled.filter((s) => s.passed).length / 6, 12);
      expect(report.models[name].syntax_valid).toBeCloseTo(sampled.filter((s) => s.syntax_ok).length / 6, 12);
      expect(report.models[name].exec_score).toBeCloseTo(sampled.reduce((a, s) => a + s.exec_score, 0) / 6, 12);
      expect(report.models[name].rm_score).toBeCloseTo(sampled.reduce((a, s) => a + s.rm_score!, 0) / 6, 5);
      const greedy = samples.filter((s) => s.model === name && s.decoding === 'greedy');
      expect(greedy.map((s) => s.task_id)).toEqual([1, 2, 3]);
      expect(report.models[name].greedy!.pass_at_1).toBeCloseTo(greedy.filter((s) => s.passed).length / 3, 12);
      for (const s of [...sampled, ...greedy]) {
        expect(s.exec_score).toBeGreaterThanOrEqual(0);
        expect(s.exec_score).toBeLessThanOrEqual(1);
      }
    }
    const tok = loadTokenizer(TOKENIZER_DIR);
    const rm = await RewardModel.load(dirs.rm);
    const problems = await readEvalProblems(path.join(__dirname, 'fixtures/tiny_eval.jsonl'));
    const s = samples[2]; // base, problem 2, sample 0
    const [expected] = rm.score([encodePair(tok, problems[1].prompt, s.response).ids], tok.padId);
    expect(s.rm_score).toBeCloseTo(expected, 4);
    rm.dispose();
  });

  it('writes eval.json, eval.md and samples.jsonl', async () => {
    const out = path.join(tmp, 'out');
    const settings = { data: 'fixture', decoding: 'greedy', maxNewTokens: 12, rewardModel: dirs.rm, klReference: dirs.sft };
    await writeEvalOutputs(out, result, settings, null);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'eval.json'), 'utf8'))).toEqual(result.report);
    expect(fs.readFileSync(path.join(out, 'eval.md'), 'utf8')).toContain('| ppo ');
    const lines = fs.readFileSync(path.join(out, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(result.samples);
    expect(Object.keys(lines[0])).toEqual(['model', 'task_id', 'decoding', 'sample', 'response', 'passed', 'syntax_ok', 'exec_score', 'rm_score']);
    expect(fs.existsSync(path.join(out, 'eval.svg'))).toBe(false);
  });

  it('greedy only: the greedy log-ratio is reported as greedy_log_ratio, never as kl_to_sft', async () => {
    const problems = await readEvalProblems(path.join(__dirname, 'fixtures/tiny_eval.jsonl'));
    const greedy = await evaluate({
      ...decoding,
      samples: 0,
      models: [{ name: 'sft', dir: dirs.sft }, { name: 'base', dir: dirs.base }],
      problems,
      rewardModelDir: null,
      klReference: { dir: dirs.sft, name: 'sft' },
      executor: sandboxExecutor({ concurrency: 2 }),
    });
    const base = greedy.report.models.base;
    expect(base.kl_to_sft).toBeNull();
    expect(base.se.kl_to_sft).toBeNull();
    // the same greedy answers as the greedy pass of the sampled run, so the same log-ratio
    expect(base.greedy_log_ratio).toBeCloseTo(result.report.models.base.greedy!.greedy_log_ratio!, 4);
    const md = formatMarkdown(greedy.report, { data: 'fixture', decoding: 'greedy', maxNewTokens: 12, rewardModel: null, klReference: dirs.sft, chart: null });
    expect(md).toContain('| log_ratio |');
    expect(md).not.toContain('kl_to_sft |');
  });

  it('leaves no tensor behind (every model disposed, every step tidied)', () => {
    expect(tensorsAfter).toBe(tensorsBefore);
  });

  it('timings are reported per model', () => {
    expect(result.timings.map((t) => t.model)).toEqual(['base', 'sft', 'ppo']);
    for (const t of result.timings) expect(t.generateSeconds).toBeGreaterThan(0);
  });
});
