// The settings fields every training stage shares, each declared once with its default and description: the optimiser
// (AdamW + gradient clipping + learning-rate schedule), the run (output folder, epochs, batches, resume) and LoRA. A
// stage's schema (sft, rm, ppo, tool GRPO, online) spreads them with its own defaults; trainerConfig turns the
// optimiser fields into the Trainer's configuration.
import { z } from 'zod';
import { GEMM_PRECISIONS, type GemmPrecision } from '@rlhf-code/backend';
import { LORA_TARGETS, type LoraConfig } from '@rlhf-code/model';
import { LR_SCHEDULES, type LrScheduleKind } from './schedule';
import type { TrainerConfig } from './trainer';

const int = () => z.number().int();

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

/**
 * The training step's GEMM precision (every training stage's --precision, and bench train's). bf16 by default: its
 * pretraining and SFT loss curves follow fp32's within what a seed moves them, at 1.37x the speed (EXPERIMENTS.md
 * 2026-11-29 (night)).
 */
export const precisionField = z
  .enum(GEMM_PRECISIONS as [GemmPrecision, ...GemmPrecision[]])
  .default('bf16')
  .describe(
    "the training step's matrix products, forward and backward: bf16 operands with fp32 accumulation (AVX-512 BF16, or the same rounding multiplied in fp32 on other CPUs; weights, optimizer state, norms, softmax and loss stay fp32), or fp32",
  );

/** The optimiser fields of a stage schema, with that stage's defaults. */
export function optimFields(d: OptimDefaults) {
  return {
    lr: z.number().positive().default(d.lr).describe('peak learning rate (AdamW)'),
    schedule: z
      .enum(LR_SCHEDULES)
      .default(d.schedule)
      .describe(
        'learning-rate schedule after the warmup: cosine or linear decay to --min-lr, constant, or wsd (warmup-stable-decay: --lr held, then a linear decay to --min-lr over the last --decay-steps steps before --max-steps; a run resumed with a larger --max-steps keeps its rate until that decay starts)',
      ),
    minLr: z.number().nonnegative().optional().describe('learning rate at the end of the decay (default: lr / 10)'),
    warmupSteps: int().nonnegative().default(d.warmupSteps).describe('linear warmup, in optimizer steps (again after an optimizer restart: pretrain --init of a checkpoint with a position)'),
    decaySteps: int().nonnegative().optional().describe('wsd: steps of the final decay, the last ones before --max-steps (default: a fifth of the run)'),
    weightDecay: z.number().nonnegative().default(d.weightDecay).describe('decoupled weight decay on matrices (not on norms and biases)'),
    beta1: z.number().min(0).lt(1).default(d.beta1 ?? 0.9).describe('AdamW beta1'),
    beta2: z.number().min(0).lt(1).default(d.beta2).describe('AdamW beta2'),
    maxGradNorm: z.number().nonnegative().default(d.maxGradNorm ?? 1).describe('clip the global gradient norm to this (0 = off)'),
    precision: precisionField,
  };
}

export interface OptimSettings {
  lr: number;
  schedule: LrScheduleKind;
  minLr?: number;
  warmupSteps: number;
  /** wsd: length of the final decay (default a fifth of the run). */
  decaySteps?: number;
  weightDecay: number;
  beta1: number;
  beta2: number;
  maxGradNorm: number;
  /** The training step's GEMM operands (default fp32). */
  precision?: GemmPrecision;
}

/** The one minLr rule: unset means lr / 10 (nanoGPT's choice); a constant schedule never uses it. */
export function minLrOf(o: Pick<OptimSettings, 'lr' | 'minLr'>): number {
  return o.minLr ?? o.lr / 10;
}

/**
 * The Trainer of a stage's optimiser settings over `totalSteps` optimizer steps (warmup capped at them).
 * `optimizerStart`: the run step the optimizer's moments start at (Trainer: 0, or where a fresh optimizer took over).
 */
export function trainerConfig(o: OptimSettings, totalSteps: number, optimizerStart = 0): TrainerConfig {
  return {
    optimizer: { lr: o.lr, weightDecay: o.weightDecay, beta1: o.beta1, beta2: o.beta2 },
    schedule: { kind: o.schedule, minLr: Math.min(minLrOf(o), o.lr), warmupSteps: Math.min(o.warmupSteps, totalSteps), totalSteps, decaySteps: o.decaySteps },
    maxGradNorm: o.maxGradNorm,
    precision: o.precision ?? 'fp32',
    optimizerStart,
  };
}

/** Cross-field checks of the optimiser fields, as a schema refinement. */
export function checkOptim(o: { lr: number; minLr?: number; schedule: LrScheduleKind; decaySteps?: number }, ctx: z.RefinementCtx): void {
  if (o.minLr !== undefined && o.minLr > o.lr) ctx.addIssue({ code: 'custom', path: ['minLr'], message: `must not exceed lr (${o.lr})` });
  if (o.minLr !== undefined && o.schedule === 'constant') ctx.addIssue({ code: 'custom', path: ['minLr'], message: 'has no effect with a constant schedule (set schedule to cosine or linear)' });
  if (o.decaySteps !== undefined && o.schedule !== 'wsd') ctx.addIssue({ code: 'custom', path: ['decaySteps'], message: `only the wsd schedule has a decay of its own length (schedule is ${o.schedule})` });
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
    recomputeLayers: z.boolean().default(false).describe('keep only each layer\'s input in the forward pass and rerun the layer in the backward pass: far less activation memory for about a third more compute'),
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

/**
 * A low-precision base is frozen: only an adapter trains on it. `group`: where the two keys sit (the online service's
 * `training`); the message names the rank as a flag, or as `group.loraRank` inside a group.
 */
export function checkBaseDtype(s: { baseDtype: string; loraRank: number }, ctx: z.RefinementCtx, group?: string): void {
  if (s.baseDtype === 'fp32' || s.loraRank > 0) return;
  const rank = group ? `${group}.loraRank` : '--lora-rank';
  ctx.addIssue({ code: 'custom', path: group ? [group, 'baseDtype'] : ['baseDtype'], message: `a base in ${s.baseDtype} trains only through LoRA: set ${rank}` });
}

/** The model's LoRA configuration of a stage's settings, or null for full fine-tuning. */
export function loraConfigOf(s: { loraRank: number; loraAlpha: number; loraDropout: number; loraTargets: LoraConfig['targets'] }): LoraConfig | null {
  return s.loraRank > 0 ? { r: s.loraRank, alpha: s.loraAlpha, dropout: s.loraDropout, targets: s.loraTargets } : null;
}
