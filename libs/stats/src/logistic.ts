// Logistic regression with an L2 penalty, and its k-fold cross-validation: the fit on standardised features by
// Newton's method (IRLS), the probability under a fit, the folds (outcome i in fold i mod k, an event-loop turn before
// each so that a server answers requests between fits), the out-of-fold log-likelihood and the penalty it chooses.
// Used by the online service's show gate (libs/online gate.ts).
import { lusolve } from 'mathjs';

/** A fitted logistic regression: the standardisation of the features, the weights (bias first), what it was fitted on. */
export interface LogisticFit {
  mean: number[];
  std: number[];
  weights: number[];
  /** Outcomes it was fitted on, and how many of them were positive. */
  n: number;
  accepted: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** P(y = 1) of features x under a fit. */
export function logisticProbability(m: Pick<LogisticFit, 'mean' | 'std' | 'weights'>, x: readonly number[]): number {
  let z = m.weights[0];
  for (let j = 0; j < x.length; j++) z += m.weights[j + 1] * ((x[j] - m.mean[j]) / m.std[j]);
  return sigmoid(z);
}

/**
 * L2-regularised logistic regression (the bias unpenalised) on standardised features by Newton's method:
 * w <- w + (X' W X + l2 I)^-1 (X' (y - p) - l2 w), W = diag(p (1 - p)). Converges in a few steps at these sizes.
 */
export function fitLogistic(xs: readonly (readonly number[])[], ys: readonly boolean[], l2: number): LogisticFit {
  const n = xs.length;
  const d = xs[0].length;
  const D = d + 1; // with the bias
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((s, x) => s + x[j], 0) / n);
  const std = mean.map((m, j) => Math.sqrt(xs.reduce((s, x) => s + (x[j] - m) ** 2, 0) / n) || 1); // constant feature: its weight stays 0
  const z = new Float64Array(n * D); // row i: [1, standardised x_i]
  xs.forEach((x, i) => {
    z[i * D] = 1;
    for (let j = 0; j < d; j++) z[i * D + 1 + j] = (x[j] - mean[j]) / std[j];
  });
  const w = new Array(D).fill(0);
  const H = new Float64Array(D * D);
  for (let iter = 0; iter < 25; iter++) {
    H.fill(0);
    const g = w.map((wj, j) => (j > 0 ? -l2 * wj : 0));
    for (let i = 0; i < n; i++) {
      const o = i * D;
      let s = 0;
      for (let j = 0; j < D; j++) s += z[o + j] * w[j];
      const p = sigmoid(s);
      const r = (ys[i] ? 1 : 0) - p;
      const h = Math.max(p * (1 - p), 1e-9);
      for (let a = 0; a < D; a++) {
        const za = z[o + a];
        g[a] += za * r;
        const hz = h * za;
        for (let b = a; b < D; b++) H[a * D + b] += hz * z[o + b]; // the upper triangle; mirrored below
      }
    }
    const M = Array.from({ length: D }, (_, a) => Array.from({ length: D }, (_, b) => (a <= b ? H[a * D + b] : H[b * D + a]) + (a === b && a > 0 ? l2 : 0)));
    const step = (lusolve(M, g) as number[][]).map((row) => row[0]);
    let moved = 0;
    for (let j = 0; j < D; j++) {
      w[j] += step[j];
      moved = Math.max(moved, Math.abs(step[j]));
    }
    if (moved < 1e-8) break;
  }
  return { mean, std, weights: w, n, accepted: ys.filter(Boolean).length };
}

/**
 * An event-loop turn between two fits: a fit is synchronous (up to ~45 ms on 2000 outcomes of 26 features), and a
 * cross-validation is many of them, so a server answers its requests in between.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The k folds of a cross-validation over n outcomes (fold of outcome i: i mod k), an event-loop turn before each. */
export async function* kFolds(n: number, k: number): AsyncGenerator<{ fold: number[]; rest: number[] }> {
  for (let f = 0; f < k; f++) {
    await turn();
    const fold: number[] = [];
    const rest: number[] = [];
    for (let i = 0; i < n; i++) (i % k === f ? fold : rest).push(i);
    yield { fold, rest };
  }
}

/** Mean out-of-fold log-likelihood of the fit with penalty l2 (k folds). */
export async function cvLogLikelihood(xs: number[][], ys: boolean[], l2: number, k = 5): Promise<number> {
  let sum = 0;
  for await (const { fold, rest } of kFolds(xs.length, k)) {
    const m = fitLogistic(rest.map((i) => xs[i]), rest.map((i) => ys[i]), l2);
    for (const i of fold) {
      const p = Math.min(Math.max(logisticProbability(m, xs[i]), 1e-9), 1 - 1e-9);
      sum += Math.log(ys[i] ? p : 1 - p);
    }
  }
  return sum / xs.length;
}

/** The penalty of `grid` with the best cross-validated log-likelihood (the first of equals). */
export async function chooseL2ByCv(xs: number[][], ys: boolean[], grid: readonly number[]): Promise<number> {
  const scores: number[] = [];
  for (const v of grid) scores.push(await cvLogLikelihood(xs, ys, v));
  return grid[scores.indexOf(Math.max(...scores))];
}
