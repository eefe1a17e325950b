import { clusterBootstrap, fisherExact, flips, jackknife, jackknifeDiff, meanSe, paired, passAtK, quantile, signFlipTest, signTest, wilson } from './stats';

describe('meanSe', () => {
  it('is the mean and sd / sqrt(n) with the n - 1 variance', () => {
    // values 1, 2, 3, 4: mean 2.5, sample variance 5/3, se sqrt(5/3 / 4) = 0.6455
    const r = meanSe([1, 2, 3, 4]);
    expect(r.mean).toBeCloseTo(2.5, 12);
    expect(r.se).toBeCloseTo(Math.sqrt(5 / 12), 12);
  });
  it('has no SE for one value and refuses none', () => {
    expect(meanSe([0.7])).toEqual({ mean: 0.7, se: null });
    expect(() => meanSe([])).toThrow('meanSe: no values');
  });
});

describe('paired', () => {
  it('is the mean difference with a t interval over the per-problem differences', () => {
    // differences 1, 0, 1, 0, 1: mean 0.6, sample sd sqrt(0.3), se sqrt(0.3 / 5) = 0.2449; t(0.975, 4) = 2.7764
    const r = paired([1, 1, 1, 0, 1], [0, 1, 0, 0, 0]);
    expect(r.diff).toBeCloseTo(0.6, 12);
    expect(r.se).toBeCloseTo(Math.sqrt(0.06), 12);
    expect(r.ci95![0]).toBeCloseTo(0.6 - 2.7764451 * Math.sqrt(0.06), 6);
    expect(r.ci95![1]).toBeCloseTo(0.6 + 2.7764451 * Math.sqrt(0.06), 6);
  });
  it('removes a shared per-problem offset that separate SEs would count as noise', () => {
    const hard = [0.1, 0.9, 0.4, 0.7, 0.2, 0.8];
    const r = paired(hard.map((x) => x + 0.05), hard);
    expect(r.diff).toBeCloseTo(0.05, 12);
    expect(r.se).toBeCloseTo(0, 12);
  });
  it('refuses lists of different lengths', () => {
    expect(() => paired([1, 2], [1])).toThrow('paired: 2 values against 1; both must cover the same problems');
  });
});

describe('jackknife', () => {
  it('equals the usual SE for a mean', () => {
    const xs = [3, 1, 4, 1, 5, 9, 2, 6];
    const mean = (skip: number) => {
      const kept = xs.filter((_, i) => i !== skip);
      return kept.reduce((s, x) => s + x, 0) / kept.length;
    };
    const r = jackknife(xs.length, mean);
    expect(r.value).toBeCloseTo(31 / 8, 12);
    expect(r.se).toBeCloseTo(meanSe(xs).se!, 12);
  });
  it('propagates a statistic that is not defined', () => {
    expect(jackknife(3, () => null)).toEqual({ value: null, se: null });
    expect(jackknifeDiff(3, () => 1, () => null)).toBeNull();
  });
  it('pairs a difference of two statistics', () => {
    const a = [2, 4, 6];
    const b = [1, 3, 5];
    const mean = (xs: number[]) => (skip: number) => {
      const kept = xs.filter((_, i) => i !== skip);
      return kept.reduce((s, x) => s + x, 0) / kept.length;
    };
    const r = jackknifeDiff(3, mean(a), mean(b))!;
    expect(r.diff).toBeCloseTo(1, 12);
    expect(r.se).toBeCloseTo(0, 12);
  });
});

describe('passAtK', () => {
  it('is c / n for k = 1 and the combinatorial formula otherwise', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 0, 1)).toBe(0);
    expect(passAtK(4, 4, 1)).toBe(1);
    // 1 - C(3, 2) / C(5, 2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 4, 2)).toBe(1); // n - c < k: some pair always contains a pass
  });
  it('refuses impossible counts', () => {
    expect(() => passAtK(4, 5, 1)).toThrow('passAtK: need integers 0 <= c <= n and 1 <= k <= n, got n 4, c 5, k 1');
    expect(() => passAtK(4, 1, 5)).toThrow('passAtK');
  });
});

describe('rates of successes', () => {
  test('Wilson 95% interval against known values', () => {
    const [lo, hi] = wilson(5, 10)!;
    expect(lo).toBeCloseTo(0.2366, 4);
    expect(hi).toBeCloseTo(0.7634, 4);
    expect(wilson(0, 20)![1]).toBeCloseTo(0.1611, 4);
    expect(wilson(0, 0)).toBeNull();
    expect(() => wilson(3, 2)).toThrow('wilson: need integers 0 <= k <= n, got k 3, n 2');
  });

  test("Fisher's exact test against known values (computed by hand from the hypergeometric)", () => {
    expect(fisherExact(3, 1, 1, 3)).toBeCloseTo(0.4857, 4); // Fisher's tea-tasting table
    expect(fisherExact(8, 91, 3, 82)).toBeCloseTo(0.2277, 4); // 8/99 vs 3/85 accepted
    expect(fisherExact(10, 0, 0, 10)).toBeCloseTo(1.083e-5, 7);
    expect(fisherExact(2, 3, 2, 3)).toBeCloseTo(1, 10);
    expect(() => fisherExact(1, -1, 0, 0)).toThrow('fisherExact: counts must be integers >= 0');
  });
});

describe('quantile', () => {
  it("is linear between order statistics (R's type 7, numpy.quantile's default), in any order; null with no values", () => {
    expect(quantile([300, 100, 200], 0.5)).toBe(200);
    expect(quantile([100, 200, 300], 0.95)).toBeCloseTo(290, 10); // numpy.quantile([100, 200, 300], 0.95)
    expect(quantile([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 10);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([1, 2], 0)).toBe(1);
    expect(quantile([1, 2], 1)).toBe(2);
    expect(quantile([], 0.5)).toBeNull();
  });
});

describe('clusterBootstrap', () => {
  // Per-position differences 1, 1 in file a and 0 in file b; the statistic: their weighted mean.
  const diffs = [1, 1, 0];
  const files = ['a', 'a', 'b'];
  const mean = (w: readonly number[]) => {
    const n = w.reduce((s, x) => s + x, 0);
    return n === 0 ? null : w.reduce((s, x, i) => s + x * diffs[i], 0) / n;
  };
  it('resamples whole files: draws of two files give means 1 (a, a), 2/3 (a, b) or 0 (b, b)', () => {
    // P(b, b) = P(a, a) = 1/4: in 2,000 draws both ends occur, so the 2.5% and 97.5% points are 0 and 1.
    expect(clusterBootstrap(files, mean, { seed: 1 })).toEqual([0, 1]);
    // A file's positions move together: with one file per position the (2/3-weighted) middle values appear instead.
    const seen = new Set<number>();
    clusterBootstrap(files, (w) => (seen.add(mean(w)!), mean(w)), { resamples: 200, seed: 2 });
    expect([...seen].sort((x, y) => x - y)).toEqual([0, 2 / 3, 1]);
  });
  it('contains the paired mean; is seeded; one file, or the same difference everywhere, is a point', () => {
    const d = [0.5, 0, 1, 1, -1, 0.5, 0, 1];
    const f = ['a', 'a', 'b', 'b', 'c', 'd', 'd', 'e'];
    const m = (w: readonly number[]) => w.reduce((s, x, i) => s + x * d[i], 0) / w.reduce((s, x) => s + x, 0);
    const ci = clusterBootstrap(f, m, { seed: 3 })!;
    const all = d.reduce((s, x) => s + x, 0) / d.length; // 0.375
    expect(ci[0]).toBeLessThan(all);
    expect(ci[1]).toBeGreaterThan(all);
    expect(clusterBootstrap(f, m, { seed: 3 })).toEqual(ci);
    expect(clusterBootstrap(files.map(() => 'x'), mean, { seed: 1 })).toEqual([2 / 3, 2 / 3]); // one file: always the same draw
    expect(clusterBootstrap(['x', 'y'], () => 0.25)).toEqual([0.25, 0.25]);
    expect(clusterBootstrap([], () => 1)).toBeNull();
    expect(clusterBootstrap(['x'], () => null)).toBeNull(); // no draw had a value
  });
});

describe('signFlipTest', () => {
  it('enumerates the sign assignments of up to 16 non-zero differences (hand-counted cases)', () => {
    // 1, 1, 1, 1: of 16 assignments only all + and all - reach |sum| 4: p = 2/16.
    expect(signFlipTest([1, 1, 1, 1])).toEqual({ p: 0.125, exact: true });
    expect(signFlipTest([1, 0, 1, 0, 1, 1])).toEqual({ p: 0.125, exact: true }); // zeros change nothing
    // 2, 1: sums 3, 1, -1, -3; |sum| >= 3 in 2 of 4.
    expect(signFlipTest([2, 1]).p).toBe(0.5);
    expect(signFlipTest([1, -1]).p).toBe(1);
    expect(signFlipTest([0, 0])).toEqual({ p: 1, exact: true });
    // 0.75 x 5 and -0.25 (observed 3.5): |sum| >= 3.5 only with the five 0.75 of one sign, either sign of 0.25: 4 of 64.
    expect(signFlipTest([0.75, 0.75, 0.75, 0.75, 0.75, -0.25]).p).toBeCloseTo(4 / 64, 12);
  });
  it('draws random assignments for more than 16 (seeded): 20 equal differences, none as extreme in 5,000 draws', () => {
    const r = signFlipTest(new Array(20).fill(1), { seed: 1, resamples: 5000 });
    expect(r.exact).toBe(false);
    expect(r.p).toBeCloseTo(1 / 5001, 10); // none as extreme: (1 + 0) / (1 + resamples)
    const mixed = [...new Array(12).fill(1), ...new Array(8).fill(-1)]; // sum 4 of 20: p = P(|Binomial sum| >= 4) = 0.5034
    const p = signFlipTest(mixed, { seed: 2 }).p;
    expect(p).toBeGreaterThan(0.5034 - 0.02);
    expect(p).toBeLessThan(0.5034 + 0.02);
    expect(signFlipTest(mixed, { seed: 2 }).p).toBe(p);
  });
});

describe('signTest', () => {
  it('is the exact two-sided binomial test at 1/2 (scipy.stats.binomtest; exact sums of math.comb)', () => {
    expect(signTest(3, 7)).toBeCloseTo(0.34375, 12); // binomtest(3, 10): 2 * 176 / 1024
    expect(signTest(7, 3)).toBeCloseTo(0.34375, 12);
    expect(signTest(0, 5)).toBeCloseTo(0.0625, 12); // 2 / 32
    expect(signTest(10, 10)).toBe(1); // 2 P(X <= 10) > 1 is capped
    expect(signTest(38, 22)).toBeCloseTo(0.051893895928921435, 10); // a run's GRPO flips against SFT
    expect(signTest(41, 29)).toBeCloseTo(0.18821620302302766, 10); // and PPO's
    expect(signTest(200, 150)).toBeCloseTo(0.008720036530555949, 10);
  });
  it('is 1 with nothing to test, and refuses counts that are not integers >= 0', () => {
    expect(signTest(0, 0)).toBe(1);
    expect(signTest(1, 0)).toBe(1);
    expect(() => signTest(1.5, 2)).toThrow('signTest: counts must be integers >= 0, got 1.5, 2');
    expect(() => signTest(-1, 2)).toThrow('signTest: counts must be integers >= 0, got -1, 2');
  });
});

describe('flips', () => {
  it('counts the items up and down on 0/1 outcomes (McNemar\'s discordant pairs), ties left out', () => {
    // a - b per item: +1, 0, -1, +1, 0, +1, +1, 0: 4 up, 1 down; binomtest(1, 5) = 2 * 6 / 32 = 0.375
    expect(flips([1, 1, 0, 1, 0, 1, 1, 0], [0, 1, 1, 0, 0, 0, 0, 0])).toEqual({ up: 4, down: 1, p: 0.375 });
  });
  it('counts any difference of fractional rates (per-problem pass@1 over samples or seeds) as a flip', () => {
    // 0.25 > 0, 0.5 = 0.5, 0.75 < 1, 1 > 0.75, 0 = 0, 1/3 > 0: 3 up, 1 down; binomtest(1, 4) = 2 * 5 / 16 = 0.625
    expect(flips([0.25, 0.5, 0.75, 1, 0, 1 / 3], [0, 0.5, 1, 0.75, 0, 0])).toEqual({ up: 3, down: 1, p: 0.625 });
    expect(flips([0.5, 0.5], [0.5, 0.5])).toEqual({ up: 0, down: 0, p: 1 });
  });
  it('refuses lists of different lengths', () => {
    expect(() => flips([1, 0], [1])).toThrow('flips: 2 values against 1; both must cover the same items');
  });
});
