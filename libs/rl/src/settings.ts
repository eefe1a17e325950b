// The settings of an RL run: one schema, a union on `algo` with a variant per algorithm of the registry
// (algorithms.ts): the settings every run shares, below, and the algorithm's own (PPO's critic and GAE, a group size).
// RlTrainer reads its algorithm settings from here; the app reads the files and the reward sources. Defaults and
// descriptions live here and in the records once; flags, --help and --config come from this schema.
import { z } from 'zod';
import { PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { engineFields } from '@rlhf-code/engine';
import { baseDtypeField } from '@rlhf-code/model';
import { checkBaseDtype, checkMergeExport, checkOptim, loraFields, mergeExportField, optimFields, runFields } from '@rlhf-code/trainer-core';
import { ALGORITHMS, KlPlacement, RlAlgorithm } from './algorithms';
import { LOSS_AGGREGATIONS } from './masked';

/** How the per-token policy loss is averaged (every RL algorithm and the tool GRPO). */
export const lossAggregationField = z.enum(LOSS_AGGREGATIONS as unknown as ['token-mean', 'seq-mean']).default('token-mean').describe('token-mean: every token counts once; seq-mean: every response counts once');

/** The engine / trainer log-prob mismatch's correction, for every trainer that samples through a rollout engine (rl train, tool-rl train). */
export const rolloutIsFields = {
  rolloutIs: z
    .enum(['off', 'token-truncate'])
    .default('off')
    .describe("the engine / trainer mismatch: token-truncate multiplies each token's clipped loss by min(--rollout-is-cap, exp(old log-prob - the engine's log-prob)), without gradient; off = none"),
  rolloutIsCap: z.number().positive().default(2).describe('the cap of the truncated importance weight (--rollout-is token-truncate)'),
};

const int = () => z.number().int();
const { epochs: _epochs, maxSteps: _maxSteps, gradAccum: _gradAccum, ...run } = runFields({ out: 'results/ppo', epochs: 1, batchSize: 16, gradAccum: 1, saveEvery: 10 });

// No LoRA dropout in RL: the rollout's log-probs and the update's must come from the same function (ratio 1 at the
// first step), as TRL turns dropout off for PPO.
const lora = loraFields();

const KL_WHERE: Record<KlPlacement, string> = { reward: 'k1 penalty in the reward', loss: 'k3 term in the loss' };

/** Where each algorithm puts the KL, e.g. "ppo, rloo: k1 penalty in the reward; grpo: k3 term in the loss". */
function klHelp(): string {
  const by = new Map<string, string[]>();
  for (const a of ALGORITHMS as readonly RlAlgorithm[]) if (a.kind === 'policy-gradient') by.set(KL_WHERE[a.kl], [...(by.get(KL_WHERE[a.kl]) ?? []), a.name]);
  return [...by].map(([where, names]) => `${names.join(', ')}: ${where}`).join('; ');
}

const algoHelp = 'the RL algorithm: ' + ALGORITHMS.map((a) => `${a.name}: ${a.description}`).join('; ');

const shared = {
  model: z.string().min(1).default('results/sft').describe('starting policy (SFT checkpoint, or a LoRA adapter folder: its base plus the adapter); also the frozen reference and the tokenizer'),
  rewardModel: z.string().min(1).default('results/rm').describe('reward model folder (Qwen2ForSequenceClassification, or a LoRA adapter folder of `rm train --lora-rank`); "none" = execution reward only'),
  data: z.string().min(1).default('data/ppo_prompts.jsonl').describe('prompts, one {"prompt", "tests"?, "setup"?} per line'),
  steps: int().positive().default(30).describe('iterations (rollout + update)'),
  ...run,
  out: run.out.describe('checkpoint folder (policy + v_head, optimizer and KL state for --resume, metrics.jsonl)'),
  batchSize: run.batchSize.describe('prompts per iteration (each sampled --group-size times by the algorithms that sample a group)'),
  saveEvery: run.saveEvery.describe('also save every n iterations (0 = only at the end)'),
  seed: run.seed.describe('seed of sampling, prompt order and value-head initialisation'),
  miniBatches: int().positive().default(2).describe('optimizer steps per epoch over the rollout'),
  microBatchSize: int().nonnegative().default(4).describe('rows per forward/backward pass (gradient accumulation); 0 = a whole minibatch'),
  ppoEpochs: int().positive().default(4).describe('passes over each rollout'),
  maxNewTokens: int().positive().default(128).describe('longest response; a response cut here gets --missing-eos-penalty'),
  maxPromptLen: int().positive().default(256).describe('prompts are cut from the left to this many tokens'),
  temperature: z.number().positive().default(0.7).describe('sampling temperature (pure sampling: top-k 0, top-p 1); log-probs use the same'),
  ...engineFields,
  ...rolloutIsFields,
  template: z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format: raw text (code models) or ChatML (instruct models)'),
  ...optimFields({ lr: 5e-5, schedule: 'constant', warmupSteps: 0, weightDecay: 0, beta2: 0.999 }),
  initKlCoef: z.number().nonnegative().default(0.05).describe(`KL coefficient (${klHelp()})`),
  klTarget: z.number().positive().optional().describe('adapt the KL coefficient towards this KL per response (Ziegler et al.); unset = fixed'),
  klHorizon: z.number().positive().default(10000).describe('adaptive KL: horizon in samples'),
  targetKlStop: z.number().nonnegative().default(0).describe("stop an iteration's epochs when a minibatch's approx KL exceeds this (0 = never)"),
  cliprange: z.number().positive().default(0.2).describe('policy ratio clip'),
  lossAggregation: lossAggregationField,
  missingEosPenalty: z.number().nonnegative().default(1).describe('subtracted from the score of responses that never emitted EOS (0 = off)'),
  scoreClip: z.number().nonnegative().default(5).describe('clip scores to [-x, x] (0 = off)'),
  rmWeight: z
    .number()
    .nonnegative()
    .optional()
    .describe('weight of the reward-model score (default 0 when the prompts have tests: the tests are the reward and the RM is only scored beside it, logged as rm_score; else 1)'),
  execRewardWeight: z
    .number()
    .nonnegative()
    .optional()
    .describe('weight of the execution reward: 1 when every test passes, 0 when one fails, -0.1 when the code does not compile (default 1 when the prompts have tests, else 0)'),
  execTimeoutMs: int().positive().default(5000).describe('sandbox wall-clock limit per response'),
  limit: int().nonnegative().default(0).describe('use only the first n prompts (0 = all)'),
  loraRank: lora.loraRank.describe('LoRA rank r: train an adapter on the frozen --model (the reference is that base with the adapter off: no second copy); 0 = every weight'),
  loraAlpha: lora.loraAlpha,
  loraTargets: lora.loraTargets,
  baseDtype: baseDtypeField.describe(
    "the frozen weights' matrices (projections, embedding / LM head) in fp32, bf16 or int8 (per-output-channel scales): the reference, and with --lora-rank the base under the adapter (the policy's own weights stay fp32); --merge-export folds the adapter into --model's own weights",
  ),
  mergeExport: mergeExportField,
  heldoutData: z
    .string()
    .min(1)
    .default('data/mbpp_validation.jsonl')
    .describe('prompts never trained on, measured before the first iteration, every --heldout-every iterations and at the end (heldout.jsonl, heldout.svg in --out); "none" = off'),
  heldoutEvery: int().nonnegative().default(10).describe('iterations between held-out measurements (0 = only at the start and the end)'),
  heldoutSamples: int().positive().default(2).describe('responses sampled per held-out prompt (at --temperature, the same seed every time)'),
  heldoutLimit: int().nonnegative().default(0).describe('measure only the first n held-out prompts (0 = all)'),
  heldoutBatchSize: int().positive().default(32).describe('held-out responses decoded together; lower it for big checkpoints (a 0.5B model: 4)'),
};

/** A policy-gradient algorithm's settings: `algo`, the shared settings, the record's own fields. */
const policyGradientVariant = <A extends PolicyGradientRecord>(a: A) => z.strictObject({ algo: z.literal(a.name as A['name']).describe(algoHelp), ...shared, ...(a.fields as A['fields']) });
/** A rejection-sampling algorithm's settings: `algo` and the record's own fields (its update is the SFT step). */
const rejectionSamplingVariant = <A extends RejectionSamplingRecord>(a: A) => z.strictObject({ algo: z.literal(a.name as A['name']).describe(algoHelp), ...(a.fields as A['fields']) });

type Record_ = (typeof ALGORITHMS)[number];
type PolicyGradientRecord = Extract<Record_, { kind: 'policy-gradient' }>;
type RejectionSamplingRecord = Extract<Record_, { kind: 'rejection-sampling' }>;
type Variant<A> = A extends PolicyGradientRecord
  ? ReturnType<typeof policyGradientVariant<A>>
  : A extends RejectionSamplingRecord
    ? ReturnType<typeof rejectionSamplingVariant<A>>
    : never;
type Variants<T extends readonly Record_[]> = { [K in keyof T]: Variant<T[K]> };

const variant = (a: Record_) => (a.kind === 'policy-gradient' ? policyGradientVariant(a) : rejectionSamplingVariant(a));

/** The settings of any RL algorithm; without `algo`, the registry's first (PPO). */
export const RlSettings = z.preprocess(
  (v) => (typeof v === 'object' && v !== null && !('algo' in v) ? { ...v, algo: ALGORITHMS[0].name } : v),
  z.discriminatedUnion('algo', ALGORITHMS.map(variant) as unknown as Variants<typeof ALGORITHMS>).superRefine((s, ctx) => {
    checkOptim(s, ctx);
    if ('mergeExport' in s) checkMergeExport(s, ctx);
    else checkBaseDtype(s, ctx); // a rejection-sampling round fine-tunes: a low-precision base only under LoRA
  }),
);
export type RlSettings = z.output<typeof RlSettings>;
/** The settings of expert iteration (rft.ts). */
export type RftSettings = Extract<RlSettings, { algo: 'rft' }>;
/** The settings of the algorithms RlTrainer runs. */
export type PolicyGradientSettings = Exclude<RlSettings, { algo: 'rft' }>;

/** Settings of an algorithm RlTrainer runs (the policy-gradient ones), parsed; another algorithm is an error. */
export function policyGradientSettings(v: unknown): PolicyGradientSettings {
  const s = RlSettings.parse(v);
  if (s.algo === 'rft') throw new Error(`algo ${s.algo}: not a policy-gradient algorithm (it has its own runner)`);
  return s;
}
