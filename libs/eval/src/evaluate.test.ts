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
import { saveTinyModel, saveTinyRewardModel, TOKENIZER_DIR } from './testing/tiny-model';
import { writeEvalOutputs } from './write';

let tmp: string;
let result: EvalResult;
let tensorsBefore = 0;
let tensorsAfter = 0;
const dirs = { base: '', sft: '', rm: '' };
const decoding = { maxNewTokens: 12, batchSize: 2, greedy: true, temperature: 1, seed: 0, template: 'raw' as const };

beforeAll(async () => {
  await initBackend({ quiet: true });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-int-'));
  dirs.base = path.join(tmp, 'base');
  dirs.sft = path.join(tmp, 'sft');
  dirs.rm = path.join(tmp, 'rm');
  (await saveTinyModel(dirs.base, 1)).dispose();
  (await saveTinyModel(dirs.sft, 2)).dispose();
  await saveTinyRewardModel(dirs.sft, dirs.rm);
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
  it('eval.json has exactly the agreed shape, with rates in 0..1', () => {
    const { report } = result;
    expect(Object.keys(report)).toEqual(['n_problems', 'models']);
    expect(report.n_problems).toBe(3);
    expect(Object.keys(report.models)).toEqual(['base', 'sft', 'ppo']);
    for (const m of Object.values(report.models)) {
      expect(Object.keys(m).sort()).toEqual([...METRIC_KEYS].sort());
      for (const k of ['syntax_valid', 'pass_at_1', 'distinct_1', 'distinct_2'] as const) {
        expect(m[k]).toBeGreaterThanOrEqual(0);
        expect(m[k]).toBeLessThanOrEqual(1);
      }
      expect(m.mean_len).toBeGreaterThan(0);
      expect(m.mean_len).toBeLessThanOrEqual(decoding.maxNewTokens);
      expect(Number.isFinite(m.rm_score)).toBe(true);
    }
  });

  it('KL: null for the reference itself, 0 for an identical model, non-zero for another model', () => {
    const { models } = result.report;
    expect(models.sft.kl_to_sft).toBeNull();
    expect(models.ppo.kl_to_sft).toBeCloseTo(0, 4);
    expect(Math.abs(models.base.kl_to_sft!)).toBeGreaterThan(0.1);
    // Same weights, same greedy decoding: identical responses and scores.
    expect(models.ppo).toMatchObject({ ...models.sft, kl_to_sft: expect.any(Number) });
  });

  it('samples agree with the metrics, and rm_score is the reward model score of encodePair(prompt, response)', async () => {
    const { samples, report } = result;
    expect(samples).toHaveLength(9);
    for (const name of ['base', 'sft', 'ppo']) {
      const mine = samples.filter((s) => s.model === name);
      expect(mine.map((s) => s.task_id)).toEqual([1, 2, 3]);
      expect(report.models[name].pass_at_1).toBeCloseTo(mine.filter((s) => s.passed).length / 3, 12);
      expect(report.models[name].syntax_valid).toBeCloseTo(mine.filter((s) => s.syntax_ok).length / 3, 12);
      expect(report.models[name].rm_score).toBeCloseTo(mine.reduce((a, s) => a + s.rm_score!, 0) / 3, 5);
    }
    const tok = loadTokenizer(TOKENIZER_DIR);
    const rm = await RewardModel.load(dirs.rm);
    const problems = await readEvalProblems(path.join(__dirname, 'fixtures/tiny_eval.jsonl'));
    const s = samples[1];
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
    expect(Object.keys(lines[0])).toEqual(['model', 'task_id', 'response', 'passed', 'syntax_ok', 'rm_score']);
    expect(fs.existsSync(path.join(out, 'eval.svg'))).toBe(false);
  });

  it('leaves no tensor behind (every model disposed, every step tidied)', () => {
    expect(tensorsAfter).toBe(tensorsBefore);
  });

  it('timings are reported per model', () => {
    expect(result.timings.map((t) => t.model)).toEqual(['base', 'sft', 'ppo']);
    for (const t of result.timings) expect(t.generateSeconds).toBeGreaterThan(0);
  });
});
