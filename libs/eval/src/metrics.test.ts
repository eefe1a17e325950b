import { aggregate, distinctN, mean, ProblemOutcome, rate, sequenceLogRatio } from './metrics';

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

describe('aggregate', () => {
  const o = (tokens: number[], syntaxOk: boolean, passed: boolean, rmScore: number | null, logRatio: number | null): ProblemOutcome => ({
    tokens,
    syntaxOk,
    passed,
    rmScore,
    logRatio,
  });

  it('computes the seven metrics of one model', () => {
    const m = aggregate([o([1, 2, 3], true, true, 0.5, 2), o([1, 2], true, false, -0.1, -1), o([], false, false, 0.2, 0.5), o([4, 4], true, false, 0, 1.5)]);
    expect(m.syntax_valid).toBe(0.75);
    expect(m.pass_at_1).toBe(0.25);
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
