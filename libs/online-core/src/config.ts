// The online service's configuration: one zod schema, every default and description in one place. `online serve`
// takes it through @rlhf-code/cli like every other command: its flags (a group's keys as --<group>-<key>), --help,
// --config FILE (JSON or YAML, the groups as sections), --print-config and the environment variables come from here.
// Precedence (lowest first): these defaults < the --config file < environment variables < command-line flags.
import { z } from 'zod';
import { parseSettings } from '@rlhf-code/cli';
import { REPO_CONTEXT_MODES, SERVED_MIN_TOKENS } from '@rlhf-code/tokenizer';
import { DEFAULT_LATENCY, MULTILINE_MODES, RLINF_EXAMPLE } from '@rlhf-code/continue';
import { checkBaseDtype, loraFields, optimFields } from '@rlhf-code/trainer-core';
import { baseDtypeField } from '@rlhf-code/model';
import { engineFields } from '@rlhf-code/engine';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();
const host = z.string().default('127.0.0.1').describe('interface the server listens on (0.0.0.0: reachable from other machines)').meta({ flag: 'host' });

export const CompletionServerSchema = z.strictObject({
  host,
  port: port.default(RLINF_EXAMPLE.completionPort).describe('port of the OpenAI-style completion server (Continue\'s apiBase http://HOST:PORT/v1); 0 picks a free one'),
  apiKeys: z
    .array(z.string().min(1))
    .default([])
    .describe('API keys accepted as Authorization: Bearer <key> (Continue\'s apiKey); none: any key works')
    .meta({ env: 'ONLINE_API_KEYS' }),
  // Continue picks its prompt template from the model name: any other name gets StarCoder's tags, served as plain text.
  modelName: z
    .string()
    .min(1)
    .default(RLINF_EXAMPLE.model)
    .describe('name listed by GET /v1/models (requests naming another model are served all the same); keep "qwen" and "coder" in it, or Continue sends StarCoder\'s FIM tags'),
  repoContext: z
    .enum(REPO_CONTEXT_MODES)
    .default('comments')
    .describe(
      "an upstream <|repo_name|> / <|file_sep|> header before <|fim_prefix|>: comments = rewritten as Continue 1.3.9's `# ` lines atop the prefix (what this project's models learn), tokens = kept in Qwen2.5-Coder's form; dropped first when too long",
    ),
  maxTokensCap: positiveInt.default(64).describe('upper bound on max_tokens (Continue may ask for 4096)'),
  defaultMaxTokens: positiveInt.default(16).describe('max_tokens of a request that gives none'),
  // A model trained in SPM order cannot see where its middle starts, so at a line start it often ends at once
  // although no training middle is empty.
  minTokens: z
    .number()
    .int()
    .min(0)
    .default(SERVED_MIN_TOKENS)
    .describe("tokens generated before the end token may be chosen, when a request has no min_tokens (vLLM's name); 1: never an empty middle; 0: the model's raw choice (a whitespace-only completion is still not shown)"),
  multiline: z
    .enum(MULTILINE_MODES)
    .default('auto')
    .describe("where a suggestion ends, as Continue's multilineCompletions: auto = several lines unless the cursor's line is a comment, always, never = the first line (libs/continue line-rule.ts)"),
  showWithinMs: z
    .number()
    .min(0)
    .default(150)
    .describe("Continue's showWhateverWeHaveAtXMs (modelTimeout): a multi-line suggestion ends after the first line that arrives this long after the request"),
  lineChunks: z.boolean().default(true).describe('stream one finished line per chunk (Continue acts on lines, and past 375 ms keeps only its first 10 chunks); off: token pieces'),
  // Prefill is most of a long request's time (about 100 ms for 512 tokens, 210 ms for 1,000 on the shipped model
  // here), and the shipped model was trained on windows of 384; Continue sends up to its maxPromptTokens (1,024).
  maxPromptTokens: positiveInt.default(512).describe('longest prompt the server reads, in tokens (the left of the prefix and the repository header go first)'),
  // One generation takes ~150 ms alone on the shipped model here; concurrent ones take turns, so each further one adds
  // about as much to all of them (8 clients: ~900 ms each, EXPERIMENTS.md 2026-11-26).
  maxConcurrent: positiveInt
    .default(2)
    .describe(
      "generations in progress at once; a request beyond them is answered at once with an empty completion (Continue shows nothing; header x-shed, counted in the status as completions_shed) instead of waiting past Continue's 375 ms",
    ),
  // 64: status p95 18-32 ms with 8 clients against 24-49 ms at 128, for ~5 ms more per answer (EXPERIMENTS.md 2026-11-26).
  prefillChunk: positiveInt.default(64).describe('the prompt is prefilled this many tokens at a time, with a turn of the event loop between (status and feedback answer meanwhile)'),
  // A user's consecutive requests in one file share their prompt up to the cursor (and, in SPM order, the suffix too):
  // 64 MiB holds ~2,700 positions of Qwen2.5-0.5B's keys and values (24 KiB each), a few users' prompts of 512.
  prefixCacheMiB: z
    .number()
    .min(0)
    .default(64)
    .describe(
      "keys and values of each user's (and file's) last prompt kept for its next request, in MiB: that one prefills only what follows the longest token prefix they share; the least recently used are dropped beyond this; 0: off",
    ),
  // llama.vscode serves FIM from llama.cpp with --cache-reuse 256; Continue's prompts lose spans near their front as the
  // code grows (EXPERIMENTS.md 2026-11-30 (morning), the typing session), which the shared prefix alone cannot keep.
  cacheReuseTokens: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "--engine llamacpp: past the prefix a prompt shares with the user's previous one, keep the cached runs of at least this many tokens it has further on (the span between them removed, the rest shifted: llama.cpp's --cache-reuse), so a prompt that lost a span near its front prefills only its new tokens; approximate (the kept keys saw the removed span); 0: the shared prefix only, exact",
    ),
  // Online learning needs the policy to try things: at 0.01 a rejected suggestion keeps being served until an update
  // flips the model's first choice.
  temperatureFloor: z
    .number()
    .min(0)
    .max(2)
    .default(0)
    .describe('lowest sampling temperature served: a request asking for less (Continue: 0.01) is sampled at this one; 0 honours every request'),
  contextWindow: positiveInt.optional().describe("tokens the prompt plus the completion may use (default: the model's max_position_embeddings); a long prompt loses the left of its FIM prefix first"),
  bodyLimitBytes: positiveInt.default(4 * 1024 * 1024).describe('largest request body in bytes'),
  // Measurements that must not depend on the machine's speed (online:experiment) serve simulated; the simulated user
  // then displays by sim_ms.
  clock: z
    .enum(['wall', 'simulated'])
    .default('wall')
    .describe("the clock of Continue's time rules (the 150 ms rule, where a held suggestion is cut): wall = Date.now() since the request (real use); simulated = completion.simulatedLatency, and every chunk carries sim_ms, when it counts as arriving"),
  simulatedLatency: z
    .strictObject({
      fixedMs: z.number().min(0).default(DEFAULT_LATENCY.fixedMs).describe('fixed time of a request'),
      prefillMsPerToken: z.number().min(0).default(DEFAULT_LATENCY.prefillMsPerToken).describe('prefill time per prompt token'),
      stepMs: z.number().min(0).default(DEFAULT_LATENCY.stepMs).describe('time per decoding step'),
      judgeMs: z.number().min(0).default(DEFAULT_LATENCY.judgeMs).describe('a held suggestion arrives this long after the end of decoding'),
    })
    .prefault({})
    .describe('with clock simulated, step k of a prompt of P tokens is done at fixedMs + prefillMsPerToken * P + stepMs * k; measured for the shipped model here, libs/continue latency.ts'),
});

export const FeedbackServerSchema = z
  .strictObject({
    host,
    port: port.default(RLINF_EXAMPLE.feedbackPort).describe("port of the feedback server (upstream Continue's data: destination, or the fork's completionTrackingUrl: http://HOST:PORT/api/training/submit)"),
    tokens: z
      .array(z.string().min(1))
      .default([RLINF_EXAMPLE.token])
      .describe("bearer tokens accepted on /api/training/submit (the apiKey of Continue's data: entry); set your own on any shared machine; none: no token check")
      .meta({ env: 'ONLINE_TOKENS' }),
    projects: z
      .array(z.string().min(1))
      .default([RLINF_EXAMPLE.project])
      .describe('X-Project-ID values accepted ("*": any); a request naming another project is refused (403)')
      .meta({ env: 'ONLINE_PROJECTS' }),
    defaultProject: z
      .string()
      .min(1)
      .optional()
      .describe(
        'the project of a request without X-Project-ID (upstream Continue sends none unless its data: entry adds one): default the first of feedback.projects other than "*" ("default" if none); one of them unless they hold "*"',
      ),
    bodyLimitBytes: positiveInt.default(1024 * 1024).describe('larger bodies are answered 413'),
  })
  .transform((c) => ({ ...c, defaultProject: c.defaultProject ?? c.projects.find((p) => p !== '*') ?? 'default' }));

export type FeedbackServerConfig = z.output<typeof FeedbackServerSchema>;

export const RewardSchema = z.strictObject({
  // Cursor: showing a suggestion pays off only when it is accepted more often than p, so the policy learns when to stay
  // silent too. Binary is RLinf's; the baseline keeps rejections pushing probability down.
  scheme: z
    .enum(['cursor', 'binary'])
    .default('cursor')
    .describe('cursor: accepted 1 - p, rejected -p, silent (nothing returned) 0; binary: accepted 1, rejected and silent 0, minus a running-mean baseline'),
  p: z.number().gt(0).lt(1).default(0.25).describe("Cursor's show threshold p"),
  // batch_mean: silent samples train one token, the stop token ("say nothing"), so staying silent where the shown
  // suggestions were rejected is reinforced directly; none: silence grows only through the push-down of rejections.
  cursorBaseline: z
    .enum(['batch_mean', 'none'])
    .default('batch_mean')
    .describe("cursor: what the advantage subtracts from each reward: batch_mean = the batch's mean reward (silent samples included), none = nothing"),
  baselineMomentum: z.number().min(0).lt(1).default(0.9).describe('binary: baseline <- momentum * baseline + (1 - momentum) * batch mean reward (starting at the first batch\'s mean)'),
});

// The optimiser (libs/train's shared fields) at a constant learning rate. RLinf uses lr 2e-6 for a 1.5B model (a small
// model tolerates more) and clips the gradient norm at 0.8.
const { lr, beta1, beta2, weightDecay, maxGradNorm, precision } = optimFields({ lr: 1e-5, schedule: 'constant', warmupSteps: 0, weightDecay: 0, beta2: 0.95, maxGradNorm: 0.8 });
const { loraRank, loraAlpha, loraTargets } = loraFields();

/**
 * The reward model of the user and the RL against it (libs/online-learning user-reward-model.ts, user-rm-rl.ts): GRPO on cursor positions
 * of recent requests, rewarded by the RM's expected utility of what Continue would display.
 */
export const UserRmSchema = z.strictObject({
  model: z
    .enum(['auto', 'features', 'hidden', 'both'])
    .default('auto')
    .describe(
      "the reward model's inputs: features = the show gate's features of the suggestion (log-probs under the start model), hidden = principal components of the start model's last hidden state mean-pooled over the suggestion, both = the two; auto = at every refit the one with the best 5-fold cross-validated log-likelihood",
    ),
  hiddenComponents: positiveInt.max(64).default(16).describe('principal components of the pooled hidden states the hidden and both models use'),
  minOutcomes: positiveInt.default(48).describe('outcomes needed before the reward model is first fitted (no RL step before that)'),
  minEach: positiveInt.default(4).describe('... of which at least this many accepted and this many rejected'),
  window: positiveInt.default(2000).describe('fit on the most recent this many outcomes'),
  validate: z
    .boolean()
    .default(true)
    .describe("RL only against a reward model whose 5-fold out-of-fold log-likelihood beats the constant accept rate's by more than twice its standard error (a user it cannot read leaves the policy alone)"),
  positions: positiveInt.default(8).describe('cursor positions per RL step, drawn from the recent requests the HTTP thread passes with the update'),
  samples: z.number().int().min(2).max(16).default(4).describe('suggestions sampled per position (the GRPO group)'),
  steps: positiveInt.default(2).describe('RL steps (rollouts + one optimizer step) per update'),
  temperature: z.number().gt(0).max(2).default(1).describe('sampling temperature of the rollouts'),
  minTokens: z
    .number()
    .int()
    .min(0)
    .default(1)
    .describe(
      "tokens a rollout generates before the end token may be chosen; a policy an update has trained (version >= 1) is served with it too when a request gives no min_tokens (completion.minTokens stays the start model's and the untrained policy's). 0: the end token first, silence, is an action the policy learns and takes (on dev it learnt silence too broadly and lost accepts: EXPERIMENTS.md 2026-11-28)",
    ),
  hindsight: z
    .boolean()
    .default(false)
    .describe(
      "an outcome waits until another request shows what the user wrote at its cursor (the code between the text before and after it); the reward model then also reads how the suggestion compares with that (first line equal, its edit share, agreement from the start), and the RL positions are the cursors whose written code is known, each rollout compared with it (libs/online hindsight.ts)",
    ),
  maxNewTokens: positiveInt.default(64).describe('longest rollout, in tokens (as completion.maxTokensCap)'),
  recentPositions: positiveInt.default(256).describe('recent requests the HTTP thread keeps and passes with each update (the positions are drawn from them)'),
  lr: z.number().gt(0).default(3e-5).describe("the RL steps' learning rate (their own AdamW, so the outcome update's moments are not mixed in)"),
  klCoef: z.number().min(0).default(0.05).describe('weight of the k3 KL penalty to the start model in the RL loss'),
});
export type UserRmConfig = z.output<typeof UserRmSchema>;

export const TRAINING_OBJECTIVES = ['outcome', 'user-rm', 'both'] as const;

export const TrainingSchema = z.strictObject({
  objective: z
    .enum(TRAINING_OBJECTIVES)
    // user-rm: on the dev file it raised accepted per request of the trained policy alone (gate off) about twice as much
    // as outcome for the two users measured, with the same outcomes (EXPERIMENTS.md 2026-11-27 (night)).
    .default('user-rm')
    .describe(
      "what an update optimises: outcome = the clipped update on the served suggestions' own outcomes; user-rm = GRPO on recent cursor positions against a reward model of the user fitted on the outcomes (training.userRm); both = the first, then the second",
    ),
  userRm: UserRmSchema.prefault({}).describe('the reward model of the user and the RL against it (objective user-rm or both)'),
  batchSize: positiveInt.default(16).describe('feedback events per update (RLinf: 16)').meta({ flag: 'batch-size' }),
  minibatches: positiveInt.default(2).describe('optimizer steps per update: the batch is cut into this many minibatches (RLinf: 2)'),
  epochs: positiveInt.default(1).describe('passes over the batch per update'),
  lr: lr.meta({ flag: 'lr' }),
  beta1,
  beta2,
  weightDecay,
  maxGradNorm,
  precision,
  // With LoRA the start arm, the policy and the served copy are one base in memory with two adapters; publishing an
  // update swaps only adapter weights, and checkpoints are PEFT adapter folders (resume with the same rank).
  loraRank,
  loraAlpha,
  loraTargets,
  recomputeLayers: z.boolean().default(false).describe("rerun each layer in the update's backward pass instead of keeping its activations (less memory, more compute)"),
  baseDtype: baseDtypeField.describe(
    "with LoRA (loraRank > 0): the one frozen base of each thread (served, start / KL reference, trained under the adapter) holds its projections and embedding / LM head in fp32, bf16 or int8 (per-output-channel scales): 1/2 or 1/4 of the bytes, faster decoding; the adapters stay fp32",
  ),
  clip: z.number().gt(0).default(0.2).describe('PPO ratio clip epsilon'),
  klCoef: z.number().min(0).default(0).describe('weight of the KL penalty to the starting model (token mean of logp - ref_logp); 0 = off'),
  maxUpdateKl: z.number().gt(0).default(0.5).describe('discard an update whose KL(old policy || new policy) on its own batch (token mean) exceeds this'),
  maxSeqLen: positiveInt.default(1024).describe('longest training sequence (prompt + completion tokens); prompts are cut from the left of the prefix'),
  skipCacheHits: z.boolean().default(true).describe('do not train on outcomes Continue marks cacheHit (the completion was not generated for this request)'),
  trainOnStartArm: z.boolean().default(false).describe('also train on completions served by the frozen starting model (off-policy)'),
  checkpointEvery: positiveInt.default(5).describe('write a checkpoint (Hugging Face layout) every this many updates'),
  keepCheckpoints: positiveInt.default(3).describe('checkpoints kept in <stateDir>/checkpoints'),
  reward: RewardSchema.prefault({}).describe('what an outcome is worth'),
});

/** The show gate (libs/online-gate gate.ts): a logistic regression on features of each policy suggestion, fitted from the outcomes. */
export const GateSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('learn the gate and let it hide policy suggestions it predicts will be rejected (the start arm is never gated)'),
  minOutcomes: positiveInt.default(48).describe('outcomes needed before the gate is first fitted (until then every suggestion is shown)'),
  minEach: positiveInt.default(4).describe('... of which at least this many accepted and this many rejected'),
  refitEvery: positiveInt.default(8).describe('refit after this many new outcomes'),
  window: positiveInt.default(2000).describe('fit on the most recent this many outcomes (the policy, and so its suggestions, change as it trains)'),
  // cv gives calibrated probabilities: the threshold's budget of lost accepts is counted in them.
  l2: z
    .union([z.number().min(0), z.literal('cv')])
    .default('cv')
    .describe('L2 penalty on the standardised weights (the bias unpenalised); cv: at every refit the one of 0.3, 1, 3, 10, 30 with the best 5-fold cross-validated log-likelihood'),
  maxLostAccepts: z
    .number()
    .min(0)
    .lt(1)
    .default(0.05)
    .describe('hide the least likely suggestions that together hold at most this share of the expected accepts (accepted per request may fall by about this much while acceptance of what is shown rises)'),
  explore: z.number().min(0).max(1).default(0.1).describe('show a suggestion the gate would hide with this probability, so it keeps learning what it hides'),
  validateP: z
    .number()
    .gt(0)
    .max(1)
    .default(0.05)
    .describe("hide only when hiding holds up on outcomes the gate was not fitted on: in 5-fold cross-validation what it would hide was accepted less often than what it would show, Fisher's exact test p below this (1: no check)"),
  candidates: positiveInt
    .max(8)
    .default(2)
    .describe('suggestions sampled per request while the gate is active (one decoding batch); it judges, and if shown serves, the one it rates most likely to be accepted (1: a single sample)'),
  candidateTemperature: z
    .number()
    .min(0)
    .max(2)
    .default(0.7)
    .describe("sampling temperature of the candidates after the first (at least the request's; the first is sampled as asked): at Continue's 0.01 every candidate would be the same suggestion"),
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

const onlineConfigFields = {
  model: z.string().min(1).default('models/base').describe('starting model folder (Hugging Face layout with tokenizer.json): the frozen A/B control and the KL reference too'),
  stateDir: z.string().min(1).default('online-state').describe('feedback log, request log, checkpoints and metrics of this server (one folder per server)'),
  abFraction: z
    .number()
    .min(0)
    .max(1)
    .default(0.1)
    .describe('share of requests served by the frozen starting model (arm start) when arms is not set; the other arm, policy, is the trained policy with every gate mechanism'),
  arms: z
    .array(ArmSchema)
    .min(1)
    .refine((arms) => new Set(arms.map((a) => a.name)).size === arms.length, 'arm names must be unique')
    .optional()
    .describe('the A/B arms, each {name, model: policy | start, holdCut, rank, hide, share} (names unique); default: policy and start, split by abFraction')
    .meta({ flag: false }),
  // blocked: a client that sends each position once per arm, consecutively, gets every arm once per position.
  routing: z
    .enum(['random', 'blocked'])
    .default('random')
    .describe("how requests are assigned to arms: random = each independently by the arms' shares (a seeded draw); blocked (measurements) = every block of as many consecutive requests as arms gets each arm once, in a seeded order, with one sampling seed"),
  seed: z.number().int().default(0).describe('seed of the A/B router, and of sampling when a request gives no seed'),
  // What decodes the suggestions (both models); the trainer's updates reach it as policy versions (@rlhf-code/engine).
  ...engineFields,
  completion: CompletionServerSchema.prefault({}).describe('the completion server'),
  feedback: FeedbackServerSchema.prefault({}).describe('the feedback server'),
  training: TrainingSchema.prefault({}).describe('the updates: critic-free PPO on the outcomes'),
  gate: GateSchema.prefault({}).describe('the show gate'),
};

/** Problems between settings that are each valid alone. */
function checkCrossSettings(c: { feedback: FeedbackServerConfig; training: TrainingConfig; completion: { cacheReuseTokens: number }; engine: string }, ctx: z.RefinementCtx): void {
  checkBaseDtype(c.training, ctx, 'training');
  if (c.completion.cacheReuseTokens > 0 && c.engine !== 'llamacpp') {
    ctx.addIssue({ code: 'custom', path: ['completion', 'cacheReuseTokens'], message: `only the llamacpp engine reuses cached runs past a change in the prompt (engine is ${c.engine}); set 0` });
  }
  const f = c.feedback;
  if (!f.projects.includes('*') && !f.projects.includes(f.defaultProject)) {
    ctx.addIssue({ code: 'custom', path: ['feedback', 'defaultProject'], message: `"${f.defaultProject}" is not one of feedback.projects (${f.projects.join(', ')})` });
  }
}

export const OnlineConfigSchema = z.strictObject(onlineConfigFields).superRefine(checkCrossSettings);

/** `online serve`: the service's configuration (the compute backend is a runtime setting, as for every command). */
export const ServeSettings = OnlineConfigSchema;
export type ServeSettings = z.output<typeof ServeSettings>;

export type OnlineConfig = z.output<typeof OnlineConfigSchema>;
export type OnlineConfigInput = z.input<typeof OnlineConfigSchema>;
export type RewardConfig = z.output<typeof RewardSchema>;
export type TrainingConfig = z.output<typeof TrainingSchema>;
export type GateConfig = z.output<typeof GateSchema>;

/** The config of `value` (one a program builds); errors name each bad key as `<source>: <field.path>: <message>`. */
export function parseOnlineConfig(value: unknown, source = 'config'): OnlineConfig {
  return parseSettings(OnlineConfigSchema, value, source);
}
