// The settings of the supervised stages (pretrain, sft, rm), and the pieces every training stage shares: the
// optimiser (AdamW + gradient clipping + learning-rate schedule) and the run (output folder, epochs, batches, resume).
// Each field is declared once here, with its default and description; the apps' flags, --help, --config files and
// --print-config all come from these schemas (@rlhf-code/cli), and tests build settings as Schema.parse({ ... }).
import { z } from 'zod';
import { backendField } from '@rlhf-code/cli';
import { FIM_MODES, PROMPT_TEMPLATES } from '@rlhf-code/tokenizer';
import { LORA_TARGETS, type LoraConfig } from '@rlhf-code/model';
import type { LrScheduleKind } from './schedule';
import type { TrainerConfig } from './trainer';

const int = () => z.number().int();
export const LR_SCHEDULES = ['cosine', 'linear', 'constant'] as const satisfies readonly LrScheduleKind[];

/** Per-stage defaults of the optimiser fields. */
export interface OptimDefaults {
  lr: number;
  schedule: LrScheduleKind;
  warmupSteps: number;
  weightDecay: number;
  beta2: number;
  beta1?: number;
  maxGradNorm?: number;
}

/** The optimiser fields of a stage schema, with that stage's defaults. */
export function optimFields(d: OptimDefaults) {
  return {
    lr: z.number().positive().default(d.lr).describe('peak learning rate (AdamW)'),
    schedule: z.enum(LR_SCHEDULES).default(d.schedule).describe('learning-rate schedule after the warmup: cosine or linear decay to --min-lr, or constant'),
    minLr: z.number().nonnegative().optional().describe('learning rate at the end of the decay (default: lr / 10)'),
    warmupSteps: int().nonnegative().default(d.warmupSteps).describe('linear warmup, in optimizer steps'),
    weightDecay: z.number().nonnegative().default(d.weightDecay).describe('decoupled weight decay on matrices (not on norms and biases)'),
    beta1: z.number().min(0).lt(1).default(d.beta1 ?? 0.9).describe('AdamW beta1'),
    beta2: z.number().min(0).lt(1).default(d.beta2).describe('AdamW beta2'),
    maxGradNorm: z.number().nonnegative().default(d.maxGradNorm ?? 1).describe('clip the global gradient norm to this (0 = off)'),
  };
}

export interface OptimSettings {
  lr: number;
  schedule: LrScheduleKind;
  minLr?: number;
  warmupSteps: number;
  weightDecay: number;
  beta1: number;
  beta2: number;
  maxGradNorm: number;
}

/** The one minLr rule: unset means lr / 10 (nanoGPT's choice); a constant schedule never uses it. */
export function minLrOf(o: Pick<OptimSettings, 'lr' | 'minLr'>): number {
  return o.minLr ?? o.lr / 10;
}

/** The Trainer of a stage's optimiser settings over `totalSteps` optimizer steps (warmup capped at them). */
export function trainerConfig(o: OptimSettings, totalSteps: number): TrainerConfig {
  return {
    optimizer: { lr: o.lr, weightDecay: o.weightDecay, beta1: o.beta1, beta2: o.beta2 },
    schedule: { kind: o.schedule, minLr: Math.min(minLrOf(o), o.lr), warmupSteps: Math.min(o.warmupSteps, totalSteps), totalSteps },
    maxGradNorm: o.maxGradNorm,
  };
}

/** Cross-field checks of the optimiser fields, as a schema refinement. */
export function checkOptim(o: { lr: number; minLr?: number; schedule: LrScheduleKind }, ctx: z.RefinementCtx): void {
  if (o.minLr !== undefined && o.minLr > o.lr) ctx.addIssue({ code: 'custom', path: ['minLr'], message: `must not exceed lr (${o.lr})` });
  if (o.minLr !== undefined && o.schedule === 'constant') ctx.addIssue({ code: 'custom', path: ['minLr'], message: 'has no effect with a constant schedule (set schedule to cosine or linear)' });
}

/** Per-stage defaults of the run fields. */
export interface RunDefaults {
  out: string;
  epochs: number;
  batchSize: number;
  gradAccum: number;
  saveEvery: number;
}

/** Where a supervised stage writes, how long it runs, and how it batches. */
export function runFields(d: RunDefaults) {
  return {
    out: z.string().min(1).default(d.out).describe('checkpoint folder (Hugging Face layout + optimizer state for --resume, metrics.jsonl)'),
    epochs: int().positive().default(d.epochs).describe('passes over the training data'),
    maxSteps: int().nonnegative().default(0).describe('stop after this many optimizer steps; the warmup + decay then spans them, as in transformers (0 = all epochs)'),
    batchSize: int().positive().default(d.batchSize).describe('examples per micro-batch'),
    gradAccum: int().positive().default(d.gradAccum).describe('micro-batches per optimizer step'),
    saveEvery: int().nonnegative().default(d.saveEvery).describe('also save (and evaluate) every n steps; 0 = at epoch ends only'),
    seed: int().default(0).describe('seed of the data order, the split and the initialisation'),
    resume: z.boolean().default(false).describe('continue from the checkpoint in --out (same settings)'),
    quiet: z.boolean().default(false).describe('no progress bar'),
    gradCheckpointing: z.boolean().default(false).describe('keep only each layer\'s input in the forward pass and rerun the layer in the backward pass: far less activation memory for about a third more compute'),
    backend: backendField,
  };
}

/** LoRA on the base's projections (rank 0: fine-tune every weight instead). */
export function loraFields() {
  return {
    loraRank: int().nonnegative().default(0).describe('LoRA rank r: train low-rank adapters on the projections instead of every weight, the base frozen (0 = full fine-tuning)'),
    loraAlpha: z.number().positive().default(16).describe('LoRA alpha: the adapters are scaled by alpha / r'),
    loraDropout: z.number().min(0).lt(1).default(0).describe('dropout on the adapters\' input while training'),
    loraTargets: z.array(z.enum(LORA_TARGETS)).min(1).default([...LORA_TARGETS]).describe('projections that get adapters (comma-separated)'),
  };
}

/** --merge-export: with LoRA, a full checkpoint with the adapter merged in, written at the end of the run. */
export const mergeExportField = z
  .string()
  .min(1)
  .optional()
  .describe('with LoRA: at the end, also write a full checkpoint with the adapter merged into the weights here');

/** --merge-export needs an adapter to merge. */
export function checkMergeExport(s: { mergeExport?: string; loraRank: number }, ctx: z.RefinementCtx): void {
  if (s.mergeExport && s.loraRank === 0) ctx.addIssue({ code: 'custom', path: ['mergeExport'], message: 'needs LoRA (--lora-rank > 0)' });
}

/** The model's LoRA configuration of a stage's settings, or null for full fine-tuning. */
export function loraConfigOf(s: { loraRank: number; loraAlpha: number; loraDropout: number; loraTargets: LoraConfig['targets'] }): LoraConfig | null {
  return s.loraRank > 0 ? { r: s.loraRank, alpha: s.loraAlpha, dropout: s.loraDropout, targets: s.loraTargets } : null;
}

const exportFields = {
  export: z.string().min(1).optional().describe('at the end, also write the weights alone (no optimizer state) to this folder, e.g. models/base'),
  exportDtype: z.enum(['F32', 'BF16']).default('BF16').describe('storage dtype of --export'),
};

const FIM_ORDER =
  "order of a fill-in-the-middle example: psm (Qwen's <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m) or spm (<|fim_prefix|><|fim_suffix|>s<|fim_middle|>p m, the middle right after the prefix); recorded as fim_mode in the checkpoint's tokenizer_config.json";

export const PretrainSettings = z
  .strictObject({
    corpus: z.string().min(1).default('data/vendor/cpython/python-stdlib').describe('folder of Python files, or several separated by commas (held-out files: 1 in 10 of each, by path hash)'),
    tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe('tokenizer folder (tokenizer.json); the vocabulary size follows it'),
    seqLen: int().min(8).default(512).describe('window length in tokens'),
    fimRate: z.number().min(0).max(1).default(0.5).describe('share of chunks in fill-in-the-middle form'),
    fimMode: z.enum(FIM_MODES).optional().describe(`${FIM_ORDER} (default: the --init checkpoint's, else the tokenizer's, else psm)`),
    hiddenSize: int().positive().default(256).describe('model width'),
    layers: int().positive().default(6).describe('transformer blocks'),
    heads: int().positive().default(4).describe('attention heads'),
    kvHeads: int().positive().default(2).describe('key/value heads (grouped-query attention)'),
    intermediateSize: int().positive().default(704).describe('SwiGLU MLP width'),
    maxPosition: int().positive().default(1024).describe('max_position_embeddings in config.json'),
    ropeTheta: z.number().positive().default(10000).describe('rotary embedding base'),
    init: z.string().min(1).optional().describe('start from the weights of this checkpoint (continued pretraining) instead of a random initialisation; its config.json replaces the shape flags; optimizer and schedule start fresh'),
    ...exportFields,
    ...runFields({ out: 'results/pretrain', epochs: 2, batchSize: 4, gradAccum: 1, saveEvery: 100 }),
    ...optimFields({ lr: 1e-3, schedule: 'cosine', warmupSteps: 50, weightDecay: 0.1, beta2: 0.95 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    if (s.heads % s.kvHeads !== 0) ctx.addIssue({ code: 'custom', path: ['heads'], message: `${s.heads} must be a multiple of kvHeads (${s.kvHeads})` });
    if (s.hiddenSize % s.heads !== 0) ctx.addIssue({ code: 'custom', path: ['hiddenSize'], message: `${s.hiddenSize} must be a multiple of heads (${s.heads})` });
  });
export type PretrainSettings = z.output<typeof PretrainSettings>;

const templateField = z.enum(PROMPT_TEMPLATES as unknown as ['raw', 'chat']).default('raw').describe('prompt format: raw text (code models) or ChatML (instruct models)');
const modelField = (d: string, what: string) => z.string().min(1).default(d).describe(what).meta({ env: 'MODEL_PATH' });

export const SftSettings = z
  .strictObject({
    model: modelField('models/base', 'starting checkpoint (Hugging Face folder), or a LoRA adapter folder (its base with the adapter folded in)'),
    data: z
      .string()
      .min(1)
      .default('data/sft_data.jsonl')
      .describe('training data, one {"prompt", "response"} per line; a line with "suffix" too is a fill-in-the-middle example (prompt = before the cursor, response = the middle)'),
    template: templateField,
    maxLen: int().min(8).default(512).describe('longest example in tokens (the prompt is cut from the left first)'),
    pack: z.boolean().default(false).describe('pack several examples into each window of --max-len tokens'),
    heldoutFraction: z.number().min(0).lt(1).default(0.1).describe('share of prompts held out for the evaluation loss'),
    fimMode: z.enum(FIM_MODES).optional().describe(`${FIM_ORDER} (default: the --model checkpoint's)`),
    ...exportFields,
    ...loraFields(),
    mergeExport: mergeExportField,
    ...runFields({ out: 'results/sft', epochs: 3, batchSize: 8, gradAccum: 1, saveEvery: 0 }),
    ...optimFields({ lr: 3e-4, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
    if (s.export && s.loraRank > 0) ctx.addIssue({ code: 'custom', path: ['export'], message: 'with LoRA, use --merge-export (the adapters merged into a full checkpoint)' });
  });
export type SftSettings = z.output<typeof SftSettings>;

export const PAIR_LOSSES = ['none', 'diff', 'bt'] as const;
export type PairLoss = (typeof PAIR_LOSSES)[number];

export const RmSettings = z
  .strictObject({
    model: modelField('results/sft', 'starting checkpoint (causal LM, Hugging Face folder), or a LoRA adapter folder (its base with the adapter folded in)'),
    data: z
      .string()
      .min(1)
      .default('data/rm_data.jsonl')
      .describe('one {"prompt", "response", "score"} per line (optional "source": "reference" / "mutant:<kind>" for the pairwise accuracy)'),
    template: templateField,
    maxLen: int().min(8).default(384).describe('longest pair in tokens (the prompt is cut from the left first, then the response; the end token always stays)'),
    heldoutFraction: z.number().gt(0).lt(1).default(0.1).describe('share of prompts held out (all their responses) for MSE / Pearson / pairwise accuracy'),
    maxExamples: int().nonnegative().default(0).describe('use only the first n training pairs (0 = all)'),
    pairLoss: z
      .enum(PAIR_LOSSES)
      .default('none')
      .describe(
        'within-prompt term added to the MSE: diff = squared error of the predicted difference between two responses to one prompt against their score difference, bt = Bradley-Terry on the better/worse pairs, none = MSE alone (batches then sorted by length instead of holding whole prompts)',
      ),
    pairCoef: z.number().nonnegative().default(1).describe('weight of the within-prompt term'),
    ...loraFields(),
    mergeExport: mergeExportField,
    // lr 2e-4 and batch 16: measured for the RM on MBPP's and the suite's data (EXPERIMENTS.md 2026-11-24, 2026-11-27):
    // 2e-4 beat 5e-4 and 1e-3; batch 8 did no better.
    ...runFields({ out: 'results/rm', epochs: 1, batchSize: 16, gradAccum: 1, saveEvery: 0 }),
    ...optimFields({ lr: 2e-4, schedule: 'cosine', warmupSteps: 10, weightDecay: 0, beta2: 0.999 }),
  })
  .superRefine((s, ctx) => {
    checkOptim(s, ctx);
    checkMergeExport(s, ctx);
  });
export type RmSettings = z.output<typeof RmSettings>;
