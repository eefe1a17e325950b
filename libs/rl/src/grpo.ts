// GRPO's critic-free advantages (Shao et al. 2024): sample n responses per prompt and compare each one with
// its siblings,
//   A_i = (r_i - mean(r_group)) / (std(r_group) + eps)         (std unbiased, eps 1e-4, as TRL)
// so no value model is needed. A group whose rewards are all equal (all pass, all fail) has A = 0 for every
// member: no policy gradient, but by default its tokens stay in the update for the KL term (and the token count of
// the mean), as TRL does. DAPO's dynamic sampling drops them instead (`dropUniformGroups` in the settings): the
// update is spent on the groups that carry a signal, and the policy is held back on the others only by the clip.

export interface GroupAdvantageOptions {
  /** Divide by the group's std (default true); false keeps only the mean baseline (Dr. GRPO). */
  scaleByStd?: boolean;
  eps?: number;
  /** A group whose reward spread (max - min) is at most this counts as zero-variance. */
  zeroVarianceTol?: number;
}

export interface GroupAdvantages {
  /** [N] one advantage per response (0 in zero-variance groups). */
  advantages: number[];
  groups: number;
  /** Groups whose rewards were all equal (advantage 0). */
  zeroVarianceGroups: number;
  /** [groups] whether each group's rewards were all equal. */
  uniform: boolean[];
}

/** rewards [N] with N = groups * groupSize, each group's responses contiguous: [p0 s0..s(n-1), p1 s0.., ...]. */
export function groupAdvantages(rewards: readonly number[], groupSize: number, opts: GroupAdvantageOptions = {}): GroupAdvantages {
  const { scaleByStd = true, eps = 1e-4, zeroVarianceTol = 1e-6 } = opts;
  if (!Number.isInteger(groupSize) || groupSize < 2) throw new Error(`groupAdvantages: groupSize must be an integer >= 2, got ${groupSize}`);
  if (rewards.length % groupSize !== 0) {
    throw new Error(`groupAdvantages: ${rewards.length} rewards do not split into groups of ${groupSize}`);
  }
  const bad = rewards.findIndex((r) => !Number.isFinite(r));
  if (bad >= 0) throw new Error(`groupAdvantages: reward ${bad} is ${rewards[bad]}`);
  const advantages = new Array<number>(rewards.length).fill(0);
  const groups = rewards.length / groupSize;
  const uniform = new Array<boolean>(groups).fill(false);
  for (let g = 0; g < groups; g++) {
    const r = rewards.slice(g * groupSize, (g + 1) * groupSize);
    if (Math.max(...r) - Math.min(...r) <= zeroVarianceTol) {
      uniform[g] = true;
      continue;
    }
    const mean = r.reduce((s, x) => s + x, 0) / groupSize;
    const std = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / (groupSize - 1));
    r.forEach((x, i) => (advantages[g * groupSize + i] = scaleByStd ? (x - mean) / (std + eps) : x - mean));
  }
  return { advantages, groups, zeroVarianceGroups: uniform.filter(Boolean).length, uniform };
}
