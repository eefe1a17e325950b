// The settings of the measuring commands around the online service: `online latency` (Continue-shaped requests
// timed against a served model), `online load` (Continue's mixed load against `online serve`) and `online experiment`
// (does online learning raise a simulated user's acceptance on held-out files). The service's own configuration is
// @rlhf-code/online-core config.ts.
import { z } from 'zod';
import { PROMPT_FORMS, SIM_USERS } from '@rlhf-code/continue';
import { CompletionServerSchema, TrainingSchema } from '@rlhf-code/online-core';
import { engineFields } from '@rlhf-code/engine';
import { EXPERIMENT_PACES } from './experiment';

const int = () => z.number().int();

export const LatencySettings = z.strictObject({
  model: z.string().min(1).default('models/base').describe('model folder to serve'),
  data: z.string().min(1).default('data/fim/fim.jsonl').describe('FIM JSONL (its "test" split is used)'),
  requests: int().positive().default(40).describe('requests per setting'),
  concurrency: z.array(int().positive()).min(1).default([1, 8]).describe('numbers of concurrent clients, comma-separated'),
  forms: z.array(z.enum(PROMPT_FORMS)).min(1).default(['v139', 'head']).describe('prompt forms: v139 (1.3.9, commented context) and/or head (upstream, <|repo_name|> header)'),
  maxPromptTokens: int().positive().default(1024).describe("Continue's maxPromptTokens"),
  statusEveryMs: int().positive().default(25).describe('poll the status endpoint this often while requests are in flight'),
  warmup: int().nonnegative().default(3).describe('requests sent first and not measured'),
  json: z.string().min(1).optional().describe('also write the rows as JSON lines'),
  serviceConfig: z.string().min(1).optional().describe("online service config (JSON or YAML, as online:serve's --config): its completion and gate settings are served, and its training section says how the models are held (loraRank, baseDtype: a 0.5B model fits the wasm heap only as a LoRA base); nothing trains"),
  typing: z
    .boolean()
    .default(false)
    .describe(
      "instead: one user's typing session in one held-out file of --data (a request per pause, one after another, in the first of --forms, at most --requests), timed to when Continue shows each suggestion; prints one JSON line: first_line_ms p50 / p95, the prefix cache's hit rate, the prompt tokens prefilled per request",
    ),
  engine: engineFields.engine.describe("what the served model decodes with (online serve's --engine): local, llamacpp or openai:URL"),
  engineWeights: engineFields.engineWeights,
});
export type LatencySettings = z.output<typeof LatencySettings>;

export const ExperimentSettings = z.strictObject({
  model: z.string().min(1).default('models/base').describe('starting model folder'),
  data: z.string().min(1).default('data/fim/fim.jsonl').describe('FIM JSONL whose "train" split is served during training'),
  heldout: z
    .string()
    .min(1)
    .default('data/fim/fim_dev.jsonl')
    .describe('FIM JSONL of held-out positions, every record (files never trained on): data/fim/fim_dev.jsonl for design decisions, fim_test.jsonl for reported figures'),
  limitPositions: int().positive().optional().describe('measure a seeded random subset of this many held-out positions (quick runs); default all'),
  user: z.enum(SIM_USERS).default('exact').describe('simulated user (see simulate --help)'),
  form: z.enum(PROMPT_FORMS).default('v139').describe("Continue's prompt form"),
  events: int().positive().default(400).describe('training requests'),
  pace: z
    .enum(EXPERIMENT_PACES)
    // trainer: the policy versions that serve the training requests do not depend on the machine's speed, and a person
    // types slower than an update takes; on dev (exact) the same gain as free (EXPERIMENTS.md 2026-11-28 (day)).
    .default('trainer')
    .describe("training requests: free = each as soon as the last is answered (updates lag behind); trainer = each after the running or due update finished (a user slower than the trainer: served by the newest policy)"),
  out: z.string().min(1).default('results/online-experiment').describe('results: <out>/<user>/state (the service state) and <out>/<user>/result.json'),
  corpus: z.string().min(1).default('data/vendor/cpython/python-stdlib').describe('folder the examples were cut from'),
  tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe("tokenizer used to apply Continue's prompt budgets"),
  // Over the training service's settings (its --service-config file, else its defaults):
  lr: TrainingSchema.shape.lr.unwrap().optional().describe("the training service's training.lr"),
  batchSize: TrainingSchema.shape.batchSize.unwrap().optional().describe("the training service's training.batchSize"),
  temperatureFloor: CompletionServerSchema.shape.temperatureFloor
    .unwrap()
    .optional()
    .describe("the training service's completion.temperatureFloor (exploration; the held-out comparison serves as Continue asks)"),
  resamples: int().positive().default(2000).describe('cluster bootstrap resamples (over files) of the held-out differences'),
  serviceConfig: z.string().min(1).optional().describe("online service config (JSON or YAML, as online:serve's --config) of the training service; the flags above override it"),
  seed: int().default(0).describe('order of the examples, the --limit-positions subset and the resampling of the analysis'),
});
export type ExperimentSettings = z.output<typeof ExperimentSettings>;

export const LoadSettings = z.strictObject({
  model: z.string().min(1).default('models/base').describe('model folder `online serve` serves'),
  data: z.string().min(1).default('data/fim/fim.jsonl').describe('FIM JSONL whose "test" split the completion clients ask about'),
  seconds: z.number().positive().default(120).describe('how long the load runs'),
  completionClients: int().positive().default(8).describe('Continue clients asking for completions, one request after another (1.3.9 and upstream prompt forms in turn)'),
  feedbackClients: int().positive().default(16).describe('clients posting outcomes (fork and upstream bodies in turn)'),
  feedbackEveryMs: int().positive().default(50).describe('each feedback client posts a new outcome this often (after the previous one is answered)'),
  statusEveryMs: int().positive().default(100).describe('the status endpoint is called this often'),
  debounceMs: int().nonnegative().default(350).describe("after an answer the server shed (x-shed), a completion client asks again this much later (Continue's debounceDelay: the user's next pause)"),
  maxPromptTokens: int().positive().default(1024).describe("Continue's maxPromptTokens"),
  kill: z.boolean().default(false).describe('kill -9 the server half way, start it again on the same state dir, and count acknowledged outcomes missing from its feedback log as lost'),
  serviceConfig: z.string().min(1).optional().describe("online service config (JSON or YAML, as online:serve's --config) the server runs with"),
  stateDir: z.string().min(1).optional().describe("the server's state dir (default: a temporary folder, removed afterwards)"),
  serverLog: z.string().min(1).optional().describe("append the server's output to this file (default: discarded)"),
  engine: engineFields.engine.describe("what the server decodes with (passed to online serve as --engine): local, llamacpp or openai:URL"),
  engineWeights: engineFields.engineWeights,
});
export type LoadSettings = z.output<typeof LoadSettings>;
