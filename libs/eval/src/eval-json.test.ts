// eval.json from summarised passes: which pass is a row's headline, pass@k, comparisons with SFT, and groups, all
// checked against numbers computed by hand from the per-response facts below.
import { meanSe, paired } from '@rlhf-code/stats';
import type { EvalProblem } from './data';
import { assembleReport, perProblemReport, Row } from './eval-json';
import { formatMarkdown } from './report';
import { ProblemOutcome, summarize } from './metrics';

/** A response that passed or not, with its share of tests passed and a log-ratio. */
const r = (passed: boolean, testsPassed: number, logRatio: number | null = null): ProblemOutcome => ({
  tokens: [1, 2],
  syntaxOk: true,
  passed,
  execScore: passed ? 1 : 0,
  testsPassed,
  definesCalled: true,
  rmScore: null,
  logRatio,
});
const T = true;
const F = false;

// 4 problems: groups a, a, b, none.
const problems: EvalProblem[] = [
  { taskId: 1, prompt: 'p1', tests: ['assert 1'], group: 'a' },
  { taskId: 2, prompt: 'p2', tests: ['assert 1'], group: 'a' },
  { taskId: 3, prompt: 'p3', tests: ['assert 1'], group: 'b' },
  { taskId: 4, prompt: 'p4', tests: ['assert 1'] },
];
// SFT: 2 samples at 0.4; passes 1/2, 2/2, 0/2, 0/2 -> pass@1 0.5, 1, 0, 0; pass@2 1, 1, 0, 0.
const sft: Row = {
  name: 'sft',
  headline: 'sampled',
  temperature: 0.4,
  samplingTemperature: 0.4,
  passes: { sampled: summarize([[r(T, 1), r(F, 0.5)], [r(T, 1), r(T, 1)], [r(F, 0), r(F, 0.5)], [r(F, 0), r(F, 0)]]) },
};
// PPO chose greedy on dev: headline greedy (passes 1, 0, 1, 0), sampled at 0.6 for pass@k (1/2, 0/2, 2/2, 1/2).
const ppo: Row = {
  name: 'ppo',
  headline: 'greedy',
  temperature: 0,
  samplingTemperature: 0.6,
  dev: { '0': { pass_at_1: 0.5, se: 0.1 }, '0.6': { pass_at_1: 0.4, se: 0.1 } },
  passes: {
    sampled: summarize([[r(T, 1, 2), r(F, 0, 2)], [r(F, 0, 2), r(F, 0.5, 2)], [r(T, 1, 2), r(T, 1, 2)], [r(F, 0.5, 2), r(T, 1, 2)]]),
    greedy: summarize([[r(T, 1, 1)], [r(F, 0.5, 3)], [r(T, 1, 1)], [r(F, 0, 3)]]),
  },
};
// A stub passing nothing, with some asserts held by chance.
const stub: Row = {
  name: 'stub:return-0',
  headline: 'stub',
  temperature: null,
  samplingTemperature: null,
  passes: { stub: summarize([[r(F, 0.5)], [r(F, 0)], [r(F, 0.5)], [r(F, 1 / 3)]]) },
};
const report = assembleReport([sft, ppo, stub], { problems, samples: 2, sftName: 'sft' });

describe('assembleReport', () => {
  it('rows in order; each at its chosen temperature; the top-level temperature is null when they differ', () => {
    expect(Object.keys(report.models)).toEqual(['sft', 'ppo', 'stub:return-0']);
    expect(report.temperature).toBeNull();
    expect(assembleReport([sft], { problems, samples: 2, sftName: 'sft' }).temperature).toBe(0.4);
    expect(report.models.ppo).toMatchObject({ temperature: 0, sampling_temperature: 0.6, dev: ppo.dev });
    expect(report.models['stub:return-0']).toMatchObject({ temperature: null, sampling_temperature: null, pass_at_1: 0, kl_to_sft: null });
  });

  it('a greedy headline: the greedy figures, its log-ratio not called a KL, pass@k from the samples', () => {
    const m = report.models.ppo;
    expect(m.pass_at_1).toBe(0.5);
    expect(m.tests_passed).toBeCloseTo((1 + 0.5 + 1 + 0) / 4, 12);
    expect(m.kl_to_sft).toBeNull();
    expect(m.se.kl_to_sft).toBeNull();
    expect(m.greedy_log_ratio).toBeCloseTo(2, 12);
    expect(m.greedy!.pass_at_1).toBe(0.5);
    expect(m.pass_at_k!['1'].mean).toBeCloseTo((0.5 + 0 + 1 + 0.5) / 4, 12);
    // pass@2 per problem: 1 of 2 -> 1, 0 of 2 -> 0, 2 of 2 -> 1, 1 of 2 -> 1
    expect(m.pass_at_k!['2']).toEqual(meanSe([1, 0, 1, 1]));
    expect(report.models['stub:return-0'].pass_at_k).toBeUndefined();
    expect(report.models.sft.pass_at_k!['2']).toEqual(meanSe([1, 1, 0, 0]));
  });

  it('vs_sft pairs each row at its temperature with SFT at its own, pass@k included where both have it', () => {
    const d = report.models.ppo.vs_sft!;
    expect(d.pass_at_1).toEqual(paired([1, 0, 1, 0], [0.5, 1, 0, 0]));
    expect(d.pass_at_k!['2']).toEqual(paired([1, 0, 1, 1], [1, 1, 0, 0]));
    expect(Object.keys(d.pass_at_k!)).toEqual(['1', '2']);
    const s = report.models['stub:return-0'].vs_sft!;
    expect(s.pass_at_1!.diff).toBeCloseTo(-report.models.sft.pass_at_1, 12);
    expect(s.pass_at_k).toBeUndefined();
    expect(report.models.sft.vs_sft).toBeUndefined();
  });

  it('flips: the problems whose pass@1 is above and below SFT\'s, with the exact sign test', () => {
    // ppo (greedy) 1, 0, 1, 0 against sft (sampled) 0.5, 1, 0, 0: up problems 1 and 3, down problem 2; 2 P(X <= 1), X ~ Bin(3, 1/2) = 1
    expect(report.models.ppo.vs_sft!.flips).toEqual({ up: 2, down: 1, p: 1 });
    // the stub's 0, 0, 0, 0: down problems 1 and 2; 2 P(X = 0), X ~ Bin(2, 1/2) = 0.5
    expect(report.models['stub:return-0'].vs_sft!.flips).toEqual({ up: 0, down: 2, p: 0.5 });
  });

  it('one seed: pass_at_1_by_seed is [pass_at_1], seed_sd null', () => {
    expect(report.n_seeds).toBe(1);
    expect(report.models.ppo).toMatchObject({ pass_at_1_by_seed: [0.5], seed_sd: null });
    expect(report.groups!.a.models.sft).toMatchObject({ pass_at_1_by_seed: [0.75], seed_sd: null });
  });

  it('per_problem.json: each row\'s headline pass@1 and tests_passed per problem, the groups and the SFT row', () => {
    expect(perProblemReport([sft, ppo, stub], { problems, samples: 2, sftName: 'sft' })).toEqual({
      task_ids: [1, 2, 3, 4],
      groups: ['a', 'a', 'b', null],
      sft: 'sft',
      models: {
        sft: { pass_at_1: [0.5, 1, 0, 0], tests_passed: [0.75, 1, 0.25, 0] },
        ppo: { pass_at_1: [1, 0, 1, 0], tests_passed: [1, 0.5, 1, 0] },
        'stub:return-0': { pass_at_1: [0, 0, 0, 0], tests_passed: [0.5, 0, 0.5, 1 / 3] },
      },
    });
    const bare = perProblemReport([ppo], { problems: problems.map(({ group: _, ...p }) => p), samples: 2, sftName: 'results/sft' });
    expect(bare).not.toHaveProperty('groups');
    expect(bare.sft).toBeNull(); // the KL reference was a folder, not a row
  });

  it('groups: the same per-problem values on each group\'s problems; problems without a group are in none', () => {
    expect(Object.keys(report.groups!)).toEqual(['a', 'b']);
    const a = report.groups!.a;
    expect(a.n_problems).toBe(2);
    expect(a.models.sft).toEqual({
      pass_at_1: 0.75, se: 0.25, tests_passed: (0.75 + 1) / 2, pass_at_1_by_seed: [0.75], seed_sd: null, pass_at_k: { '1': { mean: 0.75, se: 0.25 }, '2': { mean: 1, se: 0 } },
    });
    expect(a.models.sft).not.toHaveProperty('vs_sft');
    expect(a.models.ppo.pass_at_1).toBe(0.5);
    expect(a.models.ppo.se).toBe(meanSe([1, 0]).se);
    expect(a.models.ppo.tests_passed).toBe(0.75);
    expect(a.models.ppo.vs_sft).toEqual({ ...paired([1, 0], [0.5, 1]), flips: { up: 1, down: 1, p: 1 } });
    expect(a.models.ppo.pass_at_k).toEqual({ '1': meanSe([0.5, 0]), '2': meanSe([1, 0]) });
    expect(a.models['stub:return-0']).toEqual({
      pass_at_1: 0, se: 0, tests_passed: 0.25, pass_at_1_by_seed: [0], seed_sd: null, vs_sft: { ...paired([0, 0], [0.5, 1]), flips: { up: 0, down: 2, p: 0.5 } },
    });
    const b = report.groups!.b;
    expect(b.n_problems).toBe(1);
    expect(b.models.ppo).toMatchObject({ pass_at_1: 1, se: null, tests_passed: 1, vs_sft: { diff: 1, se: null, ci95: null, flips: { up: 1, down: 0, p: 1 } } });
    expect(assembleReport([sft], { problems: problems.map(({ group: _, ...p }) => p), samples: 2, sftName: 'sft' })).not.toHaveProperty('groups');
  });

  it('vs_sft_more: each model other than sft minus the control row sft_more, paired per problem, on all problems and per group; in eval.md', () => {
    // sft_more greedy 1, 1, 0, 0; ppo greedy 1, 0, 1, 0: up problem 3, down problem 2
    const more: Row = { name: 'sft_more', headline: 'greedy', temperature: 0, samplingTemperature: null, passes: { greedy: summarize([[r(T, 1)], [r(T, 1)], [r(F, 0)], [r(F, 0)]]) } };
    const rep = assembleReport([sft, more, ppo, stub], { problems, samples: 2, sftName: 'sft' });
    expect(rep.models.ppo.vs_sft_more).toEqual({ ...paired([1, 0, 1, 0], [1, 1, 0, 0]), flips: { up: 1, down: 1, p: 1 } });
    expect(rep.models.sft).not.toHaveProperty('vs_sft_more');
    expect(rep.models.sft_more).not.toHaveProperty('vs_sft_more');
    expect(rep.models['stub:return-0']).not.toHaveProperty('vs_sft_more');
    expect(rep.groups!.a.models.ppo.vs_sft_more).toEqual({ ...paired([1, 0], [1, 1]), flips: { up: 0, down: 1, p: 1 } });
    expect(rep.groups!.b.models.ppo.vs_sft_more).toMatchObject({ diff: 1, flips: { up: 1, down: 0, p: 1 } });
    const md = formatMarkdown(rep, { data: 'd.jsonl', decoding: 'greedy', maxNewTokens: 8, rewardModel: null, klReference: null, chart: null });
    expect(md).toContain('## Against sft_more');
    expect(md).toMatch(/\| ppo +\| +\+0\.000 ± 0\.408 \[[-0-9.]+, [0-9.]+\] \| +1 \/ 1 \(1\.000\) \| +-0\.500 ± 0\.500 /);
    // without a row named sft_more there is no comparison and no section
    expect(report.models.ppo).not.toHaveProperty('vs_sft_more');
  });
});
