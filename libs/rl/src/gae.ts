// Generalised advantage estimation (Schulman et al. 2016) over right-padded responses:
//   delta[t] = r[t] + gamma * V[t+1] - V[t]          (V after the last real token is 0: the episode ends)
//   A[t]     = delta[t] + gamma * lambda * A[t+1]    computed backwards from the last real token
//   returns  = A + V                                 (the value targets)
// Padding positions get A = returns = 0.
import { checkRows, responseLengths } from './response-mask';

export interface GaeResult {
  advantages: number[][];
  returns: number[][];
}

export function computeGae(
  rewards: readonly (readonly number[])[],
  values: readonly (readonly number[])[],
  mask: readonly (readonly number[])[],
  gamma: number,
  lambda: number,
): GaeResult {
  checkRows('computeGae', 'rewards', rewards, mask);
  checkRows('computeGae', 'values', values, mask);
  for (const [name, x] of [['gamma', gamma], ['lambda', lambda]] as const) {
    if (!(x >= 0 && x <= 1)) throw new Error(`computeGae: ${name} must be in [0, 1], got ${x}`);
  }
  const lengths = responseLengths(mask, 'computeGae');
  const advantages = mask.map((row) => new Array<number>(row.length).fill(0));
  const returns = mask.map((row) => new Array<number>(row.length).fill(0));
  lengths.forEach((n, b) => {
    let next = 0; // A[t+1]
    for (let t = n - 1; t >= 0; t--) {
      const nextValue = t + 1 < n ? values[b][t + 1] : 0;
      const delta = rewards[b][t] + gamma * nextValue - values[b][t];
      next = delta + gamma * lambda * next;
      advantages[b][t] = next;
      returns[b][t] = next + values[b][t];
    }
  });
  return { advantages, returns };
}
