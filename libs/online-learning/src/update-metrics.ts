// What an update reports: its metrics (one line of <stateDir>/metrics.jsonl, the status' last losses, the live page's
// updates), and the new weights or why it was discarded. The outcome update (online-trainer.ts) fills the first part;
// objective user-rm / both adds the reward model of the user (user-reward-model.ts), the RL steps against it and
// hindsight's counts (user-rm-rl.ts).
import type { HostTensor } from '@rlhf-code/model';
import type { UserRmReport } from './user-reward-model';

/**
 * nan: a non-finite loss or gradient; kl: the update moved the policy too far; empty: no event had a token to train;
 * no-rm (objective user-rm): the reward model of the user is not fitted yet, so there was nothing to optimise against
 * (the events still went into the reward model).
 */
export type DiscardReason = 'nan' | 'kl' | 'empty' | 'no-rm';

export interface UpdateMetrics {
  events: number;
  tokens: number;
  accepted: number;
  rejected: number;
  silent: number;
  reward_mean: number;
  /** accepted / (accepted + rejected) in this batch; null when it has no outcomes. */
  acceptance: number | null;
  baseline: number;
  loss: number;
  clipfrac: number;
  /** KL(old || new) on this batch after the update: 0.5 * mean (logp_new - logp_old)^2 over completion tokens. */
  kl: number;
  /** k3 KL to the starting model before the update (null when klCoef is 0: not computed). */
  kl_ref: number | null;
  grad_norm: number;
  lr: number;
  optimizer_steps: number;
  discarded: DiscardReason | null;
  duration_s: number;
  /** Objective user-rm / both: the reward model of the user after this batch (user-reward-model.ts). */
  rm?: UserRmReport | null;
  /** Objective user-rm / both: the RL steps against it (user-rm-rl.ts), one entry per step. */
  rl?: RlStepMetrics[];
  /** userRm.hindsight: outcomes matched with what was written at their cursor, waiting, dropped; cursors known. */
  hindsight?: HindsightReport | null;
}

export interface UpdateResult {
  /** New weights to publish; null when the update was discarded. */
  weights: Map<string, HostTensor> | null;
  metrics: UpdateMetrics;
}

/** What one RL step did (a line of the update's metrics). */
export interface RlStepMetrics {
  positions: number;
  rollouts: number;
  /** Rollouts Continue would show nothing of. */
  blank: number;
  /** Mean non-blank lines of the displayed rollouts. */
  lines_mean: number;
  /** Mean reward over the rollouts, and mean P(accept) of the displayed ones (null: none displayed). */
  reward_mean: number;
  p_mean: number | null;
  /** Groups left out: all their rewards equal. */
  uniform_groups: number;
  trained_rows: number;
  tokens: number;
  loss: number;
  kl: number;
  kl_ref: number | null;
  grad_norm: number;
  discarded: DiscardReason | null;
  duration_s: number;
}

/** Hindsight's counts, in each update's metrics: outcomes matched, waiting, given up on; cursors known. */
export interface HindsightReport {
  matched: number;
  waiting: number;
  dropped: number;
  known_cursors: number;
}
