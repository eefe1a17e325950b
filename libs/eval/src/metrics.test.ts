import { byProblem, compareModels, comparePassAtK, definesCalledFunctions, distinctN, mean, passAtKs, ProblemOutcome, rate, sequenceLogRatio, summarize } from './metrics';
import { meanSe } from '@rlhf-code/stats';

describe('mean and rate', () => {
  it('average, and null for no data', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeNull();
    expect(rate([true, false, false, true])).toBe(0.5);
    expect(rate([])).toBeNull();
  });
});

describe('distinctN', () => {
  it('counts unique n-grams over all responses, never across two', () => {
    // unigrams: 1 2 1 | 2 3 -> 5 total, {1,2,3} -> 3/5
    expect(distinctN([[1, 2, 1], [2, 3]], 1)).toBeCloseTo(3 / 5, 12);
    // bigrams: (1,2) (2,1) | (2,3) -> 3 total, all unique. A cross-boundary (1,2) would make it 3/4.
    expect(distinctN([[1, 2, 1], [2, 3]], 2)).toBe(1);
    // repeated bigrams: (7,7) x3 in one row, (7,7) in another -> 1 unique / 4
    expect(distinctN([[7, 7, 7, 7], [7, 7]], 2)).toBe(0.25);
  });

  it('responses shorter than n contribute nothing; no n-gram at all is null', () => {
    expect(distinctN([[5], [5, 6]], 2)).toBe(1);
    expect(distinctN([[5], []], 2)).toBeNull();
    expect(distinctN([], 1)).toBeNull();
    expect(() => distinctN([[1]], 0)).toThrow(/positive integer/);
  });
});

describe('sequenceLogRatio', () => {
  it('sums per-token log-prob differences', () => {
    expect(sequenceLogRatio([-1, -0.5, -2], [-1.5, -0.5, -1])).toBeCloseTo(0.5 + 0 - 1, 12);
    expect(sequenceLogRatio([], [])).toBe(0);
    expect(() => sequenceLogRatio([-1], [])).toThrow(/1 model log-probs but 0 reference/);
  });
});

const o = (
  tokens: number[],
  syntaxOk: boolean,
  passed: boolean,
  rmScore: number | null,
  logRatio: number | null,
  execScore = 0.5,
  definesCalled = true,
  testsPassed = passed ? 1 : 0,
): ProblemOutcome => ({
  tokens,
  syntaxOk,
  passed,
  execScore,
  testsPassed,
  definesCalled,
  rmScore,
  logRatio,
});

describe('summarize with one response per problem (greedy decoding)', () => {
  const aggregate = (outcomes: ProblemOutcome[]) => summarize(outcomes.map((x) => [x])).metrics;

  it('computes every metric of one model', () => {
    const m = aggregate([
      o([1, 2, 3], true, true, 0.5, 2, 1),
      o([1, 2], true, false, -0.1, -1, 0, false, 2 / 3),
      o([], false, false, 0.2, 0.5, -0.1),
      o([4, 4], true, false, 0, 1.5, 0, true, 0.5),
    ]);
    expect(m.syntax_valid).toBe(0.75);
    expect(m.pass_at_1).toBe(0.25);
    expect(m.exec_score).toBeCloseTo((1 + 0 - 0.1 + 0) / 4, 12);
    expect(m.tests_passed).toBeCloseTo((1 + 2 / 3 + 0 + 0.5) / 4, 12);
    expect(m.defines_called_function).toBe(0.75);
    expect(m.rm_score).toBeCloseTo((0.5 - 0.1 + 0.2 + 0) / 4, 12);
    // tokens 1 2 3 1 2 4 4: 7 total, {1,2,3,4} unique; bigrams (1,2)(2,3)(1,2)(4,4): 3 unique of 4
    expect(m.distinct_1).toBeCloseTo(4 / 7, 12);
    expect(m.distinct_2).toBe(0.75);
    expect(m.mean_len).toBe(7 / 4);
    expect(m.kl_to_sft).toBeCloseTo((2 - 1 + 0.5 + 1.5) / 4, 12);
  });

  it('rm_score and kl_to_sft are null when not measured', () => {
    const m = aggregate([o([1], true, true, null, null)]);
    expect(m.rm_score).toBeNull();
    expect(m.kl_to_sft).toBeNull();
    expect(() => aggregate([])).toThrow(/no problems/);
  });
});

describe('summarize (several samples per problem)', () => {
  // 3 problems x 2 samples: pass@1 per problem 1/2, 0, 1; exec per problem 0.75, 0.2, 0.9.
  const groups = [
    [o([1, 2], true, true, 1, 0.5, 1), o([3], true, false, 0, 0.1, 0.5)],
    [o([1], false, false, 0, 0, 0.2), o([1], false, false, 0, 0, 0.2)],
    [o([5, 6, 7], true, true, 1, 1, 0.9), o([5, 6, 7], true, true, 1, 1, 0.9)],
  ];

  it('means over problems of per-problem means, with the SE across problems', () => {
    const s = summarize(groups);
    expect(s.metrics.pass_at_1).toBeCloseTo(0.5, 12);
    expect(s.se.pass_at_1).toBeCloseTo(meanSe([0.5, 0, 1]).se!, 12);
    expect(s.metrics.exec_score).toBeCloseTo((0.75 + 0.2 + 0.9) / 3, 12);
    expect(s.se.exec_score).toBeCloseTo(meanSe([0.75, 0.2, 0.9]).se!, 12);
    expect(s.metrics.kl_to_sft).toBeCloseTo((0.3 + 0 + 1) / 3, 12);
    expect(s.metrics.mean_len).toBeCloseTo((1.5 + 1 + 3) / 3, 12);
    // distinct-1 pools all responses: tokens 1 2 3 1 1 5 6 7 5 6 7 -> 6 unique of 11
    expect(s.metrics.distinct_1).toBeCloseTo(6 / 11, 12);
    expect(s.se.distinct_1).toBeGreaterThan(0);
  });

  it('paired against another model: the per-problem differences, zero for a model against itself', () => {
    const a = summarize(groups);
    const b = summarize(groups.map((g) => g.map((x) => ({ ...x, execScore: x.execScore - 0.1, passed: false }))));
    const d = compareModels(a, b);
    expect(d.exec_score!.diff).toBeCloseTo(0.1, 12);
    expect(d.exec_score!.se).toBeCloseTo(0, 12);
    expect(d.pass_at_1!.diff).toBeCloseTo(0.5, 12);
    expect(d.pass_at_1!.ci95![0]).toBeLessThan(0.5);
    const self = compareModels(a, a);
    expect(self.distinct_2!.diff).toBe(0);
    expect(self.rm_score).toEqual({ diff: 0, se: 0, ci95: [0, 0] });
  });

  it('tests_passed: the share of tests per response, averaged over samples then problems', () => {
    const s = summarize([
      [o([1], true, false, null, null, 0, true, 0.5), o([1], true, true, null, null, 1)],
      [o([1], true, false, null, null, 0, true, 0), o([1], false, false, null, null, -0.1, true, 0)],
      [o([1], true, false, null, null, 0, true, 1 / 3), o([1], true, false, null, null, 0, true, 1 / 3)],
    ]);
    expect(s.metrics.tests_passed).toBeCloseTo((0.75 + 0 + 1 / 3) / 3, 12);
    expect(s.se.tests_passed).toBeCloseTo(meanSe([0.75, 0, 1 / 3]).se!, 12);
    expect(s.metrics.exec_score).toBeCloseTo((0.5 - 0.05 + 0) / 3, 12);
  });

  it('refuses empty input', () => {
    expect(() => summarize([])).toThrow('summarize: no problems were evaluated');
    expect(() => summarize([[]])).toThrow('summarize: a problem has no responses');
  });
});

describe('the function the tests call', () => {
  it('a response defines it or not', () => {
    expect(definesCalledFunctions('def area(r):\n    return 3.14 * r * r\n', ['area'])).toBe(true);
    expect(definesCalledFunctions('def other(r):\n    return r\n', ['area'])).toBe(false);
    expect(definesCalledFunctions('area = lambda r: r', ['area'])).toBe(false);
    expect(definesCalledFunctions('def f(): pass', [])).toBe(false);
  });
});

describe('pass@k', () => {
  it('k = 1, 2, 4, ... up to n, and n itself', () => {
    expect(passAtKs(1)).toEqual([1]);
    expect(passAtKs(4)).toEqual([1, 2, 4]);
    expect(passAtKs(8)).toEqual([1, 2, 4, 8]);
    expect(passAtKs(6)).toEqual([1, 2, 4, 6]);
    expect(() => passAtKs(0)).toThrow(/positive integer/);
  });

  // 3 problems x 4 samples: 1, 0 and 3 passing.
  const flags = [[true, false, false, false], [false, false, false, false], [true, true, false, true]];
  const groups = flags.map((g) => g.map((passed) => o([1], true, passed, null, null)));

  it('per problem by the unbiased estimator, then mean ± SE over problems (hand-computed)', () => {
    const { passAtK } = summarize(groups);
    expect(Object.keys(passAtK)).toEqual(['1', '2', '4']);
    // 1 of 4 passing: pass@2 = 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5; 3 of 4: 1 - C(1,2)/C(4,2) = 1
    expect(passAtK['1'].perProblem).toEqual([0.25, 0, 0.75]);
    expect(passAtK['2'].perProblem[0]).toBeCloseTo(0.5, 12);
    expect(passAtK['2'].perProblem[1]).toBe(0);
    expect(passAtK['2'].perProblem[2]).toBe(1);
    expect(passAtK['4'].perProblem).toEqual([1, 0, 1]);
    expect(passAtK['2'].mean).toBeCloseTo(0.5, 12);
    expect(passAtK['2'].se).toBeCloseTo(meanSe([0.5, 0, 1]).se!, 12);
    expect(passAtK['1'].mean).toBeCloseTo(summarize(groups).metrics.pass_at_1, 12);
  });

  it('paired against another model at every k both have; none when problems differ in sample counts', () => {
    const a = summarize(groups);
    const b = summarize(groups.map((g) => g.map((x) => ({ ...x, passed: false }))));
    const d = comparePassAtK(a, b);
    expect(Object.keys(d)).toEqual(['1', '2', '4']);
    expect(d['4'].diff).toBeCloseTo(2 / 3, 12);
    expect(d['2'].se).toBeCloseTo(meanSe([0.5, 0, 1]).se!, 12);
    const greedy = summarize(groups.map((g) => g.slice(0, 1)));
    expect(Object.keys(comparePassAtK(a, greedy))).toEqual(['1']);
    expect(summarize([groups[0], groups[1].slice(0, 2)]).passAtK).toEqual({});
  });

  it('byProblem groups problem-major items', () => {
    expect(byProblem([1, 2, 3, 4, 5, 6], 2)).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(byProblem(['a', 'b'], 1)).toEqual([['a'], ['b']]);
  });
});
