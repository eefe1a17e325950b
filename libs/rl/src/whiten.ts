// Advantage whitening: shift and scale the advantages of a batch to mean 0 and variance 1, counting only
// real response tokens (padding keeps 0). As in TRL's masked_whiten: unbiased variance, eps 1e-8, and an
// option to keep the original mean (used for rewards, where the sign carries meaning).
import { checkRows } from './response-mask';

/** Mean and unbiased (n - 1) variance of the entries where mask is 1. */
export function maskedMoments(x: readonly (readonly number[])[], mask: readonly (readonly number[])[]): { mean: number; variance: number; count: number } {
  checkRows('maskedMoments', 'x', x, mask);
  let count = 0;
  let sum = 0;
  x.forEach((row, b) => row.forEach((v, t) => {
    if (mask[b][t]) {
      count++;
      sum += v;
    }
  }));
  if (count === 0) return { mean: 0, variance: 0, count };
  const mean = sum / count;
  let sq = 0;
  x.forEach((row, b) => row.forEach((v, t) => {
    if (mask[b][t]) sq += (v - mean) ** 2;
  }));
  // One value has no spread: variance 0 rather than 0/0.
  return { mean, variance: count > 1 ? sq / (count - 1) : 0, count };
}

export interface WhitenOptions {
  /** false: scale only, then add the mean back (default true: the result has mean 0). */
  shiftMean?: boolean;
  eps?: number;
}

/** (x - mean) / sqrt(var + eps) on real tokens, 0 on padding. */
export function whiten(x: readonly (readonly number[])[], mask: readonly (readonly number[])[], opts: WhitenOptions = {}): number[][] {
  const { shiftMean = true, eps = 1e-8 } = opts;
  const { mean, variance } = maskedMoments(x, mask);
  const scale = 1 / Math.sqrt(variance + eps);
  return x.map((row, b) => row.map((v, t) => (mask[b][t] ? (v - mean) * scale + (shiftMean ? 0 : mean) : 0)));
}
