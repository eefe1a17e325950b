// Metric names as TRL's PPO trainers log them (users compare runs and read guides by these names), and
// the helpers that compute the rollout-side ones from host arrays.
import { sequenceKl } from './kl';
import { responseLengths } from './response-mask';
import { maskedMoments } from './whiten';

export const METRICS = {
  // the objective: scores, and how far the policy moved from the reference
  kl: 'objective/kl', // mean over responses of sum_t (logp - refLogp)
  klCoef: 'objective/kl_coef',
  entropy: 'objective/entropy', // mean over responses of sum_t H(policy at t)
  nonScoreReward: 'objective/non_score_reward', // mean of -klCoef * kl per response
  rlhfReward: 'objective/rlhf_reward', // scores + non_score_reward
  scores: 'objective/scores', // mean final score (after missing-EOS penalty and clipping)
  rewardMean: 'env/reward_mean', // as objective/scores (classic TRL's name)
  rewardStd: 'env/reward_std',
  // the update, averaged over the minibatches that ran
  lossPolicy: 'ppo/loss/policy',
  lossValue: 'ppo/loss/value',
  lossTotal: 'ppo/loss/total',
  lossKl: 'ppo/loss/kl', // GRPO: the k3 KL term in the loss (before its coefficient)
  clipfrac: 'ppo/policy/clipfrac',
  approxKl: 'ppo/policy/approxkl',
  entropyAvg: 'ppo/policy/entropy_avg', // per-token entropy
  vpred: 'ppo/val/vpred',
  valClipfrac: 'ppo/val/clipfrac',
  varExplained: 'ppo/val/var_explained',
  returnsMean: 'ppo/returns/mean',
  returnsVar: 'ppo/returns/var',
  advantagesMean: 'ppo/advantages/mean', // before whitening
  learningRate: 'ppo/learning_rate',
  gradNorm: 'ppo/grad_norm',
  updates: 'ppo/updates', // optimizer steps taken in this PPO step
  earlyStopped: 'ppo/early_stopped', // 1 when approx KL passed the bound and the epochs were cut short
  valueWarmup: 'ppo/value_warmup', // 1 while only the value head learns (--value-warmup)
  responseLen: 'tokens/responses_len_mean',
  missingEos: 'tokens/missing_eos_frac',
  // mean |sampler log-prob - training forward log-prob| over response tokens: near 0 unless generation and
  // training disagree (the cause of negative KL estimates the notes warn about)
  logprobMismatch: 'tokens/logprob_mismatch',
  // the trainer's policy version minus the version of the engine that sampled each rollout (0 when publishing is synchronous)
  policyLagMean: 'engine/policy_version_lag_mean',
  policyLagMax: 'engine/policy_version_lag_max',
  // mean truncated importance weight over response tokens (--rollout-is token-truncate)
  isWeightMean: 'engine/is_weight_mean',
  groups: 'grpo/groups',
  zeroVarianceGroups: 'grpo/zero_variance_groups', // groups with equal rewards: advantage 0, still in the KL term
  // wall time of the iteration's phases, in seconds
  timeRollout: 'time/rollout_s', // sampling + the no-gradient forward passes (policy, reference)
  timeScore: 'time/score_s', // reward model + sandbox
  timeUpdate: 'time/update_s', // the PPO epochs
} as const;

export type MetricRecord = Record<string, number>;

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Population standard deviation (as torch.std(unbiased=False)); 0 for fewer than two values. */
export function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
}

export interface RolloutSummary {
  /** [B] final scores. */
  scores: readonly number[];
  /** [B][T] logp - refLogp on response tokens (0 on padding). */
  kl: readonly (readonly number[])[];
  /** [B][T] per-token policy entropy (0 on padding). */
  entropy: readonly (readonly number[])[];
  mask: readonly (readonly number[])[];
  endedWithEos: readonly boolean[];
  klCoef: number;
  /** PPO only: old values, returns and raw advantages [B][T]. */
  values?: readonly (readonly number[])[];
  returns?: readonly (readonly number[])[];
  advantages?: readonly (readonly number[])[];
}

/** The metrics known once the rollout is scored (before the update). */
export function rolloutMetrics(r: RolloutSummary): MetricRecord {
  const seqKl = sequenceKl(r.kl);
  const nonScore = seqKl.map((k) => -r.klCoef * k);
  const lengths = responseLengths(r.mask, 'rolloutMetrics');
  const out: MetricRecord = {
    [METRICS.kl]: mean(seqKl),
    [METRICS.klCoef]: r.klCoef,
    [METRICS.entropy]: mean(r.entropy.map((row) => row.reduce((s, h) => s + h, 0))),
    [METRICS.entropyAvg]: maskedMoments(r.entropy, r.mask).mean,
    [METRICS.nonScoreReward]: mean(nonScore),
    [METRICS.rlhfReward]: mean(r.scores.map((s, i) => s + nonScore[i])),
    [METRICS.scores]: mean(r.scores),
    [METRICS.rewardMean]: mean(r.scores),
    [METRICS.rewardStd]: std(r.scores),
    [METRICS.responseLen]: mean(lengths),
    [METRICS.missingEos]: mean(r.endedWithEos.map((e) => (e ? 0 : 1))),
  };
  if (r.returns && r.values) {
    const ret = maskedMoments(r.returns, r.mask);
    const residual = r.returns.map((row, b) => row.map((x, t) => x - r.values![b][t]));
    out[METRICS.returnsMean] = ret.mean;
    out[METRICS.returnsVar] = ret.variance;
    out[METRICS.varExplained] = ret.variance > 0 ? 1 - maskedMoments(residual, r.mask).variance / ret.variance : 0;
  }
  if (r.advantages) out[METRICS.advantagesMean] = maskedMoments(r.advantages, r.mask).mean;
  return out;
}

/** Running means of per-minibatch metrics (e.g. Trainer.step's aux, already named with METRICS). */
export class MetricMeans {
  private sums = new Map<string, number>();
  private counts = new Map<string, number>();

  add(values: Readonly<Record<string, number>>): void {
    // NaN is kept on purpose: a NaN loss must show in the metrics (as null in JSON), not vanish.
    for (const [k, v] of Object.entries(values)) {
      this.sums.set(k, (this.sums.get(k) ?? 0) + v);
      this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    }
  }

  means(): MetricRecord {
    return Object.fromEntries([...this.sums].map(([k, s]) => [k, s / this.counts.get(k)!]));
  }
}
