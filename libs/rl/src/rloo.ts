// RLOO's critic-free advantages (REINFORCE Leave-One-Out; Kool et al. 2019, Ahmadian et al. 2024 "Back to Basics",
// TRL's RLOOTrainer): sample k responses per prompt and take as the baseline of each the mean reward of the other
// k - 1,
//   A_i = r_i - (sum_j r_j - r_i) / (k - 1)  =  k / (k - 1) * (r_i - mean(r_group))
// an unbiased baseline (it does not depend on r_i), no value model, and no division by the group's std (unlike GRPO).
// A group whose rewards are all equal gets A = 0. The reward r_i is the sequence's: the score minus the KL penalty
// summed over its tokens (algorithms.ts).

/** rewards [N] with N = groups * k, each group's responses contiguous: [p0 s0..s(k-1), p1 s0.., ...]. */
export function leaveOneOutAdvantages(rewards: readonly number[], k: number): number[] {
  if (!Number.isInteger(k) || k < 2) throw new Error(`leaveOneOutAdvantages: k must be an integer >= 2, got ${k}`);
  if (rewards.length % k !== 0) throw new Error(`leaveOneOutAdvantages: ${rewards.length} rewards do not split into groups of ${k}`);
  const bad = rewards.findIndex((r) => !Number.isFinite(r));
  if (bad >= 0) throw new Error(`leaveOneOutAdvantages: reward ${bad} is ${rewards[bad]}`);
  return rewards.map((r, i) => {
    const g = Math.floor(i / k) * k;
    const sum = rewards.slice(g, g + k).reduce((s, x) => s + x, 0);
    return r - (sum - r) / (k - 1);
  });
}
