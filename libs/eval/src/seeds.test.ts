// eval:seeds on three fabricated runs of 4 problems: the means, seed SDs, paired differences and flips on the
// seed-averaged per-problem outcomes, per model and per group, against numbers computed by hand; the round trip
// through the files each run writes; and the errors that name the folder.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { EvalProblem } from './data';
import { assembleReport, perProblemReport, Row } from './eval-json';
import { ProblemOutcome, summarize } from './metrics';
import { averageSeeds, readSeedRun, writeSeeds } from './seeds';
import { writeReport } from './write';

/** A response that passed or not: all tests, or half of them (a stub's: a quarter); `len` tokens. */
const r = (passed: boolean, len = 2, testsPassed = passed ? 1 : 0.5): ProblemOutcome => ({
  tokens: new Array<number>(len).fill(1),
  syntaxOk: true,
  passed,
  execScore: passed ? 1 : 0,
  testsPassed,
  definesCalled: true,
  rmScore: null,
  logRatio: null,
});
const greedyRow = (name: string, passed: number[], len = 2): Row => ({
  name,
  headline: 'greedy',
  temperature: 0,
  samplingTemperature: null,
  passes: { greedy: summarize(passed.map((p) => [r(p === 1, len)])) },
});

// 4 problems: groups a, a, b, none.
const problems: EvalProblem[] = [
  { taskId: 1, prompt: 'p1', tests: ['assert 1'], group: 'a' },
  { taskId: 2, prompt: 'p2', tests: ['assert 1'], group: 'a' },
  { taskId: 3, prompt: 'p3', tests: ['assert 1'], group: 'b' },
  { taskId: 4, prompt: 'p4', tests: ['assert 1'] },
];
// Greedy pass@1 per problem in seeds 1, 2, 3 (ppo chose 0.4 on dev in seed 3: one sample per problem there).
const SFT = [[1, 0, 0, 1], [1, 1, 0, 0], [0, 0, 0, 1]];
const PPO = [[1, 1, 0, 1], [1, 1, 1, 0], [1, 1, 0, 1]];

function seedRows(k: number): Row[] {
  // sft also samples 2 answers per problem for pass@k, the same in every seed: pass@1 0.375, pass@2 0.5
  const sft: Row = { ...greedyRow('sft', SFT[k], k + 1), samplingTemperature: 0.6, passes: { ...greedyRow('sft', SFT[k], k + 1).passes, sampled: summarize([[r(true), r(false)], [r(false), r(false)], [r(false), r(false)], [r(true), r(true)]]) } };
  const ppo: Row =
    k === 2
      ? { name: 'ppo', headline: 'sampled', temperature: 0.4, samplingTemperature: 0.4, passes: { sampled: summarize(PPO[k].map((p) => [r(p === 1)])) } }
      : greedyRow('ppo', PPO[k]);
  const stub: Row = { name: 'stub:pass', headline: 'stub', temperature: null, samplingTemperature: null, passes: { stub: summarize(problems.map(() => [r(false, 1, 0.25)])) } };
  return [sft, ppo, stub];
}

let tmp: string;
const dirOf = (name: string) => path.join(tmp, name);

/** Write one run's folder as eval:run does (eval.json, per_problem.json, eval.md). */
async function writeRun(name: string, rows: Row[], ps = problems): Promise<string> {
  const ctx = { problems: ps, samples: 2, sftName: 'sft' };
  await writeReport(dirOf(name), assembleReport(rows, ctx), perProblemReport(rows, ctx), '# Evaluation\n');
  return dirOf(name);
}

let runs: string[];
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-seeds-'));
  runs = [];
  for (let k = 0; k < 3; k++) runs.push(await writeRun(`seed-${k + 1}`, seedRows(k)));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const average = () => averageSeeds(runs.map(readSeedRun));

describe('averageSeeds', () => {
  it('pass@1 is the mean of the seeds, with each seed\'s and the seed-to-seed SD', () => {
    const { report } = average();
    expect(report.n_seeds).toBe(3);
    expect(report.n_problems).toBe(4);
    const { sft, ppo } = report.models;
    expect(sft.pass_at_1_by_seed).toEqual([0.5, 0.5, 0.25]);
    expect(sft.pass_at_1).toBeCloseTo(1.25 / 3, 12);
    // deviations 1/12, 1/12, -2/12: variance 6/144 / 2, SD sqrt(3) / 12
    expect(sft.seed_sd).toBeCloseTo(Math.sqrt(3) / 12, 12);
    expect(ppo.pass_at_1_by_seed).toEqual([0.75, 0.75, 0.75]);
    expect(ppo).toMatchObject({ pass_at_1: 0.75, seed_sd: 0 });
    expect(report.models['stub:pass']).toMatchObject({ pass_at_1: 0, pass_at_1_by_seed: [0, 0, 0], seed_sd: 0, temperature: null });
  });

  it('SEs over problems of the seed-averaged outcomes; the other figures are the seeds\' means without SE', () => {
    const { report } = average();
    const { sft, ppo } = report.models;
    // ppo per problem over seeds: 1, 1, 1/3, 2/3; mean 0.75, squared deviations 1/16 + 1/16 + 25/144 + 1/144 = 44/144
    expect(ppo.se.pass_at_1).toBeCloseTo(Math.sqrt(44 / 144 / 3 / 4), 12);
    // tests_passed per answer: 1 when it passed, else 0.5; so 0.5 + pass@1 / 2 per problem
    expect(ppo.tests_passed).toBeCloseTo(0.5 + 0.75 / 2, 12);
    expect(ppo.se.tests_passed).toBeCloseTo(ppo.se.pass_at_1! / 2, 12);
    expect(sft.mean_len).toBeCloseTo((1 + 2 + 3) / 3, 12); // seed k's answers have k tokens
    expect(sft.se.mean_len).toBeNull();
    expect(sft.rm_score).toBeNull(); // no seed has one
    // the dev choice differs between seeds: no common temperature; sft is greedy in all three
    expect(ppo.temperature).toBeNull();
    expect(sft).toMatchObject({ temperature: 0, sampling_temperature: 0.6 });
    expect(report.temperature).toBeNull();
    // pass@k: the seeds' means (no SE) where every seed has it
    expect(sft.pass_at_k).toEqual({ '1': { mean: 0.375, se: null }, '2': { mean: 0.5, se: null } });
    expect(ppo.pass_at_k).toBeUndefined();
  });

  it('vs_sft: paired per problem on the seed-averaged outcomes (SE over problems, CI95), with the flips', () => {
    const { report } = average();
    const d = report.models.ppo.vs_sft!;
    // ppo 1, 1, 1/3, 2/3 minus sft 2/3, 1/3, 0, 2/3: 1/3, 2/3, 1/3, 0; mean 1/3, sample variance 2/27
    const se = Math.sqrt(2 / 27 / 4);
    expect(d.pass_at_1!.diff).toBeCloseTo(1 / 3, 12);
    expect(d.pass_at_1!.se).toBeCloseTo(se, 12);
    expect(d.pass_at_1!.ci95![0]).toBeCloseTo(1 / 3 - tQuantile(0.975, 3) * se, 12);
    expect(d.pass_at_1!.ci95![1]).toBeCloseTo(1 / 3 + tQuantile(0.975, 3) * se, 12);
    expect(d.tests_passed!.diff).toBeCloseTo(1 / 6, 12);
    // up on problems 1, 2, 3, a tie on 4: 2 P(X = 0), X ~ Bin(3, 1/2) = 0.25
    expect(d.flips).toEqual({ up: 3, down: 0, p: 0.25 });
    expect(d.mean_len).toBeNull();
    expect(report.models['stub:pass'].vs_sft!.flips).toEqual({ up: 0, down: 3, p: 0.25 });
    expect(report.models.sft.vs_sft).toBeUndefined();
  });

  it('the same per group', () => {
    const { report } = average();
    const a = report.groups!.a;
    expect(Object.keys(report.groups!)).toEqual(['a', 'b']);
    expect(a.n_problems).toBe(2);
    // sft on problems 1, 2: 1/2, 1, 0 by seed
    expect(a.models.sft).toMatchObject({ pass_at_1_by_seed: [0.5, 1, 0], pass_at_1: 0.5 });
    expect(a.models.sft.seed_sd).toBeCloseTo(0.5, 12);
    // ppo 1, 1 minus sft 2/3, 1/3: 1/3, 2/3; mean 1/2, SE 1/6; both up: 2 P(X = 0), X ~ Bin(2, 1/2) = 0.5
    const v = a.models.ppo.vs_sft!;
    expect(v.diff).toBeCloseTo(0.5, 12);
    expect(v.se).toBeCloseTo(1 / 6, 12);
    expect(v.flips).toEqual({ up: 2, down: 0, p: 0.5 });
    expect(a.models.ppo).toMatchObject({ pass_at_1: 1, se: 0, seed_sd: 0 });
    const b = report.groups!.b.models.ppo;
    expect(b.pass_at_1_by_seed).toEqual([0, 1, 0]);
    expect(b.pass_at_1).toBeCloseTo(1 / 3, 12);
    expect(b.vs_sft).toMatchObject({ se: null, ci95: null, flips: { up: 1, down: 0, p: 1 } });
    expect(b.vs_sft!.diff).toBeCloseTo(1 / 3, 12);
    expect(report.groups!.a.models.sft.pass_at_k).toEqual({ '1': { mean: 0.25, se: null }, '2': { mean: 0.5, se: null } });
  });

  it('vs_sft_more: each model minus the control row on the seed-averaged outcomes, overall and per group', async () => {
    // sft_more greedy 1, 1, 0, 0 in every seed; ppo averaged 1, 1, 1/3, 2/3: differences 0, 0, 1/3, 2/3
    const MORE = [1, 1, 0, 0];
    const dirs: string[] = [];
    for (let k = 0; k < 3; k++) {
      const [s, p, stub] = seedRows(k);
      dirs.push(await writeRun(`more-${k + 1}`, [s, greedyRow('sft_more', MORE), p, stub]));
    }
    const { report } = averageSeeds(dirs.map(readSeedRun));
    const v = report.models.ppo.vs_sft_more!;
    expect(v.diff).toBeCloseTo(0.25, 12);
    expect(v.flips).toEqual({ up: 2, down: 0, p: 0.5 });
    expect(report.models.sft_more.vs_sft_more).toBeUndefined();
    expect(report.models['stub:pass'].vs_sft_more).toBeUndefined();
    expect(report.groups!.b.models.ppo.vs_sft_more!.diff).toBeCloseTo(1 / 3, 12);
    expect(report.models.ppo.vs_sft).toEqual(average().report.models.ppo.vs_sft); // the SFT comparison is unchanged
  });

  it('one run: its own figures, seed_sd null', () => {
    const one = averageSeeds([readSeedRun(runs[0])]).report;
    const own = readSeedRun(runs[0]).report;
    expect(one.models.ppo).toMatchObject({ pass_at_1: own.models.ppo.pass_at_1, pass_at_1_by_seed: [0.75], seed_sd: null, se: { pass_at_1: own.models.ppo.se.pass_at_1 } });
    expect(one.models.ppo.vs_sft!.pass_at_1).toEqual(own.models.ppo.vs_sft!.pass_at_1);
    expect(one.models.ppo.vs_sft!.flips).toEqual(own.models.ppo.vs_sft!.flips);
  });
});

describe('writeSeeds', () => {
  it('writes eval.json, per_problem.json and eval.md that read back as the average; eval.md has the seeds table', async () => {
    const out = dirOf('seeds');
    const { report, written } = await writeSeeds(runs, out);
    expect(written).toEqual(['eval.json', 'per_problem.json', 'eval.md'].map((f) => path.join(out, f)));
    const json = JSON.parse(fs.readFileSync(path.join(out, 'eval.json'), 'utf8'));
    expect(json).toEqual(report);
    expect(json).toEqual(average().report);
    const perProblem = JSON.parse(fs.readFileSync(path.join(out, 'per_problem.json'), 'utf8'));
    expect(perProblem.task_ids).toEqual([1, 2, 3, 4]);
    expect(perProblem.models.ppo.pass_at_1).toEqual([1, 1, 1 / 3, 2 / 3]);
    const md = fs.readFileSync(path.join(out, 'eval.md'), 'utf8');
    expect(md).toContain(`the mean of 3 runs of the pipeline (one per seed): \`${runs[0]}\`, \`${runs[1]}\`, \`${runs[2]}\``);
    expect(md).toContain('## Seeds');
    expect(md).toContain('| model     | run 1 | run 2 | run 3 |  mean | seed sd |');
    expect(md).toContain('| sft       | 0.500 | 0.500 | 0.250 | 0.417 |   0.144 |');
    expect(md).toContain('3 / 0 (0.250)');
    expect(md).toContain("Per-response outcomes are in each run's `samples.jsonl`.");
  });

  it('errors name the folder: no eval.json, no per_problem.json, other problems or models, an average given as a run', async () => {
    const err = (dirs: string[]) => {
      try {
        averageSeeds(dirs.map(readSeedRun));
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    const empty = dirOf('empty');
    fs.mkdirSync(empty);
    expect(err([runs[0], empty])).toBe(`${empty}: no eval.json (give folders that eval:run --out wrote)`);
    const old = await writeRun('old', seedRows(0));
    fs.rmSync(path.join(old, 'per_problem.json'));
    expect(err([old])).toBe(`${old}: no per_problem.json (older eval:run folders lack it; evaluate again)`);
    const firstThree = (row: Row): Row => ({ ...row, passes: Object.fromEntries(Object.entries(row.passes).map(([d, s]) => [d, summarize(s.groups.slice(0, 3))])) });
    const fewer = await writeRun('fewer', seedRows(0).map(firstThree), problems.slice(0, 3));
    expect(err([runs[0], fewer])).toBe(`${fewer}: 3 problems against 4 in ${runs[0]}; every run must evaluate the same problems`);
    const other = await writeRun('other', seedRows(0), problems.map((p, i) => (i === 1 ? { ...p, taskId: 9 } : p)));
    expect(err([runs[0], other])).toBe(`${other}: 4 problems against 4 in ${runs[0]}; problem 2 is task 9 against 2; every run must evaluate the same problems`);
    const noStub = await writeRun('no-stub', seedRows(0).slice(0, 2));
    expect(err([runs[0], noStub])).toBe(`${noStub}: rows sft, ppo against sft, ppo, stub:pass in ${runs[0]}; every run must evaluate the same models`);
    expect(err([dirOf('seeds')])).toBe(`${dirOf('seeds')}: already the mean of 3 seeds; give the folders of single eval:run runs`);
  });
});
