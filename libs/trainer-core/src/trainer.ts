// The one training step every app uses (SFT, reward model, PPO, online updates):
//   for each micro-batch: loss -> gradients -> accumulate (weighted)
//   then: clip by global norm -> skip if non-finite -> AdamW with the scheduled learning rate.
// Apps differ only in the loss function they hand in.
// The losses and gradients are computed with the configured GEMM precision (fp32, or bf16 operands with fp32
// accumulation: mixed precision); the process's precision is restored after the step, so sampling between steps stays
// fp32, while the no-gradient passes a step is compared with (RL's old and reference log-probs) run in the step's
// precision through inStepPrecision. Weights, gradients and AdamW's state are fp32 tensors either way.
import * as tf from '@tensorflow/tfjs';
import { inGemmPrecision, type GemmPrecision } from '@rlhf-code/backend';
import { AdamW, AdamWConfig } from './adamw';
import { GradAccumulator } from './accumulate';
import { clipByGlobalNorm, globalNorm } from './clip';
import { lrSchedule, LrScheduleConfig } from './schedule';

/** A micro-batch's loss, built inside the gradient tape; `aux` are extra scalars to report (no gradient). */
export type LossFn = () => { loss: tf.Scalar; aux?: Record<string, tf.Scalar> };

export interface MicroBatch {
  loss: LossFn;
  /** Weight in the accumulated mean, e.g. the number of loss tokens; default 1. */
  weight?: number;
}

export interface TrainerConfig {
  optimizer: AdamWConfig;
  schedule: Omit<LrScheduleConfig, 'maxLr' | 'restartStep'>;
  /** Clip the global gradient norm to this; 0 = no clipping. */
  maxGradNorm: number;
  /** GEMM operand precision of the forward and backward passes; default fp32. */
  precision?: GemmPrecision;
  /**
   * The run step the optimizer's moments start at: 0, or the step of a checkpoint a run continued from with a fresh
   * optimizer (pretrain --init). The run's step is this plus the optimizer's own count (its bias correction counts from
   * its first step), and the warmup is applied again from it (lrSchedule's restartStep).
   */
  optimizerStart?: number;
}

export interface StepResult {
  /** Weighted mean loss over the micro-batches. */
  loss: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  lr: number;
  /** True when the gradients were not finite and no update was made. */
  skipped: boolean;
  /** Weighted means of the loss functions' aux values. */
  aux: Record<string, number>;
}

/**
 * Gradients of a scalar loss with respect to the given parameters, keyed like `params` (HF names).
 * tfjs names variables globally, so the result is mapped back from variable names.
 */
export function gradientsOf(
  params: Record<string, tf.Variable>,
  f: LossFn,
): { loss: number; aux: Record<string, number>; grads: Record<string, tf.Tensor> } {
  const byVarName = new Map(Object.entries(params).map(([key, v]) => [v.name, key]));
  let aux: Record<string, tf.Scalar> = {};
  const { value, grads } = tf.variableGrads(() => {
    const r = f();
    aux = r.aux ?? {};
    for (const t of Object.values(aux)) tf.keep(t);
    return r.loss;
  }, Object.values(params));
  const out: Record<string, tf.Tensor> = {};
  for (const [varName, g] of Object.entries(grads)) out[byVarName.get(varName)!] = g;
  const auxNumbers = Object.fromEntries(Object.entries(aux).map(([k, t]) => [k, t.dataSync()[0]]));
  const loss = value.dataSync()[0];
  tf.dispose([value, ...Object.values(aux)]);
  return { loss, aux: auxNumbers, grads: out };
}

export class Trainer {
  readonly optimizer: AdamW;
  private readonly accumulator = new GradAccumulator();
  /** The learning rate of run step `step` (0-based). */
  readonly lrAt: (step: number) => number;
  readonly optimizerStart: number;

  constructor(
    readonly params: Record<string, tf.Variable>,
    readonly config: TrainerConfig,
  ) {
    this.optimizer = new AdamW(config.optimizer);
    this.optimizerStart = config.optimizerStart ?? 0;
    this.lrAt = lrSchedule({ ...config.schedule, maxLr: config.optimizer.lr, restartStep: this.optimizerStart });
  }

  /** The run's optimizer steps so far (also the index of the next step's learning rate). */
  get stepCount(): number {
    return this.optimizerStart + this.optimizer.stepCount;
  }

  /**
   * Runs `fn` with the step's GEMM precision, then puts the one before back: the forward passes whose numbers a step
   * is compared with (RL's old and reference log-probs, whose ratio with the step's own must start at exactly 1) run
   * as the step runs.
   */
  inStepPrecision<T>(fn: () => T): T {
    return inGemmPrecision(this.config.precision ?? 'fp32', fn);
  }

  /** One optimizer step over the given micro-batches. */
  step(microBatches: MicroBatch[]): StepResult {
    if (microBatches.length === 0) throw new Error('Trainer.step: no micro-batches');
    let lossSum = 0;
    let weightSum = 0;
    const auxSum: Record<string, number> = {};
    this.inStepPrecision(() => {
      for (const mb of microBatches) {
        const weight = mb.weight ?? 1;
        const { loss, aux, grads } = gradientsOf(this.params, mb.loss);
        this.accumulator.add(grads, weight);
        tf.dispose(Object.values(grads));
        lossSum += loss * weight;
        weightSum += weight;
        for (const [k, v] of Object.entries(aux)) auxSum[k] = (auxSum[k] ?? 0) + v * weight;
      }
    });
    const mean = this.accumulator.take();
    const { grads, norm } = this.config.maxGradNorm > 0 ? clipByGlobalNorm(mean, this.config.maxGradNorm) : { grads: mean, norm: globalNorm(mean) };
    const lr = this.lrAt(this.stepCount);
    const skipped = !Number.isFinite(norm);
    if (!skipped) this.optimizer.step(this.params, grads, lr);
    tf.dispose(Object.values(grads));
    if (grads !== mean) tf.dispose(Object.values(mean));
    const aux = Object.fromEntries(Object.entries(auxSum).map(([k, v]) => [k, v / weightSum]));
    return { loss: lossSum / weightSum, gradNorm: norm, lr, skipped, aux };
  }

  dispose(): void {
    this.optimizer.dispose();
    this.accumulator.dispose();
  }
}
