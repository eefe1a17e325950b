// The whole evaluation on 3 tiny problems with tiny random checkpoints, the real sandbox and a reward model; then with a
// fake sandbox whose outcomes are a function of the code, so every number can be recomputed from samples.jsonl: tests
// passed, exec_score, pass@k, groups, and the temperature chosen on dev problems.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { RewardModel } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { STUB_NAMES, stubPrograms } from '@rlhf-code/sandbox';
import { flips, meanSe } from '@rlhf-code/stats';
import { encodePair, loadTokenizer } from '@rlhf-code/tokenizer';
import { EvalProblem, readEvalProblems } from './data';
import { evaluate, EvalOptions, EvalResult, Sample } from './evaluate';
import { CodeExecutor, sandboxExecutor, TestOutcome } from './executor';
import { METRIC_KEYS } from './metrics';
import { saveTinyModel, TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { formatMarkdown } from './report';
import { writeEvalOutputs } from './write';

let tmp: string;
let result: EvalResult;
let tensorsBefore = 0;
let tensorsAfter = 0;
const dirs = { base: '', sft: '', rm: '' };
const decoding = { maxNewTokens: 12, batchSize: 2, samples: 2, greedy: true, temperature: 0.7, seed: 0, template: 'raw' as const, stubs: true };
const FIXTURE = path.join(__dirname, 'fixtures/tiny_eval.jsonl');

beforeAll(async () => {
  await initBackend({ quiet: true });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-int-'));
  dirs.base = path.join(tmp, 'base');
  dirs.sft = path.join(tmp, 'sft');
  dirs.rm = path.join(tmp, 'rm');
  await saveTinyModel(dirs.base, { seed: 1 });
  await saveTinyModel(dirs.sft, { seed: 2 });
  await saveTinyModel(dirs.rm, { seed: 2, kind: 'rm' });
  const problems = await readEvalProblems(FIXTURE);
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
    expect(Object.keys(report)).toEqual(['n_problems', 'n_seeds', 'samples_per_problem', 'temperature', 'models']);
    expect(report).toMatchObject({ n_problems: 3, n_seeds: 1, samples_per_problem: 2, temperature: 0.7 });
    expect(Object.keys(report.models)).toEqual(['base', 'sft', 'ppo', ...STUB_NAMES]);
    for (const [name, m] of Object.entries(report.models)) {
      const stub = STUB_NAMES.includes(name);
      const extra = ['se', 'pass_at_1_by_seed', 'seed_sd', 'temperature', 'sampling_temperature', ...(name === 'sft' ? [] : ['vs_sft']), ...(stub ? [] : ['pass_at_k', 'greedy'])];
      expect(Object.keys(m).sort()).toEqual([...METRIC_KEYS, ...extra].sort());
      expect(Object.keys(m.se).sort()).toEqual([...METRIC_KEYS].sort());
      for (const k of ['syntax_valid', 'pass_at_1', 'tests_passed', 'defines_called_function', 'distinct_1', 'distinct_2'] as const) {
        if (name === 'stub:empty' && k.startsWith('distinct')) {
          expect(m[k]).toBeNull(); // no token at all
          continue;
        }
        expect(m[k]).toBeGreaterThanOrEqual(0);
        expect(m[k]).toBeLessThanOrEqual(1);
        expect(m.se[k]).toBeGreaterThanOrEqual(0);
      }
      expect(m.exec_score).toBeGreaterThanOrEqual(-0.1 - 1e-12);
      expect(m.exec_score).toBeLessThanOrEqual(1);
      expect(Number.isFinite(m.rm_score)).toBe(true);
      if (stub) {
        expect(m).toMatchObject({ temperature: null, sampling_temperature: null, kl_to_sft: null });
        continue;
      }
      expect(m).toMatchObject({ temperature: 0.7, sampling_temperature: 0.7 });
      expect(m.mean_len).toBeGreaterThan(0);
      expect(m.mean_len).toBeLessThanOrEqual(decoding.maxNewTokens);
      expect(Object.keys(m.pass_at_k!)).toEqual(['1', '2']);
      expect(m.pass_at_k!['1'].mean).toBeCloseTo(m.pass_at_1, 12);
      expect(Object.keys(m.greedy!).sort()).toEqual([...METRIC_KEYS.filter((k) => k !== 'kl_to_sft'), 'greedy_log_ratio'].sort());
    }
  });

  it('KL: null for the reference itself, 0 for an identical model, non-zero for another model; paired diffs', () => {
    const { models } = result.report;
    expect(models.sft.kl_to_sft).toBeNull();
    expect(models.ppo.kl_to_sft).toBeCloseTo(0, 4);
    expect(Math.abs(models.base.kl_to_sft!)).toBeGreaterThan(0.1);
    // Same weights, same seed: identical samples, so every paired difference is 0 with SE 0.
    const { pass_at_k: passAtK, flips, ...metrics } = models.ppo.vs_sft!;
    expect(flips).toEqual({ up: 0, down: 0, p: 1 }); // no problem changed
    for (const d of [...Object.values(metrics), ...Object.values(passAtK!)]) {
      if (d === null) continue;
      expect(d.diff).toBeCloseTo(0, 4);
      expect(d.se ?? 0).toBeCloseTo(0, 4);
    }
    expect(Object.keys(passAtK!)).toEqual(['1', '2']);
    expect(models.base.vs_sft!.exec_score!.diff).toBeCloseTo(models.base.exec_score - models.sft.exec_score, 10);
    expect(models.ppo.greedy!.greedy_log_ratio).toBeCloseTo(0, 4);
  });

  it('samples agree with the metrics, and rm_score is the reward model score of encodePair(prompt, response)', async () => {
    const { samples, report } = result;
    expect(samples).toHaveLength(3 * (3 * 2 + 3) + STUB_NAMES.length * 3);
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
        // executionScore: 1 all tests pass, -0.1 does not compile, else 0
        expect(s.exec_score).toBe(s.passed ? 1 : s.syntax_ok || s.response.trim() === '' ? 0 : -0.1);
        if (s.passed) expect(s.tests_passed).toBe(1);
      }
    }
    const tok = loadTokenizer(TOKENIZER_DIR);
    const rm = await RewardModel.load(dirs.rm);
    const problems = await readEvalProblems(FIXTURE);
    const s = samples[2]; // base, problem 2, sample 0
    const [expected] = rm.score([encodePair(tok, problems[1].prompt, s.response).ids], tok.padId);
    expect(s.rm_score).toBeCloseTo(expected, 4);
    rm.dispose();
  });

  it('writes eval.json, per_problem.json, eval.md and samples.jsonl', async () => {
    const out = path.join(tmp, 'out');
    const settings = { data: 'fixture', decoding: 'greedy', maxNewTokens: 12, rewardModel: dirs.rm, klReference: dirs.sft };
    await writeEvalOutputs(out, result, settings, null);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'eval.json'), 'utf8'))).toEqual(result.report);
    // per_problem.json: each row's headline pass@1 and tests_passed per problem, what eval.json's means and flips come from
    const perProblem = JSON.parse(fs.readFileSync(path.join(out, 'per_problem.json'), 'utf8'));
    expect(perProblem).toEqual(result.perProblem);
    expect(perProblem.sft).toBe('sft');
    expect(Object.keys(perProblem.models)).toEqual(Object.keys(result.report.models));
    for (const [name, m] of Object.entries(result.report.models)) {
      const rows = perProblem.models[name];
      expect(rows.pass_at_1).toHaveLength(perProblem.task_ids.length);
      expect(meanSe(rows.pass_at_1).mean).toBeCloseTo(m.pass_at_1, 12);
      expect(meanSe(rows.tests_passed).mean).toBeCloseTo(m.tests_passed, 12);
      expect(m.pass_at_1_by_seed).toEqual([m.pass_at_1]);
      expect(m.seed_sd).toBeNull();
      if (name !== 'sft') expect(m.vs_sft!.flips).toEqual(flips(rows.pass_at_1, perProblem.models.sft.pass_at_1));
    }
    expect(fs.readFileSync(path.join(out, 'eval.md'), 'utf8')).toContain('| ppo ');
    const lines = fs.readFileSync(path.join(out, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(result.samples);
    expect(Object.keys(lines[0])).toEqual(['model', 'task_id', 'decoding', 'sample', 'response', 'passed', 'tests_passed', 'syntax_ok', 'exec_score', 'rm_score']);
    expect(fs.existsSync(path.join(out, 'eval.svg'))).toBe(false);
  });

  it('greedy only: the greedy log-ratio is reported as greedy_log_ratio, never as kl_to_sft', async () => {
    const problems = await readEvalProblems(FIXTURE);
    const greedy = await evaluate({
      ...decoding,
      samples: 0,
      stubs: false,
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
    expect(base).toMatchObject({ temperature: 0, sampling_temperature: null });
    expect(base.pass_at_k).toBeUndefined();
    expect(greedy.report.temperature).toBeNull();
    const md = formatMarkdown(greedy.report, { data: 'fixture', decoding: 'greedy', maxNewTokens: 12, rewardModel: null, klReference: dirs.sft, chart: null });
    expect(md).toContain('| log_ratio |');
    expect(md).not.toContain('kl_to_sft |');
  });

  it('stub rows: their programs in samples.jsonl, run by the real sandbox, pass nothing here and earn only a share of asserts', async () => {
    const { samples, report } = result;
    const problems = await readEvalProblems(FIXTURE);
    const tok = loadTokenizer(TOKENIZER_DIR);
    for (const [s, name] of STUB_NAMES.entries()) {
      const rows = samples.filter((x) => x.model === name);
      expect(rows.map((x) => [x.task_id, x.decoding, x.sample])).toEqual([[1, 'stub', 0], [2, 'stub', 0], [3, 'stub', 0]]);
      expect(rows.map((x) => x.response)).toEqual(problems.map((q) => stubPrograms(q)[s].response));
      const m = report.models[name];
      expect(m.pass_at_1).toBe(0);
      expect(m.exec_score).toBe(0); // every stub compiles or has no statement at all
      // `assert add(0, 0) == 0` holds for `return 0`, `return False` (False == 0) and `return a`: 1 of problem 1's 2 asserts
      expect(m.tests_passed).toBeCloseTo(['stub:return-0', 'stub:return-false', 'stub:echo-arg'].includes(name) ? 0.5 / 3 : 0, 12);
      expect(m.syntax_valid).toBe(name === 'stub:empty' ? 0 : 1);
      expect(m.defines_called_function).toBe(['stub:empty', 'stub:copy-prompt'].includes(name) ? 0 : 1);
      expect(m.mean_len).toBeCloseTo(rows.reduce((n, x) => n + tok.encode(x.response, { parseSpecialTokens: false }).length, 0) / 3, 12);
      expect(m.rm_score).toBeCloseTo(rows.reduce((a, x) => a + x.rm_score!, 0) / 3, 5);
      expect(m.vs_sft!.pass_at_1!.diff).toBeCloseTo(-report.models.sft.pass_at_1, 12);
    }
  });

  it('leaves no tensor behind (every model disposed, every step tidied)', () => {
    expect(tensorsAfter).toBe(tensorsBefore);
  });

  it('timings are reported per model', () => {
    expect(result.timings.map((t) => t.model)).toEqual(['base', 'sft', 'ppo']);
    for (const t of result.timings) expect(t.generateSeconds).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// A fake sandbox: the outcome is a function of the code alone, so every figure can be recomputed from the samples.

const OUTCOMES: TestOutcome[] = [
  { passed: true, execScore: 1, testsPassed: 1 },
  { passed: false, execScore: 0, testsPassed: 0.5 },
  { passed: false, execScore: -0.1, testsPassed: 0 },
];
const byLength = (code: string): TestOutcome => OUTCOMES[code.length % 3];

function fakeExecutor(outcome: (code: string, tests: string[]) => TestOutcome): CodeExecutor {
  return { checkSyntax: async (codes) => codes.map(() => true), runTests: async (code, tests) => outcome(code, tests) };
}

const avg = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const choose = (n: number, k: number): number => (k < 0 || k > n ? 0 : k === 0 ? 1 : (choose(n - 1, k - 1) * n) / k);
/** pass@k of one problem from n samples of which c passed, straight from the definition. */
const passAtKByHand = (n: number, c: number, k: number) => 1 - choose(n - c, k) / choose(n, k);

/** A row's per-problem values of one sample field (averaged over the problem's samples), problems in file order. */
function perProblem(samples: Sample[], model: string, decoding: Sample['decoding'], f: (s: Sample) => number): number[] {
  const rows = samples.filter((s) => s.model === model && s.decoding === decoding);
  return [1, 2, 3].map((id) => avg(rows.filter((s) => s.task_id === id).map(f)));
}

describe('evaluate with a fake sandbox', () => {
  let problems: EvalProblem[];
  const base = (): Omit<EvalOptions, 'executor' | 'problems'> => ({
    ...decoding,
    models: [{ name: 'sft', dir: dirs.sft }, { name: 'base', dir: dirs.base }],
    rewardModelDir: null,
    klReference: { dir: dirs.sft, name: 'sft' },
  });
  beforeAll(async () => {
    // problems 1 and 2 in group "x", problem 3 in none
    problems = (await readEvalProblems(FIXTURE)).map((p) => (p.taskId === 3 ? p : { ...p, group: 'x' }));
  });

  describe('tests_passed, exec_score, pass@k and groups', () => {
    let r: EvalResult;
    beforeAll(async () => {
      r = await evaluate({ ...base(), samples: 4, problems, executor: fakeExecutor(byLength) });
    });

    it("each sample carries the executor's outcome; the means are over samples, then problems", () => {
      for (const s of r.samples) expect([s.passed, s.exec_score, s.tests_passed]).toEqual(Object.values(byLength(s.response)));
      for (const [name, m] of Object.entries(r.report.models)) {
        const decodingOf = STUB_NAMES.includes(name) ? 'stub' : 'sampled';
        const per = (f: (s: Sample) => number) => perProblem(r.samples, name, decodingOf, f);
        expect(m.tests_passed).toBeCloseTo(avg(per((s) => s.tests_passed)), 12);
        expect(m.se.tests_passed).toBeCloseTo(meanSe(per((s) => s.tests_passed)).se!, 12);
        expect(m.exec_score).toBeCloseTo(avg(per((s) => s.exec_score)), 12);
        expect(m.pass_at_1).toBeCloseTo(avg(per((s) => Number(s.passed))), 12);
      }
      // stub:empty is '' (length 0: passes here), stub:copy-prompt the prompt itself
      expect(r.report.models['stub:empty'].pass_at_1).toBe(1);
      expect(r.report.models['stub:copy-prompt'].tests_passed).toBeCloseTo(avg(problems.map((p) => byLength(p.prompt).testsPassed)), 12);
    });

    it('pass@k for k = 1, 2, 4 against the definition, per problem from the count of passing samples', () => {
      for (const name of ['sft', 'base']) {
        const passes = perProblem(r.samples, name, 'sampled', (s) => Number(s.passed)).map((share) => Math.round(share * 4));
        const m = r.report.models[name];
        expect(Object.keys(m.pass_at_k!)).toEqual(['1', '2', '4']);
        for (const k of [1, 2, 4]) {
          const values = passes.map((c) => passAtKByHand(4, c, k));
          expect(m.pass_at_k![String(k)].mean).toBeCloseTo(avg(values), 12);
          expect(m.pass_at_k![String(k)].se).toBeCloseTo(meanSe(values).se!, 12);
        }
      }
      const d = r.report.models.base.vs_sft!.pass_at_k!['2'];
      expect(d.diff).toBeCloseTo(r.report.models.base.pass_at_k!['2'].mean - r.report.models.sft.pass_at_k!['2'].mean, 12);
    });

    it("groups: the numbers of the group's problems alone", () => {
      const g = r.report.groups!;
      expect(Object.keys(g)).toEqual(['x']);
      expect(g.x.n_problems).toBe(2);
      expect(Object.keys(g.x.models)).toEqual(['sft', 'base', ...STUB_NAMES]);
      const sftPass = perProblem(r.samples, 'sft', 'sampled', (s) => Number(s.passed)).slice(0, 2);
      for (const [name, m] of Object.entries(g.x.models)) {
        const decodingOf = STUB_NAMES.includes(name) ? 'stub' : 'sampled';
        const pass = perProblem(r.samples, name, decodingOf, (s) => Number(s.passed)).slice(0, 2);
        const tests = perProblem(r.samples, name, decodingOf, (s) => s.tests_passed).slice(0, 2);
        expect(m.pass_at_1).toBeCloseTo(avg(pass), 12);
        expect(m.se).toBeCloseTo(meanSe(pass).se!, 12);
        expect(m.tests_passed).toBeCloseTo(avg(tests), 12);
        if (name === 'sft') expect(m.vs_sft).toBeUndefined();
        else expect(m.vs_sft!.diff).toBeCloseTo(avg(pass) - avg(sftPass), 12);
        expect(m.pass_at_k === undefined).toBe(STUB_NAMES.includes(name));
      }
    });
  });

  it('baseDtype reaches every loaded model: int8 changes the answers or the reward / KL figures, fp32 twice gives the same', async () => {
    const run = (baseDtype: 'fp32' | 'int8') => evaluate({ ...base(), rewardModelDir: dirs.rm, stubs: false, baseDtype, problems, executor: fakeExecutor(byLength) });
    const before = tf.memory().numTensors;
    const [a, b, q] = [await run('fp32'), await run('fp32'), await run('int8')];
    expect(tf.memory().numTensors).toBe(before);
    const view = (r: EvalResult) => r.samples.map((s) => [s.model, s.decoding, s.response, s.rm_score]);
    expect(view(b)).toEqual(view(a));
    expect(b.report.models.base.kl_to_sft).toBe(a.report.models.base.kl_to_sft);
    // int8 moves logits by a few % (frozen-weights.test.ts): some answer, score or KL must move
    const moved = JSON.stringify(view(q)) !== JSON.stringify(view(a)) || q.report.models.base.kl_to_sft !== a.report.models.base.kl_to_sft;
    expect(moved).toBe(true);
    expect(q.samples).toHaveLength(a.samples.length);
  });

  describe('the temperature chosen on dev problems', () => {
    const dev = (temperatures: number[]) => ({ problems, temperatures, samples: 2 });

    it('ties go to the lower temperature: greedy headline, pass@k sampled at the lowest temperature above 0', async () => {
      const before = tf.memory().numTensors;
      const r = await evaluate({ ...base(), rewardModelDir: dirs.rm, greedy: false, stubs: false, dev: dev([1, 0, 0.5]), problems, executor: fakeExecutor(() => OUTCOMES[0]) });
      expect(tf.memory().numTensors).toBe(before);
      for (const name of ['sft', 'base']) {
        const m = r.report.models[name];
        expect(m.dev).toEqual({ '1': { pass_at_1: 1, se: 0 }, '0': { pass_at_1: 1, se: 0 }, '0.5': { pass_at_1: 1, se: 0 } });
        expect(m).toMatchObject({ temperature: 0, sampling_temperature: 0.5, pass_at_1: 1 });
        expect(m.pass_at_k).toEqual({ '1': { mean: 1, se: 0 }, '2': { mean: 1, se: 0 } });
        // the greedy pass runs although --no-greedy-pass: it is the headline
        const rows = r.samples.filter((s) => s.model === name);
        expect(rows.filter((s) => s.decoding === 'greedy')).toHaveLength(3);
        expect(rows.filter((s) => s.decoding === 'sampled')).toHaveLength(3 * 2);
        // the reward model scores the reported (greedy) answers, not the pass@k samples behind them
        expect(rows.filter((s) => s.decoding === 'greedy').every((s) => Number.isFinite(s.rm_score))).toBe(true);
        expect(rows.filter((s) => s.decoding === 'sampled').every((s) => s.rm_score === null)).toBe(true);
      }
      expect(r.report.models.base.kl_to_sft).toBeNull();
      expect(Number.isFinite(r.report.models.base.greedy_log_ratio)).toBe(true);
      expect(r.report.temperature).toBe(0);
    });

    it("picks the argmax: a sandbox that fails the model's greedy answers makes it sample, at its best dev temperature", async () => {
      // base's greedy answers, from the first run (same prompts, same batches, so the same answers)
      const greedyAnswer = new Map(result.samples.filter((s) => s.model === 'base' && s.decoding === 'greedy').map((s) => [problems[Number(s.task_id) - 1].tests[0], s.response]));
      const notGreedy = (code: string, tests: string[]) => OUTCOMES[code === greedyAnswer.get(tests[0]) ? 2 : 0];
      const temperatures = [0, 0.02, 0.05, 0.1, 2];
      const r = await evaluate({
        ...base(),
        models: [{ name: 'base', dir: dirs.base }],
        klReference: null,
        greedy: false,
        stubs: false,
        dev: dev(temperatures),
        problems,
        executor: fakeExecutor(notGreedy),
      });
      const m = r.report.models.base;
      expect(m.dev!['0']).toEqual({ pass_at_1: 0, se: 0 });
      const rates = temperatures.map((t) => m.dev![String(t)].pass_at_1);
      // near 0 the samples are mostly the greedy answers, so the dev pass@1 rises with the temperature
      expect(new Set(rates).size).toBeGreaterThan(2);
      const argmax = temperatures[rates.indexOf(Math.max(...rates))]; // indexOf: the first, i.e. the lowest, of equal maxima
      expect(argmax).toBeGreaterThan(0);
      expect(m.temperature).toBe(argmax);
      expect(m.sampling_temperature).toBe(argmax);
      // the headline is the sampled pass at that temperature; no greedy pass ran
      expect(m.pass_at_1).toBeCloseTo(m.pass_at_k!['1'].mean, 12);
      expect(m.greedy).toBeUndefined();
      expect(r.samples.filter((s) => s.decoding === 'greedy')).toHaveLength(0);
      expect(m.pass_at_1).toBeCloseTo(avg(perProblem(r.samples, 'base', 'sampled', (s) => Number(s.passed))), 12);
    });
  });
});
