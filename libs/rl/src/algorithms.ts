// The RL algorithms, each one record defined here once: what it is, how many responses it samples per prompt,
// whether it trains a critic (a value head), where its KL to the reference goes, its advantage function and its own
// settings. The settings schema (settings.ts: one variant per record), --help, --print-config, `rl algos`,
// run_all.sh's RL_ALGOS check and the trainer's branches (rl-trainer.ts) all read this list, so a new algorithm is
// its advantage maths (+ test), its record below, and a section of the run_all presets.
import { z } from 'zod';
import { computeGae } from './gae';
import { groupAdvantages } from './grpo';
import { METRICS, MetricRecord } from './metrics';
import { RFT_FIELDS } from './rft-settings';
import { leaveOneOutAdvantages } from './rloo';
import { whiten } from './whiten';

/**
 * policy-gradient: rollout -> advantages -> clipped updates, run by RlTrainer. rejection-sampling: sample, keep what
 * passes, fine-tune on it (expert iteration); such a record brings its own runner.
 */
export type AlgorithmKind = 'policy-gradient' | 'rejection-sampling';

/**
 * Where the KL to the frozen reference goes. reward: -klCoef * k1 per response token in the per-token reward (PPO
 * runs GAE on it; a sequence-level algorithm sums it into the response's reward). loss: klCoef * k3 per token in the
 * loss, the reward left as the score (GRPO).
 */
export type KlPlacement = 'reward' | 'loss';

/** What an advantage function sees of one rollout: N responses, R token positions (right padded). */
export interface AdvantageInput {
  /** [N] one score per response (after the missing-EOS penalty and clipping). */
  scores: readonly number[];
  /** [N][R] per-token rewards: the score at the last response token, minus klCoef * k1 at every token when kl is 'reward'. */
  rewards: readonly (readonly number[])[];
  /** [N][R] the critic's values (null without a critic). */
  values: readonly (readonly number[])[] | null;
  /** [N][R] 1 = response token. */
  mask: readonly (readonly number[])[];
}

export interface AdvantageResult {
  /** [N][R] what the clipped update weights each token's ratio by (0 on padding). */
  advantages: number[][];
  /** [N][R] what ppo/advantages/mean reports (PPO: before whitening); default `advantages`. */
  logged?: number[][];
  /** [N][R] the critic's targets (critic algorithms). */
  returns?: number[][];
  /** The rows the update trains on; default all (GRPO with dropUniformGroups: the groups with a reward spread). */
  rows?: number[];
  /** The algorithm's own metrics of the rollout. */
  metrics?: MetricRecord;
}

type Settings<F extends z.ZodRawShape> = z.output<z.ZodObject<F>>;

interface AlgorithmCommon<N extends string, F extends z.ZodRawShape> {
  name: N;
  /** One line: --help, `rl algos`. */
  description: string;
  /** Its own settings (zod fields with defaults and descriptions), beside those every RL run shares (settings.ts). */
  fields: F;
  /** Responses sampled per prompt (1: PPO; a group: GRPO, RLOO), the copies of a prompt next to each other. */
  samplesPerPrompt(s: Settings<F>): number;
}

export interface PolicyGradientAlgorithm<N extends string = string, F extends z.ZodRawShape = z.ZodRawShape> extends AlgorithmCommon<N, F> {
  kind: 'policy-gradient';
  /** Trains a value head on the policy's hidden states (its settings: CRITIC_FIELDS, in `fields`). */
  critic: boolean;
  kl: KlPlacement;
  advantages(input: AdvantageInput, s: Settings<F>): AdvantageResult;
}

export interface RejectionSamplingAlgorithm<N extends string = string, F extends z.ZodRawShape = z.ZodRawShape> extends AlgorithmCommon<N, F> {
  kind: 'rejection-sampling';
}

export type RlAlgorithm<N extends string = string, F extends z.ZodRawShape = z.ZodRawShape> = PolicyGradientAlgorithm<N, F> | RejectionSamplingAlgorithm<N, F>;

const int = () => z.number().int();

/** The settings of a critic (a value head): in the fields of every record with `critic: true`. */
export const CRITIC_FIELDS = {
  cliprangeValue: z.number().positive().default(0.2).describe('value clip around the rollout values'),
  vfCoef: z.number().nonnegative().default(0.1).describe('weight of the value loss'),
  valueWarmup: int().nonnegative().default(0).describe('the first n iterations train only the value head (policy frozen), so the advantages mean something when the policy starts to move'),
  valueWarmupLr: z.number().positive().default(1e-3).describe('learning rate of the value head during --value-warmup'),
};
export type CriticSettings = Settings<typeof CRITIC_FIELDS>;

/** One advantage per response, on each of its tokens. */
const onTokens = (perResponse: readonly number[], mask: AdvantageInput['mask']) => mask.map((row, b) => row.map((m) => (m ? perResponse[b] : 0)));

/** The identity with the record's types inferred (name literal, fields). */
const policyGradient = <N extends string, F extends z.ZodRawShape>(a: PolicyGradientAlgorithm<N, F>) => a;

const ppo = policyGradient({
  name: 'ppo',
  description: 'PPO (Schulman et al. 2017, as TRL): per-token KL penalty in the reward, GAE advantages from a value head',
  kind: 'policy-gradient',
  critic: true,
  kl: 'reward',
  fields: {
    ...CRITIC_FIELDS,
    gamma: z.number().min(0).max(1).default(1).describe('discount'),
    lam: z.number().min(0).max(1).default(0.95).describe('GAE lambda'),
    whitenAdvantages: z.boolean().default(true).describe('normalise advantages to mean 0, variance 1'),
  },
  samplesPerPrompt: () => 1,
  advantages({ rewards, values, mask }, s) {
    const gae = computeGae(rewards, values!, mask, s.gamma, s.lam);
    return { advantages: s.whitenAdvantages ? whiten(gae.advantages, mask) : gae.advantages, logged: gae.advantages, returns: gae.returns };
  },
});

const grpo = policyGradient({
  name: 'grpo',
  description: 'GRPO (Shao et al. 2024): each response against its group, (r - mean) / std; k3 KL in the loss; no critic',
  kind: 'policy-gradient',
  critic: false,
  kl: 'loss',
  fields: {
    groupSize: int().min(2).default(4).describe('responses sampled per prompt'),
    dropUniformGroups: z
      .boolean()
      .default(false)
      .describe('leave the groups whose rewards are all equal (advantage 0) out of the update instead of keeping them for the KL term (DAPO: dynamic sampling without refill)'),
  },
  samplesPerPrompt: (s) => s.groupSize,
  advantages({ scores, mask }, s) {
    const g = groupAdvantages(scores, s.groupSize);
    return {
      advantages: onTokens(g.advantages, mask),
      rows: s.dropUniformGroups ? scores.map((_, b) => b).filter((b) => !g.uniform[Math.floor(b / s.groupSize)]) : undefined,
      metrics: { [METRICS.groups]: g.groups, [METRICS.zeroVarianceGroups]: g.zeroVarianceGroups },
    };
  },
});

// KL as TRL's RLOOTrainer (its default, sequence-level): r_i = score_i - klCoef * sum_t k1_t, the penalty folded into
// the sequence reward before the leave-one-out baseline, so it is shared out like the score (Ahmadian et al. 2024,
// section 3, treat the whole response as one action). GRPO's k3 term in the loss would instead pull every token back
// on its own whatever the group's rewards.
const rloo = policyGradient({
  name: 'rloo',
  description: 'RLOO (Ahmadian et al. 2024, as TRL): each response against the mean of the other k - 1 of its group; KL in the sequence reward; no critic',
  kind: 'policy-gradient',
  critic: false,
  kl: 'reward',
  fields: {
    groupSize: int().min(2).default(4).describe('responses sampled per prompt'),
  },
  samplesPerPrompt: (s) => s.groupSize,
  advantages({ rewards, mask }, s) {
    const sequence = rewards.map((row) => row.reduce((sum, r) => sum + r, 0)); // score - klCoef * sum of k1
    return { advantages: onTokens(leaveOneOutAdvantages(sequence, s.groupSize), mask) };
  },
});

// Expert iteration: its runner is rft.ts (sample, keep the programs that pass, the SFT step on them with replay).
const rft: RejectionSamplingAlgorithm<'rft', typeof RFT_FIELDS> = {
  name: 'rft',
  description: 'expert iteration (rejection-sampling fine-tuning; STaR, ReST-EM): sample k per prompt, keep the programs that pass, fine-tune on them with SFT data replayed',
  kind: 'rejection-sampling',
  fields: RFT_FIELDS,
  samplesPerPrompt: (s) => s.samples,
};

/** Every RL algorithm; the first is the default of --algo. */
export const ALGORITHMS = [ppo, grpo, rloo, rft] as const;
export type RlAlgo = (typeof ALGORITHMS)[number]['name'];

/** The record of `name`; an unknown name is an error listing the known ones. */
export function algorithmOf(name: string): RlAlgorithm {
  const a = ALGORITHMS.find((x) => x.name === name);
  if (!a) throw new Error(`unknown RL algorithm "${name}" (known: ${ALGORITHMS.map((x) => x.name).join(', ')})`);
  return a as unknown as RlAlgorithm;
}

/** The record of `name` when RlTrainer runs it (a policy-gradient algorithm). */
export function policyGradientOf(name: string): PolicyGradientAlgorithm {
  const a = algorithmOf(name);
  if (a.kind !== 'policy-gradient') throw new Error(`${name} is a ${a.kind} algorithm: it has its own runner, not RlTrainer`);
  return a;
}

/** Whether `name` trains a critic (a value head, saved in its checkpoints). */
export function hasCritic(name: string): boolean {
  const a = algorithmOf(name);
  return a.kind === 'policy-gradient' && a.critic;
}

/** The critic's settings of `s` when its algorithm has a critic, else null. */
export function criticOf(s: { algo: string }): CriticSettings | null {
  return hasCritic(s.algo) ? (s as unknown as CriticSettings) : null;
}
