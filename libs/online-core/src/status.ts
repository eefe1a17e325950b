// What the online service reports of itself: OnlineStatus, the answer of GET /api/training/status. The service
// (@rlhf-code/online) builds it, the live page (@rlhf-code/online-page) draws it, the learning experiment
// (@rlhf-code/online-bench) reads its gate; the parts other libs fill in are typed here too: the show gate's block
// (@rlhf-code/online-gate) and the upstream event counts (@rlhf-code/online-feedback acceptance-counts.ts).
import type { CountsWithRates } from '@rlhf-code/continue';

export interface OnlineStatus {
  policy_version: number;
  model: string;
  events_received: number;
  events_trained: number;
  events_pending: number;
  events_skipped: number;
  events_discarded: number;
  duplicates: number;
  updates: number;
  discarded_updates: number;
  training: boolean;
  /**
   * How far behind training is: the untrained events (events_pending), the updates they make, and how long ago the
   * oldest of them was received (null: none). Outcomes that arrive faster than updates consume them wait on disk.
   */
  backlog: { events: number; updates: number; oldest_s: number | null };
  /** Completion requests answered at once with an empty completion: every generation slot was taken (completion.maxConcurrent). */
  completions_shed: number;
  batch_size: number;
  ab_fraction: number;
  acceptance_by_version: Record<string, CountsWithRates>;
  acceptance_by_arm: Record<string, CountsWithRates>;
  /** Outcomes that matched no served completion (e.g. served before a restart, or never by this server). */
  unmatched_outcomes: number;
  /**
   * Upstream Continue's dev-data events (its config.yaml `data:` destination), see UpstreamCounts: `autocomplete`
   * outcomes with code (trained like the fork's), `no_code` ones (level noCode: stored, counted in events_received
   * and events_skipped, never trained on), `ignored_events` of other types per name (not stored; since this process
   * started).
   */
  upstream: UpstreamCounts;
  last_losses: { update: number; policy_version: number | null; loss: number; kl: number; clipfrac: number; reward_mean: number; discarded: string | null }[];
  last_error: string | null;
  gate: GateStatus;
}

/**
 * The show gate (@rlhf-code/online-gate gate.ts): fitted or not, validated or not (active = enabled, fitted and
 * validated), on how many outcomes, its cross-validation, its threshold on P(accept) and what it did.
 */
export interface GateStatus {
  enabled: boolean;
  active: boolean;
  outcomes: number;
  validated: boolean | null;
  validation: Validation | null;
  threshold: number | null;
  /** The L2 penalty of the fit (chosen by cross-validation unless configured). */
  l2: number | null;
  judged: number;
  hidden: number;
  explored: number;
  weights: Record<string, number> | null;
}

/** Out-of-sample outcomes of the gate's decision, pooled over the folds, and Fisher's p of hidden vs shown. */
export interface Validation {
  shown: number;
  shown_accepted: number;
  hidden: number;
  hidden_accepted: number;
  p: number;
}

/**
 * What upstream Continue posted to its `data:` destination (its dev-data events):
 *   autocomplete    autocomplete outcomes with their code (level all), stored; matched and trained like the fork's
 *   no_code         autocomplete outcomes without code (level noCode), stored with skip 'noCode': never matched or
 *                   trained on (set `level: all` in Continue's `data:` entry to train on them)
 *   ignored_events  other event types (chatInteraction, editOutcome, toolUsage, ...) per name: answered 200, not
 *                   stored, so counted since this process started only (the other two are rebuilt from the log)
 * Duplicates (a completionId seen before) are not counted here.
 */
export interface UpstreamCounts {
  autocomplete: number;
  no_code: number;
  ignored_events: Record<string, number>;
}
