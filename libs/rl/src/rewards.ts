// Turning scores into per-token rewards for PPO (TRL's recipe):
//   reward[t] = -klCoef * (logp[t] - refLogp[t])         at every response token (a KL penalty per step)
//   reward[last] += score                                 the sequence's score at its last real token (the EOS)
// and the two fixes applied to scores before that: a penalty for responses that never emitted EOS (they were
// cut at the length limit, and a reward model reads them at a place it was not trained on), and clipping
// (a reward model outside its training range should not dominate the update; DeepSpeed-Chat clips to +-5).
import { checkRows, responseLengths } from './response-mask';

export interface MissingEosOptions {
  /** subtract: score - value (TRL's missing_eos_penalty); replace: score := value (TRL's penalty_reward_value). */
  mode: 'subtract' | 'replace';
  value: number;
}

/** Scores [B] with the missing-EOS rule applied to rows whose response did not end with EOS. */
export function applyMissingEosPenalty(scores: readonly number[], endedWithEos: readonly boolean[], opts: MissingEosOptions): number[] {
  if (scores.length !== endedWithEos.length) {
    throw new Error(`applyMissingEosPenalty: ${scores.length} scores but ${endedWithEos.length} EOS flags`);
  }
  if (opts.mode !== 'subtract' && opts.mode !== 'replace') throw new Error(`applyMissingEosPenalty: unknown mode "${String(opts.mode)}"`);
  return scores.map((s, i) => (endedWithEos[i] ? s : opts.mode === 'subtract' ? s - opts.value : opts.value));
}

/** Scores clipped to [-limit, limit]; limit 0 or Infinity = no clipping. */
export function clipScores(scores: readonly number[], limit: number): number[] {
  if (!(limit >= 0)) throw new Error(`clipScores: limit must be >= 0 (0 = off), got ${limit}`);
  if (limit === 0 || limit === Infinity) return [...scores];
  return scores.map((s) => Math.min(limit, Math.max(-limit, s)));
}

export interface TokenRewardsInput {
  /** [B][T] log-probs of the response tokens under the policy that sampled them (right padded). */
  logprobs: readonly (readonly number[])[];
  /** [B][T] the same tokens under the frozen reference model. */
  refLogprobs: readonly (readonly number[])[];
  /** [B][T] 1 = response token. */
  mask: readonly (readonly number[])[];
  /** [B] one score per response (after the missing-EOS rule and clipping). */
  scores: readonly number[];
  klCoef: number;
}

export interface TokenRewards {
  /** [B][T] the rewards GAE runs on (0 on padding). */
  rewards: number[][];
  /** [B][T] logp - refLogp on real tokens (the k1 KL estimate; 0 on padding). */
  kl: number[][];
  /** [B] sum over the response of -klCoef * kl (TRL's objective/non_score_reward, per sequence). */
  nonScoreReward: number[];
}

export function perTokenRewards(i: TokenRewardsInput): TokenRewards {
  const fn = 'perTokenRewards';
  checkRows(fn, 'logprobs', i.logprobs, i.mask);
  checkRows(fn, 'refLogprobs', i.refLogprobs, i.mask);
  if (i.scores.length !== i.mask.length) throw new Error(`${fn}: ${i.scores.length} scores for ${i.mask.length} responses`);
  if (!Number.isFinite(i.klCoef)) throw new Error(`${fn}: klCoef must be finite, got ${i.klCoef}`);
  const lengths = responseLengths(i.mask, fn);
  const kl = i.mask.map((row, b) => row.map((m, t) => (m ? i.logprobs[b][t] - i.refLogprobs[b][t] : 0)));
  const rewards = kl.map((row, b) => row.map((k, t) => (i.mask[b][t] ? -i.klCoef * k : 0)));
  lengths.forEach((n, b) => {
    if (n === 0) throw new Error(`${fn}: response ${b} has no tokens; there is no token to put its score on`);
    rewards[b][n - 1] += i.scores[b];
  });
  const nonScoreReward = kl.map((row) => -i.klCoef * row.reduce((s, k) => s + k, 0));
  return { rewards, kl, nonScoreReward };
}
