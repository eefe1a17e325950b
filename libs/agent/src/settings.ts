// The settings of the tool-use stages, one schema each, with defaults and descriptions here once; the
// tool-rl app's flags, --help and --config come from them.
//   ToolWarmStartSettings  SFT on synthetic tool-use traces (the format, before RL)
//   ToolGrpoSettings       GRPO over multi-turn episodes with the Python interpreter
//   ToolEvalSettings       success on held-out tasks, per model and interpreter, paired against a baseline row
//
// The defaults are the seed's recipe (verl + SandboxFusion on Qwen2.5-Coder-1.5B-Instruct: 4 samples per task, KL
// 0.001, entropy 0.01, 30 s per call, up to 10 turns) where this machine can hold it; scaled where it cannot, and
// said so in the field: 2 concurrent interpreters (2 cores) instead of 10, and turn and token limits that fit the
// shipped model's 1024 positions.
import { z } from 'zod';
import { engineFields } from '@rlhf-code/engine';
import { lossAggregationField, rolloutIsFields } from '@rlhf-code/rl';
import { checkMergeExport, checkOptim, loraFields, mergeExportField, optimFields, runFields } from '@rlhf-code/trainer-core';

const int = () => z.number().int();
export const INTERPRETERS = ['stateful', 'stateless'] as const;
export type InterpreterKind = (typeof INTERPRETERS)[number];
/** How a warm-start trace writes its tool calls: `json` as Qwen2.5-style templates do, `code` as a fenced block (parseToolCalls). */
export const CALL_FORMS = ['json', 'code'] as const;
export type CallForm = (typeof CALL_FORMS)[number];

const model = (d: string, what: string) => z.string().min(1).default(d).describe(what);

/**
 * Task files: tool tasks (`{"question", "answer" | "tests"}` lines) or problems in MBPP's schema (the task suite's
 * data/suite/*.jsonl: programming tasks judged by their tests), comma-separated; `FILE:N` takes N of FILE's tasks.
 */
const taskFiles = (d: string[], what: string) =>
  z
    .array(z.string().min(1))
    .min(1)
    .default(d)
    .describe(`${what}: files of tool tasks ({"question", "answer" | "tests"} per line) or of problems in MBPP's schema (programming tasks), comma-separated; FILE:N takes N of FILE's tasks, drawn with --seed`);
/** The computed-value questions beside the programming tasks: the second, smaller family (a sample of data/tools/train.jsonl). */
const QUESTIONS_SAMPLE = 'data/tools/train.jsonl:300';

/** The episode's limits and the tool's: shared by training and evaluation, so both run the same episodes. */
const episodeFields = {
  maxTurns: int().positive().default(10).describe('assistant turns per episode at most (the seed: 10)'),
  maxTurnTokens: int().positive().default(96).describe('tokens per assistant turn at most (a turn cut here ends the episode)'),
  maxTotalTokens: int().positive().default(640).describe('tokens of the whole episode at most: prompt, turns and tool answers (the shipped model has 1024 positions)'),
  toolTimeoutMs: int().positive().default(30_000).describe('wall-clock limit of one tool call (the seed: 30 s); the process is killed on it'),
  toolMemoryMb: int().nonnegative().default(512).describe('address-space limit of an interpreter process in MiB (0 = none)'),
  toolOutputChars: int().positive().default(500).describe('characters of a tool answer the model sees; the rest is cut and the answer says so'),
  toolWorkers: int().positive().default(2).describe('interpreter calls running at once (the seed: 10 workers; 2 on 2 cores)'),
  temperature: z.number().positive().default(1).describe('sampling temperature of the assistant turns (log-probs use the same; eval: of rows without their own @temperature)'),
  system: z.string().optional().describe('system message before the tools (default: none, the template\'s own preamble)'),
};

const { gradAccum: _g, ...warmRun } = runFields({ out: 'results/tools/sft', epochs: 4, batchSize: 8, gradAccum: 1, saveEvery: 0 });

export const ToolWarmStartSettings = z
  .strictObject({
    model: model('models/base', 'starting checkpoint (Hugging Face folder); its tokenizer_config.json chat_template renders the traces'),
    data: taskFiles(['data/suite/sft.jsonl', QUESTIONS_SAMPLE], 'the traces\' tasks: questions with reference calls, programming tasks with a reference (the suite\'s sft split); tasks without are skipped, and counted'),
    directShare: z
      .number()
      .min(0)
      .max(1)
      .default(0.3)
      .describe('share of traces that answer at once, without the tool: a warm-started model that sometimes trusts itself, as instruct models do before RL (0 = every trace calls the tool)'),
    assertShare: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe('share of programming traces that check the reference by running the assert the question shows (silent when it holds); the others print the call\'s value'),
    fixShare: z
      .number()
      .min(0)
      .max(1)
      .default(0.25)
      .describe('share of programming traces that first run a wrong attempt (the reference with one operation swapped for a sibling: + for -, max for min, the even filter for the odd one; without one, the last return dropped), read the wrong value or the AssertionError, then run the reference (an attempt the shown test cannot tell from the reference is dropped)'),
    interpreter: z.enum(INTERPRETERS).default('stateful').describe('interpreter the reference calls run in (two-call traces need stateful)'),
    callForm: z
      .enum(CALL_FORMS)
      .default('json')
      .describe('how the traces write a tool call: json (Qwen2.5\'s {"name", "arguments"} object, the code escaped in a JSON string) or code (the code in a ```python block inside <tool_call>: written as code is written anywhere else); the episodes accept both'),
    maxLen: int().min(8).default(768).describe('traces longer than this many tokens are dropped, and counted'),
    heldoutFraction: z.number().min(0).lt(1).default(0.05).describe('share of traces held out for the evaluation loss'),
    system: episodeFields.system,
    ...loraFields(),
    mergeExport: mergeExportField,
    ...warmRun,
    ...optimFields({ lr: 1e-3, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
  });
export type ToolWarmStartSettings = z.output<typeof ToolWarmStartSettings>;

const { epochs: _e, maxSteps: _m, gradAccum: _a, ...rlRun } = runFields({ out: 'results/tools/grpo', epochs: 1, batchSize: 8, gradAccum: 1, saveEvery: 0 });
const lora = loraFields();

export const ToolGrpoSettings = z
  .strictObject({
    model: model('results/tools/sft', 'starting policy (the warm-started checkpoint); also the frozen reference and the tokenizer'),
    data: taskFiles(['data/suite/rl.jsonl', QUESTIONS_SAMPLE], 'training tasks (the suite\'s rl split: prompts and tests only)'),
    steps: int().positive().default(20).describe('iterations (episodes + update)'),
    ...rlRun,
    batchSize: rlRun.batchSize.describe('tasks per iteration, each tried --group-size times'),
    saveEvery: rlRun.saveEvery.describe('also save every n iterations (0 = only at the end)'),
    seed: rlRun.seed.describe('seed of sampling and task order'),
    groupSize: int().min(2).default(4).describe('episodes per task; advantages are normalised within the group (the seed: 4)'),
    klCoef: z.number().nonnegative().default(0.001).describe('k3 KL to the reference in the loss, on the model\'s own tokens (the seed: 0.001)'),
    entropyCoef: z.number().nonnegative().default(0.01).describe('entropy bonus on the model\'s own tokens (the seed: 0.01)'),
    cliprange: z.number().positive().default(0.2).describe('policy ratio clip'),
    ppoEpochs: int().positive().default(1).describe('passes over each iteration\'s episodes'),
    miniBatches: int().positive().default(2).describe('optimizer steps per pass'),
    microBatchSize: int().positive().default(4).describe('episodes per forward/backward pass (gradient accumulation; also the chunk of the log-prob passes)'),
    lossAggregation: lossAggregationField,
    ...engineFields,
    ...rolloutIsFields,
    malformedPenalty: z.number().nonnegative().default(0).describe('subtracted from an episode\'s reward per malformed tool call (0 = success alone)'),
    interpreter: z.enum(INTERPRETERS).default('stateful').describe('stateful: one Python process per episode, variables kept across calls; stateless: a fresh python3 -I per call (SandboxFusion)'),
    limit: int().nonnegative().default(0).describe('use only the first n tasks (0 = all)'),
    ...episodeFields,
    ...optimFields({ lr: 1e-4, schedule: 'constant', warmupSteps: 0, weightDecay: 0, beta2: 0.999 }),
    loraRank: lora.loraRank.describe('LoRA rank r: train an adapter on the frozen --model (the reference is that base with the adapter off); 0 = every weight'),
    loraAlpha: lora.loraAlpha,
    loraTargets: lora.loraTargets,
    mergeExport: mergeExportField,
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
  });
export type ToolGrpoSettings = z.output<typeof ToolGrpoSettings>;

export const TOOL_MODES = [...INTERPRETERS, 'none'] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

export const ToolEvalSettings = z.strictObject({
  runs: z
    .string()
    .min(1)
    .default('warmstart=results/tools/sft:stateful,grpo_stateful=results/tools/grpo:stateful,grpo_stateless=results/tools/grpo:stateless,grpo_no_tool=results/tools/grpo:none')
    .describe('rows of the table, comma-separated name=checkpoint:tool[@temperature], tool = stateful, stateless or none (no tool offered, none run); a row without @ samples at --temperature'),
  baseline: z.string().min(1).default('warmstart').describe('the row every other row is compared with, paired per task ("vs_sft")'),
  data: taskFiles(['data/suite/test.jsonl'], 'held-out tasks (the suite\'s test split: pass@1 of the final code, by group of operations; data/tools/heldout.jsonl: the questions)'),
  stubs: z.boolean().default(true).describe('add the offline evaluation\'s trivial programs (libs/sandbox stubs) as final code of every programming task, as rows stub:<what>'),
  samplesPerTask: int().positive().default(4).describe('episodes per task and row at a temperature above 0 (a greedy row runs each task once)'),
  devData: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('dev tasks (same shapes as --data; FILE:N takes N of them): each row without @temperature is evaluated at the temperature of --temperatures with its best success there (default: none, every such row at --temperature)'),
  temperatures: z
    .array(z.number().nonnegative())
    .min(1)
    .default([0, 0.5, 1])
    .refine((ts) => new Set(ts).size === ts.length, { error: 'lists a temperature twice' })
    .describe('candidate temperatures on --dev-data, 0 = greedy; the best dev success wins (ties: the lower)'),
  devSamples: int().positive().default(2).describe('episodes per dev task at each temperature above 0 (greedy runs once)'),
  limit: int().nonnegative().default(0).describe('use only the first n tasks (0 = all)'),
  batchSize: int().positive().default(16).describe('episodes decoded together'),
  out: z.string().min(1).default('results/tools/eval.json').describe('the table as JSON'),
  seed: int().default(0).describe('seed of sampling'),
  commonRandom: z
    .boolean()
    .default(true)
    .describe('every row samples episode i, turn k with the same random numbers (common random numbers: less noise in the paired differences; off: each row its own)'),
  ...episodeFields,
});
export type ToolEvalSettings = z.output<typeof ToolEvalSettings>;
