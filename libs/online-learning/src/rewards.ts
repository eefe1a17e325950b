// Feedback -> reward -> advantage (one number per event, broadcast over its completion tokens).
//
// cursor (default; the scheme Cursor described for its Tab model), with show threshold p:
//   accepted = 1 - p     rejected = -p     silent (the server returned nothing) = 0
//   Showing a suggestion has positive expected reward only when P(accept) > p, so the policy learns to suggest
//   when it is likely right and to stay silent otherwise. Advantage (cursorBaseline): batch_mean (default) =
//   reward - the batch's mean reward, silent samples included: REINFORCE with a baseline, where a silent sample
//   (trained as "stop token first") in a batch of rejections gets a positive advantage. Continue samples at
//   temperature 0.01, so the served completions are near-greedy rather than samples of the policy: without a
//   baseline the silent samples carry no gradient and the only signal is the push-down of rejected suggestions,
//   which on a model that is never accepted made it suggest *more* often (more rejected suggestions end in a
//   pushed-down stop token). none = the reward itself (rejections always push down, even in all-rejected batches).
// binary (RLinf's rewards): accepted = 1, rejected = 0, with a running-mean baseline b subtracted, because without
//   one a rejection (reward 0) gives no gradient at all. b is the exponential moving average of the mean reward of
//   past batches (momentum m: b <- m b + (1 - m) mean); the first batch uses its own mean. Silent samples get
//   advantage 0 in this scheme (staying silent is neither rewarded nor punished) and do not enter the mean.
import type { RewardConfig } from '@rlhf-code/online-core';
import type { LoggedEvent } from '@rlhf-code/online-feedback';

export type EventKind = 'accepted' | 'rejected' | 'silent';

export function eventKind(e: LoggedEvent): EventKind {
  if (e.source === 'server') return 'silent';
  return e.outcome.accepted ? 'accepted' : 'rejected';
}

/** The reward of one event before any baseline. */
export function reward(kind: EventKind, cfg: RewardConfig): number {
  if (kind === 'silent') return 0;
  if (cfg.scheme === 'cursor') return kind === 'accepted' ? 1 - cfg.p : -cfg.p;
  return kind === 'accepted' ? 1 : 0;
}

export interface BatchRewards {
  rewards: number[];
  advantages: number[];
  /** The baseline subtracted in this batch (cursor: the batch mean, or 0 with cursorBaseline none). */
  baseline: number;
}

export class RewardScheme {
  /** binary scheme's running baseline; null until the first batch. Saved in checkpoints. */
  baseline: number | null;

  constructor(
    readonly cfg: RewardConfig,
    baseline: number | null = null,
  ) {
    this.baseline = baseline;
  }

  /** Rewards and advantages of one batch; advances the running baseline (binary). */
  batch(kinds: EventKind[]): BatchRewards {
    const rewards = kinds.map((k) => reward(k, this.cfg));
    if (this.cfg.scheme === 'cursor') {
      if (this.cfg.cursorBaseline === 'none') return { rewards, advantages: rewards.slice(), baseline: 0 };
      const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
      return { rewards, advantages: rewards.map((r) => r - mean), baseline: mean };
    }
    const scored = rewards.filter((_, i) => kinds[i] !== 'silent');
    if (scored.length === 0) return { rewards, advantages: rewards.map(() => 0), baseline: this.baseline ?? 0 };
    const mean = scored.reduce((a, b) => a + b, 0) / scored.length;
    const b = this.baseline ?? mean;
    const advantages = rewards.map((r, i) => (kinds[i] === 'silent' ? 0 : r - b));
    const m = this.cfg.baselineMomentum;
    this.baseline = m * b + (1 - m) * mean;
    return { rewards, advantages, baseline: b };
  }
}
