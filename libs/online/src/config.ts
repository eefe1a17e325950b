// The online service's configuration: one zod schema with every default in one place.
// Precedence (lowest first): these defaults < the --config file (JSON or YAML) < environment variables < command-line flags.
//
// Environment variables (comma-separated lists):
//   ONLINE_TOKENS    bearer tokens the feedback server accepts          (feedback.tokens)
//   ONLINE_PROJECTS  project ids (X-Project-ID) the feedback server accepts (feedback.projects)
//   ONLINE_API_KEYS  API keys the completion server accepts            (completion.apiKeys)
//   MODEL_PATH       the starting model folder                          (model)
import { z } from 'zod';
import { readConfigFile } from '@rlhf-code/cli';
import { REPO_CONTEXT_MODES, SERVED_MIN_TOKENS } from '@rlhf-code/tokenizer';
import { DEFAULT_LATENCY, MULTILINE_MODES } from '@rlhf-code/continue';
import { loraFields, optimFields } from '@rlhf-code/train';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();

export const CompletionServerSchema = z.strictObject({
  /** Interface to listen on; use 0.0.0.0 to serve other machines (Continue's apiBase http://HOST:8081/v1). */
  host: z.string().default('127.0.0.1'),
  /** Port of the OpenAI-style completion server. 0 picks a free port. */
  port: port.default(8081),
  /** API keys accepted as `Authorization: Bearer <key>` (Continue's apiKey). Empty: no check, any key works. */
  apiKeys: z.array(z.string().min(1)).default([]),
  /**
   * Name listed by GET /v1/models; requests naming any other model are served by this one all the same. Continue picks
   * its prompt template from the model name: a name containing "qwen" and "coder" gets Qwen's FIM tokens, which this
   * server reads; any other name gets StarCoder's tags, which it would serve as plain text.
   */
  modelName: z.string().min(1).default('Qwen2.5-Coder-1.5B'),
  /**
   * A repository header before <|fim_prefix|> (upstream Continue's <|repo_name|> / <|file_sep|> context): "comments"
   * rewrites it as Continue 1.3.9's `# `-commented lines at the top of the prefix (the form this project's models are
   * trained on); "tokens" keeps Qwen2.5-Coder's own form for checkpoints pretrained on it. Dropped first when too long.
   */
  repoContext: z.enum(REPO_CONTEXT_MODES).default('comments'),
  /** Upper bound on max_tokens (Continue may send 4096 when it does not know the model). */
  maxTokensCap: positiveInt.default(64),
  /** max_tokens when a request gives none (OpenAI's default is 16). */
  defaultMaxTokens: positiveInt.default(16),
  /**
   * Tokens generated before the end token may be chosen, when a request has no `min_tokens` (vLLM's name; Hugging
   * Face's min_new_tokens). 1: never an empty middle. A model trained in SPM order cannot see where its middle
   * starts (the prefix runs straight into it), so at a line start it often ends at once, although no training middle
   * is empty; 0 serves the model's raw choice. Silence stays possible: a completion of whitespace is not shown.
   */
  minTokens: z.number().int().min(0).default(SERVED_MIN_TOKENS),
  /**
   * Where a FIM suggestion ends, as Continue's `multilineCompletions` decides: auto = several lines unless the cursor's
   * line is a comment (Python); always; never = the first line only. See line-rule.ts for the line rules.
   */
  multiline: z.enum(MULTILINE_MODES).default('auto'),
  /**
   * Continue's showWhateverWeHaveAtXMs (its modelTimeout, 150 ms by default): a multi-line suggestion ends after the
   * first line that arrives this long after the request, once a non-blank line is out; Continue would show no more.
   */
  showWithinMs: z.number().min(0).default(150),
  /**
   * Stream whole lines (each chunk a finished line, its newline sent in front of the next one) instead of token
   * pieces: Continue acts on lines, and when slower than 375 ms it keeps only the first 10 chunks.
   */
  lineChunks: z.boolean().default(true),
  /**
   * Longest prompt the server reads, in tokens (the left of the prefix and the repository header go first). The
   * prompt's prefill is most of a long request's time (about 100 ms for 512 tokens, 210 ms for 1,000 on the shipped
   * model here), and the shipped model was trained on windows of 384; Continue sends up to its maxPromptTokens (1,024).
   */
  maxPromptTokens: positiveInt.default(512),
  /**
   * The prompt is prefilled this many tokens at a time, with a turn of the event loop between: a status or feedback
   * call waits at most one piece (64: status p95 18-32 ms with 8 clients against 24-49 ms at 128, for ~5 ms more per
   * answer; EXPERIMENTS.md 2026-11-26).
   */
  prefillChunk: positiveInt.default(64),
  /**
   * Lowest sampling temperature served: a request asking for less (Continue asks for 0.01, near-greedy) is sampled at
   * this one. 0 honours every request. Online learning needs the policy to try things: at 0.01 a rejected suggestion
   * keeps being served until an update flips the model's first choice.
   */
  temperatureFloor: z.number().min(0).max(2).default(0),
  /** Tokens the prompt plus the completion may use; default: the model's max_position_embeddings. */
  contextWindow: positiveInt.optional(),
  /** Largest request body in bytes. */
  bodyLimitBytes: positiveInt.default(4 * 1024 * 1024),
  /**
   * The clock of Continue's time rules (the 150 ms rule, where a held suggestion is cut): "wall" times them by
   * Date.now() since the request (real use); "simulated" by `simulatedLatency` (libs/continue latency.ts): step k of a
   * prompt of P tokens is done at fixedMs + prefillMsPerToken * P + stepMs * k, a held suggestion arrives at the end of
   * decoding + judgeMs, and every streamed chunk carries `sim_ms`, when it counts as arriving. Measurements that must not
   * depend on the machine's speed (online:experiment) serve simulated; the simulated user then displays by `sim_ms`.
   */
  clock: z.enum(['wall', 'simulated']).default('wall'),
  /** The simulated clock's latency model (used with clock "simulated"); defaults measured for the shipped model here. */
  simulatedLatency: z
    .strictObject({
      fixedMs: z.number().min(0).default(DEFAULT_LATENCY.fixedMs),
      prefillMsPerToken: z.number().min(0).default(DEFAULT_LATENCY.prefillMsPerToken),
      stepMs: z.number().min(0).default(DEFAULT_LATENCY.stepMs),
      judgeMs: z.number().min(0).default(DEFAULT_LATENCY.judgeMs),
    })
    .default({ ...DEFAULT_LATENCY }),
});

export const FeedbackServerSchema = z
  .strictObject({
    host: z.string().default('127.0.0.1'),
    /**
     * Port of the feedback server: upstream Continue's `data:` destination or the fork's completionTrackingUrl,
     * http://HOST:8082/api/training/submit.
     */
    port: port.default(8082),
    /**
     * Bearer tokens accepted on /api/training/submit (the `apiKey` of Continue's `data:` entry). The defaults are the
     * ones in RLinf's example Continue config so that it works unchanged; set your own (ONLINE_TOKENS) on any shared
     * machine. Empty: no token check.
     */
    tokens: z.array(z.string().min(1)).default(['test-token']),
    /** X-Project-ID values accepted; "*" accepts any. A request naming another project is refused (403). */
    projects: z.array(z.string().min(1)).default(['test-project']),
    /**
     * The project of a request without X-Project-ID (upstream Continue sends none unless its `data:` entry adds one
     * under requestOptions.headers): the bearer token alone admits it, for this project. Default: the first entry of
     * `projects` other than "*" (so ONLINE_PROJECTS=my-team makes it my-team), or "default" when `projects` is only
     * "*". It must be one of `projects` unless they hold "*" (checked on the whole config: parseOnlineConfig).
     */
    defaultProject: z.string().min(1).optional(),
    /** Larger bodies are answered 413. */
    bodyLimitBytes: positiveInt.default(1024 * 1024),
  })
  .transform((c) => ({ ...c, defaultProject: c.defaultProject ?? c.projects.find((p) => p !== '*') ?? 'default' }));

export type FeedbackServerConfig = z.output<typeof FeedbackServerSchema>;

export const RewardSchema = z.strictObject({
  /**
   * cursor: accepted = 1 - p, rejected = -p, silent (the server returned nothing) = 0. Showing a suggestion pays
   *         off only when it is accepted more often than p, so the policy learns when to stay silent too.
   * binary: accepted = 1, rejected = 0, silent = 0 (RLinf's rewards), minus a running-mean baseline so that
   *         rejections still push probability down.
   */
  scheme: z.enum(['cursor', 'binary']).default('cursor'),
  /** Cursor's show threshold p. */
  p: z.number().gt(0).lt(1).default(0.25),
  /**
   * cursor: what is subtracted from each reward to make the advantage. batch_mean: the mean reward of the batch,
   * silent samples included (their one trained token is the stop token: "say nothing"), so staying silent where
   * the shown suggestions were rejected is reinforced directly. none: advantage = reward (silent samples get 0
   * and no gradient; silence then grows only through the push-down of rejected suggestions).
   */
  cursorBaseline: z.enum(['batch_mean', 'none']).default('batch_mean'),
  /** binary: baseline <- momentum * baseline + (1 - momentum) * batch mean reward (starts at the first batch's mean). */
  baselineMomentum: z.number().min(0).lt(1).default(0.9),
});

const { lr, beta1, beta2, weightDecay, maxGradNorm } = optimFields({ lr: 1e-5, schedule: 'constant', warmupSteps: 0, weightDecay: 0, beta2: 0.95, maxGradNorm: 0.8 });
const onlineOptim = { lr, beta1, beta2, weightDecay, maxGradNorm };
const { loraRank, loraAlpha, loraTargets } = loraFields();

export const TrainingSchema = z.strictObject({
  /** Feedback events per update (RLinf: 16). */
  batchSize: positiveInt.default(16),
  /** Optimizer steps per update: the batch is cut into this many minibatches (RLinf: 2). */
  minibatches: positiveInt.default(2),
  /** Passes over the batch per update. */
  epochs: positiveInt.default(1),
  /**
   * The optimiser (libs/train's shared fields), at a constant learning rate: AdamW lr (RLinf uses 2e-6 for a 1.5B model;
   * a small model tolerates more), betas, weight decay, and the global gradient norm clip (RLinf: 0.8; 0 = off).
   */
  ...onlineOptim,
  /**
   * LoRA rank: train an adapter on the frozen starting model instead of every weight (0). The start arm, the policy and
   * the served copy are then one base in memory with two adapters; publishing an update swaps only adapter weights.
   */
  loraRank,
  /** LoRA alpha (the adapter is scaled by alpha / rank). */
  loraAlpha,
  /** Projections that get adapters. */
  loraTargets,
  /** Rerun each layer in the update's backward pass instead of keeping its activations (less memory, more compute). */
  gradCheckpointing: z.boolean().default(false),
  /** PPO ratio clip epsilon. */
  clip: z.number().gt(0).default(0.2),
  /** Weight of the KL penalty to the starting model (token mean of logp - ref_logp); 0 = off. */
  klCoef: z.number().min(0).default(0),
  /** Discard an update whose KL(old policy || new policy) on its own batch (token mean) exceeds this. */
  maxUpdateKl: z.number().gt(0).default(0.5),
  /** Longest training sequence (prompt + completion tokens); prompts are cut from the left of the prefix. */
  maxSeqLen: positiveInt.default(1024),
  /** Skip events Continue marks cacheHit (the completion was not generated for this request). */
  skipCacheHits: z.boolean().default(true),
  /** Also train on completions served by the frozen starting model (off-policy; off by default). */
  trainOnStartArm: z.boolean().default(false),
  /** Write a checkpoint (Hugging Face layout) every K updates. */
  checkpointEvery: positiveInt.default(5),
  /** How many checkpoints to keep in <stateDir>/checkpoints. */
  keepCheckpoints: positiveInt.default(3),
  reward: RewardSchema.default(RewardSchema.parse({})),
});

/** The show gate (gate.ts): a logistic regression on features of each policy suggestion, fitted from the outcomes. */
export const GateSchema = z.strictObject({
  /** Learn the gate and let it hide policy suggestions it predicts will be rejected (the start arm is never gated). */
  enabled: z.boolean().default(true),
  /** Outcomes needed before the gate is first fitted (until then every suggestion is shown). */
  minOutcomes: positiveInt.default(48),
  /** ... of which at least this many accepted and this many rejected. */
  minEach: positiveInt.default(4),
  /** Refit after this many new outcomes. */
  refitEvery: positiveInt.default(8),
  /** Fit on the most recent this many outcomes (the policy, and so its suggestions, change as it trains). */
  window: positiveInt.default(2000),
  /**
   * L2 penalty on the standardised weights (the bias is not penalised), or 'cv': at every refit, the value of
   * 0.3, 1, 3, 10, 30 with the best 5-fold cross-validated log-likelihood (calibrated probabilities: the threshold's
   * budget of lost accepts is counted in them).
   */
  l2: z.union([z.number().min(0), z.literal('cv')]).default('cv'),
  /**
   * Hide the least likely suggestions that together hold at most this share of the expected accepts: accepted per
   * request may fall by about this much while acceptance of what is shown rises.
   */
  maxLostAccepts: z.number().min(0).lt(1).default(0.05),
  /** Show a suggestion the gate would hide with this probability, so it keeps learning what it hides. */
  explore: z.number().min(0).max(1).default(0.1),
  /**
   * Hide only when hiding holds up on outcomes the gate was not fitted on: in 5-fold cross-validation, what it would
   * hide was accepted less often than what it would show, Fisher's exact test p below this (1: no check).
   */
  validateP: z.number().gt(0).max(1).default(0.05),
  /**
   * Suggestions sampled per request while the gate is active (one decoding batch); the one it rates most likely to be
   * accepted is the one it judges and, if shown, serves (best of k). 1: a single sample, as when the gate is inactive.
   */
  candidates: positiveInt.max(8).default(2),
  /**
   * Sampling temperature of the candidates after the first (at least the request's; the first is sampled as the request
   * asks): at Continue's 0.01 every candidate would be the same suggestion.
   */
  candidateTemperature: z.number().min(0).max(2).default(0.7),
});

/**
 * One A/B arm (arms.ts): which model serves it and which of the show gate's mechanisms it gets. The mechanisms act
 * only while the gate is active (fitted and validated); otherwise the arm streams its model's suggestions as they are.
 */
export const ArmSchema = z.strictObject({
  /** Its name in requests.jsonl, the feedback log, the status and the `arm` field of answers ("start", "policy", ...). */
  name: z.string().min(1),
  /** "policy": the policy being trained (its suggestions train it); "start": the frozen starting model (never trained on unless training.trainOnStartArm). */
  model: z.enum(['policy', 'start']),
  /** Hold each suggestion until it is complete and send it whole, cut by the line rule as it will arrive (wholeCut: past 150 ms, its first line). */
  holdCut: z.boolean().default(false),
  /** Sample gate.candidates suggestions and send the one the gate rates most likely to be accepted (implies holding). */
  rank: z.boolean().default(false),
  /** Send nothing when the gate's P(accept) is at or below its threshold (implies holding). */
  hide: z.boolean().default(false),
  /** Relative share of requests under `routing: random` (ignored when blocked). */
  share: z.number().min(0).default(1),
});
export type ArmSpec = z.output<typeof ArmSchema>;

export const OnlineConfigSchema = z.strictObject({
  /** Starting model folder (Hugging Face layout with tokenizer.json). */
  model: z.string().min(1).default('models/base'),
  /** Holds the feedback log, the request log, checkpoints and metrics; one directory per server. */
  stateDir: z.string().min(1).default('online-state'),
  /**
   * Share of completion requests served by the frozen starting model (the A/B control arm) when `arms` is not given:
   * the arms are then "policy" (the trained policy, every gate mechanism) and "start" (the starting model, none).
   */
  abFraction: z.number().min(0).max(1).default(0.1),
  /** The A/B arms (names unique); default: "policy" and "start", split by abFraction (see ArmSchema). */
  arms: z
    .array(ArmSchema)
    .min(1)
    .refine((arms) => new Set(arms.map((a) => a.name)).size === arms.length, 'arm names must be unique')
    .optional(),
  /**
   * How requests are assigned to arms. random: each independently, by the arms' shares (a seeded draw). blocked (for
   * measurements): every block of consecutive requests, as many as there are arms, gets each arm once, in a seeded
   * random order, and the requests of a block share their sampling seed (common random numbers); a client that sends
   * each position once per arm, consecutively, gets every arm once per position.
   */
  routing: z.enum(['random', 'blocked']).default('random'),
  /** Seed of the A/B router and of sampling when a request gives no seed. */
  seed: z.number().int().default(0),
  completion: CompletionServerSchema.default(CompletionServerSchema.parse({})),
  feedback: FeedbackServerSchema.default(FeedbackServerSchema.parse({})),
  training: TrainingSchema.default(TrainingSchema.parse({})),
  gate: GateSchema.default(GateSchema.parse({})),
});

export type OnlineConfig = z.output<typeof OnlineConfigSchema>;
export type OnlineConfigInput = z.input<typeof OnlineConfigSchema>;
export type RewardConfig = z.output<typeof RewardSchema>;
export type TrainingConfig = z.output<typeof TrainingSchema>;

/** Thrown for a bad config file, variable or flag; the message names the field. */
export class ConfigError extends Error {}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Recursive merge of plain objects; arrays and scalars from `over` replace those in `base`. */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Json, v) : v;
  }
  return out;
}

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);

/** The config fields the environment sets (see the top of this file). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Json {
  return {
    model: env.MODEL_PATH || undefined,
    completion: { apiKeys: list(env.ONLINE_API_KEYS) },
    feedback: { tokens: list(env.ONLINE_TOKENS), projects: list(env.ONLINE_PROJECTS) },
  };
}

/** Problems between settings that are each valid alone, as [field path, message]. */
function crossFieldProblems(c: OnlineConfig): [string, string][] {
  const f = c.feedback;
  if (!f.projects.includes('*') && !f.projects.includes(f.defaultProject)) {
    return [['feedback.defaultProject', `"${f.defaultProject}" is not one of feedback.projects (${f.projects.join(', ')})`]];
  }
  return [];
}

/**
 * Validate; every problem is reported as `<source>: <field.path>: <message>`. `partial`: the value is one layer of
 * the config (a file before the environment and flags are applied), so settings that depend on each other are not
 * checked against each other.
 */
export function parseOnlineConfig(value: unknown, source = 'config', opts: { partial?: boolean } = {}): OnlineConfig {
  const r = OnlineConfigSchema.safeParse(value);
  const problems = r.success ? (opts.partial ? [] : crossFieldProblems(r.data)) : r.error.issues.map((i): [string, string] => [i.path.join('.') || '(root)', i.message]);
  if (problems.length > 0) throw new ConfigError(problems.map(([field, message]) => `${source}: ${field}: ${message}`).join('\n'));
  return r.data!;
}

/**
 * Build the config: defaults, then the file (if any, JSON or YAML), then the environment, then `overrides` (from flags).
 * Unknown keys in the file are errors (a typo must not silently fall back to a default).
 */
export function loadOnlineConfig(opts: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Json } = {}): OnlineConfig {
  let fromFile: Json = {};
  if (opts.file) {
    try {
      fromFile = readConfigFile(opts.file); // JSON or YAML
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
    parseOnlineConfig(fromFile, opts.file, { partial: true }); // errors name the file
  }
  const merged = merge(merge(fromFile, configFromEnv(opts.env)), opts.overrides ?? {});
  return parseOnlineConfig(merged, opts.file ?? 'config');
}
