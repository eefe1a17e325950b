// The statistics of an evaluation with error bars: the mean of per-problem values with its standard error, a
// paired comparison of two models on the same problems, the jackknife for pooled ratios (distinct-n), and the
// unbiased pass@k estimator, and for rates of successes: the Wilson interval and Fisher's exact test; for two models'
// paired per-problem outcomes: the flips (problems up and down) and their exact sign test (McNemar's); for paired
// measurements clustered in groups (positions in files): the cluster bootstrap and the sign-flip permutation test.
// Pure functions (the resampling ones seeded), checked against hand-computed values in stats.test.ts.
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import hypergeometricPmf from '@stdlib/stats-base-dists-hypergeometric-pmf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import seedrandom from 'seedrandom';

/** A mean and its standard error (null with fewer than two values: one value says nothing about spread). */
export interface MeanSe {
  mean: number;
  se: number | null;
}

/** Mean and standard error of the mean (sample standard deviation, n - 1, over sqrt(n)). */
export function meanSe(values: readonly number[]): MeanSe {
  const n = values.length;
  if (n === 0) throw new Error('meanSe: no values');
  const mean = values.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { mean, se: null };
  const variance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n) };
}

/** A difference of two models on the same problems: its mean, standard error and 95% confidence interval. */
export interface PairedDiff {
  diff: number;
  se: number | null;
  ci95: [number, number] | null;
}

/** 95% interval from a mean, its SE and the degrees of freedom (Student's t). */
function interval(mean: number, se: number | null, df: number): [number, number] | null {
  if (se === null || df < 1) return null;
  const half = tQuantile(0.975, df) * se;
  return [mean - half, mean + half];
}

/**
 * Paired comparison: a[i] and b[i] are the same problem's values for two models. The difference a - b per problem
 * removes the problems' own difficulty from the noise, which is why paired intervals are much narrower than the two
 * models' separate ones.
 */
export function paired(a: readonly number[], b: readonly number[]): PairedDiff {
  if (a.length !== b.length) throw new Error(`paired: ${a.length} values against ${b.length}; both must cover the same problems`);
  const { mean, se } = meanSe(a.map((x, i) => x - b[i]));
  return { diff: mean, se, ci95: interval(mean, se, a.length - 1) };
}

/**
 * Jackknife standard error of a statistic of n problems (Efron & Stein 1981): recompute it leaving each problem
 * out in turn; for statistics that are not means of per-problem values (distinct-n pools n-grams over all
 * responses). `stat(skip)` computes the statistic without problem `skip` (-1: with all); null values propagate.
 */
export function jackknife(n: number, stat: (skip: number) => number | null): { value: number | null; se: number | null } {
  const value = stat(-1);
  if (value === null || n < 2) return { value, se: null };
  const loo: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = stat(i);
    if (v === null) return { value, se: null };
    loo.push(v);
  }
  const m = loo.reduce((s, x) => s + x, 0) / n;
  const variance = ((n - 1) / n) * loo.reduce((s, x) => s + (x - m) ** 2, 0);
  return { value, se: Math.sqrt(variance) };
}

/** Jackknife of a difference between two statistics of the same n problems: paired, like `paired`. */
export function jackknifeDiff(n: number, a: (skip: number) => number | null, b: (skip: number) => number | null): PairedDiff | null {
  const d = (skip: number) => {
    const x = a(skip);
    const y = b(skip);
    return x === null || y === null ? null : x - y;
  };
  const { value, se } = jackknife(n, d);
  if (value === null) return null;
  return { diff: value, se, ci95: interval(value, se, n - 1) };
}

/**
 * The unbiased estimator of pass@k from n samples of which c passed (Chen et al. 2021, "Evaluating Large Language
 * Models Trained on Code"): 1 - C(n - c, k) / C(n, k), computed as a product to stay exact for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new Error(`passAtK: need integers 0 <= c <= n and 1 <= k <= n, got n ${n}, c ${c}, k ${k}`);
  }
  if (n - c < k) return 1;
  let fail = 1; // C(n - c, k) / C(n, k) = prod_{i = n - c + 1}^{n} (1 - k / i)
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Wilson score interval (z = 1.96: 95%) for k successes in n trials; null when n is 0. */
export function wilson(k: number, n: number, z = 1.96): [number, number] | null {
  if (!(Number.isInteger(k) && Number.isInteger(n) && k >= 0 && k <= n)) throw new Error(`wilson: need integers 0 <= k <= n, got k ${k}, n ${n}`);
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Fisher's exact test of a 2 x 2 table [[a, b], [c, d]] (rows: two groups; columns: success, failure), two-sided:
 * the probability, with the margins fixed, of a table at most as likely as the one observed (the hypergeometric
 * distribution of the top-left cell). Exact for small counts, where a chi-squared test is not.
 */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  if (![a, b, c, d].every((x) => Number.isInteger(x) && x >= 0)) throw new Error(`fisherExact: counts must be integers >= 0, got ${[a, b, c, d].join(', ')}`);
  const N = a + b + c + d;
  const successes = a + c;
  const draws = a + b;
  const observed = hypergeometricPmf(a, N, successes, draws);
  let p = 0;
  for (let x = Math.max(0, draws - (N - successes)); x <= Math.min(draws, successes); x++) {
    const px = hypergeometricPmf(x, N, successes, draws);
    if (px <= observed * (1 + 1e-7)) p += px;
  }
  return Math.min(1, p);
}

/**
 * The exact two-sided sign test of `up` successes against `down` failures (ties left out): with X ~ Bin(up + down,
 * 1/2), p = min(1, 2 P(X <= min(up, down))); 1 when there is nothing to test. On the discordant pairs of two 0/1
 * outcomes per item this is McNemar's exact test (scipy.stats.binomtest(up, up + down) two-sided gives the same).
 */
export function signTest(up: number, down: number): number {
  if (!(Number.isInteger(up) && Number.isInteger(down) && up >= 0 && down >= 0)) throw new Error(`signTest: counts must be integers >= 0, got ${up}, ${down}`);
  const n = up + down;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(up, down), n, 0.5));
}

/** Items on which one model did better than another (up), worse (down), and the sign test of the two counts. */
export interface Flips {
  up: number;
  down: number;
  p: number;
}

/**
 * The flips of `a` against `b`, paired per item: up = items where a[i] > b[i], down = a[i] < b[i], ties left out,
 * p = signTest(up, down). Values may be fractional (a problem's pass rate over samples or seeds): then a flip is any
 * difference in rate; for 0/1 outcomes the counts are McNemar's discordant pairs and p is McNemar's exact test.
 */
export function flips(a: readonly number[], b: readonly number[]): Flips {
  if (a.length !== b.length) throw new Error(`flips: ${a.length} values against ${b.length}; both must cover the same items`);
  const up = a.filter((x, i) => x > b[i]).length;
  const down = a.filter((x, i) => x < b[i]).length;
  return { up, down, p: signTest(up, down) };
}

/**
 * The p-quantile (0..1) of values in any order, linear between order statistics (R's type 7, numpy's and mathjs's
 * default); null with no values. The one quantile rule of the project (latency percentiles, bootstrap intervals, the
 * benchmarks' medians).
 */
export function quantile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  return quantileSorted([...values].sort((a, b) => a - b), p);
}

/** quantile of values already sorted ascending. */
function quantileSorted(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

/**
 * The cluster bootstrap's 95% percentile interval of a statistic of units that come in clusters (cursor positions in
 * files: positions of one file are not independent). Each of `resamples` draws as many clusters as there are, with
 * replacement, and computes `stat(weights)`, where weights[i] is how many times unit i's cluster was drawn (0: left
 * out): e.g. a weighted mean of per-unit differences, or a ratio of weighted sums. Draws where `stat` is null (e.g. a
 * ratio over nothing) are skipped; null when every draw was, or with no units.
 */
export function clusterBootstrap(
  clusters: readonly string[],
  stat: (weights: readonly number[]) => number | null,
  opts: { resamples?: number; seed?: number | string } = {},
): [number, number] | null {
  const resamples = opts.resamples ?? 2000;
  if (!(Number.isInteger(resamples) && resamples >= 1)) throw new Error(`clusterBootstrap: resamples must be an integer >= 1, got ${opts.resamples}`);
  const names = [...new Set(clusters)];
  if (names.length === 0) return null;
  const index = new Map(names.map((c, k) => [c, k]));
  const of = clusters.map((c) => index.get(c)!);
  const random = seedrandom.alea(`cluster-bootstrap:${opts.seed ?? 0}`);
  const values: number[] = [];
  const drawn = new Array<number>(names.length);
  for (let r = 0; r < resamples; r++) {
    drawn.fill(0);
    for (let k = 0; k < names.length; k++) drawn[Math.floor(random() * names.length)] += 1;
    const v = stat(of.map((k) => drawn[k]));
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return [quantileSorted(values, 0.025), quantileSorted(values, 0.975)];
}

/**
 * Two-sided sign-flip permutation test of paired differences (one per unit: arm minus control at one position): under
 * the null hypothesis that the two arms are exchangeable at every unit, each difference is as likely negated, so the
 * p-value is the share of sign assignments whose |sum| is at least the observed one. Zero differences change nothing
 * and are left out; with at most 16 non-zero ones every assignment is enumerated (`exact`), otherwise `resamples`
 * random ones are drawn (p = (1 + as extreme) / (1 + resamples)). Units are flipped independently: the null is about
 * each unit, whatever the clusters they come in.
 */
export function signFlipTest(diffs: readonly number[], opts: { resamples?: number; seed?: number | string } = {}): { p: number; exact: boolean } {
  const d = diffs.filter((x) => x !== 0);
  if (d.some((x) => !Number.isFinite(x))) throw new Error('signFlipTest: differences must be finite numbers');
  const m = d.length;
  if (m === 0) return { p: 1, exact: true };
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  const tol = 1e-9 * d.reduce((s, x) => s + Math.abs(x), 0); // sums equal up to rounding count as extreme
  if (m <= 16) {
    let extreme = 0;
    for (let mask = 0; mask < 1 << m; mask++) {
      let sum = 0;
      for (let i = 0; i < m; i++) sum += mask & (1 << i) ? -d[i] : d[i];
      if (Math.abs(sum) >= observed - tol) extreme += 1;
    }
    return { p: extreme / (1 << m), exact: true };
  }
  const resamples = opts.resamples ?? 10000;
  if (!(Number.isInteger(resamples) && resamples >= 1)) throw new Error(`signFlipTest: resamples must be an integer >= 1, got ${opts.resamples}`);
  const random = seedrandom.alea(`sign-flip:${opts.seed ?? 0}`);
  let extreme = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < m; i++) sum += random() < 0.5 ? -d[i] : d[i];
    if (Math.abs(sum) >= observed - tol) extreme += 1;
  }
  return { p: (1 + extreme) / (1 + resamples), exact: false };
}
