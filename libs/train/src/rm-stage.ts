// Reward-model regression: a (prompt, response) pair -> a scalar fitted to its score with mean squared error.
// The score is read at the EOS token that ends each response (encodePair appends it), as HF's
// Qwen2ForSequenceClassification reads its last non-pad token. Held-out MSE and Pearson correlation
// tell whether the model ranks unseen responses the way their execution scores do.
import * as tf from '@tensorflow/tfjs';
import { corr } from 'mathjs';
import { RewardModel } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { FitResult } from './fit';
import { TrainingRun } from './run';
import { OptimConfig, runStage } from './stage';
import type { MicroBatch } from './trainer';

export interface RmExample {
  /** prompt + response + EOS token ids */
  ids: number[];
  score: number;
}

/** Right-padded ids and masks of a group of examples. */
function rmTensors(examples: readonly RmExample[], padId: number): { ids: tf.Tensor2D; mask: tf.Tensor2D } {
  const T = Math.max(...examples.map((e) => e.ids.length));
  const ids = examples.map((e) => [...e.ids, ...new Array<number>(T - e.ids.length).fill(padId)]);
  const mask = examples.map((e) => [...new Array<number>(e.ids.length).fill(1), ...new Array<number>(T - e.ids.length).fill(0)]);
  return { ids: tf.tensor2d(ids, undefined, 'int32'), mask: tf.tensor2d(mask, undefined, 'int32') };
}

/** Mean squared error of the predicted rewards against the scores (inside the caller's tape). */
export function rmLoss(rm: RewardModel, examples: readonly RmExample[], padId: number): tf.Scalar {
  return tf.tidy(() => {
    const { ids, mask } = rmTensors(examples, padId);
    const pred = rm.forward(ids, mask); // [B]
    return tf.mean(tf.square(tf.sub(pred, tf.tensor1d(examples.map((e) => e.score))))) as tf.Scalar;
  });
}

/** Predictions for many examples, batchSize at a time, without gradients. */
export function rmPredict(rm: RewardModel, examples: readonly RmExample[], padId: number, batchSize = 8): number[] {
  return rm.score(
    examples.map((e) => e.ids),
    padId,
    batchSize,
  );
}

export interface RegressionMetrics {
  n: number;
  mse: number;
  /** Pearson correlation of predictions and targets; null when either side is constant. */
  pearson: number | null;
}

export function regressionMetrics(pred: readonly number[], target: readonly number[]): RegressionMetrics {
  if (pred.length !== target.length) throw new Error(`regressionMetrics: ${pred.length} predictions for ${target.length} targets`);
  const n = pred.length;
  if (n === 0) return { n, mse: NaN, pearson: null };
  const mse = pred.reduce((s, p, i) => s + (p - target[i]) ** 2, 0) / n;
  const constant = (xs: readonly number[]) => xs.every((x) => x === xs[0]);
  const pearson = n < 2 || constant(pred) || constant(target) ? null : (corr([...pred], [...target]) as number);
  return { n, mse, pearson };
}

export interface RmStageOptions {
  rm: RewardModel;
  padId: number;
  tokenizerDir: string;
  outDir: string;
  train: RmExample[];
  heldOut: RmExample[];
  epochs: number;
  batchSize: number;
  gradAccum: number;
  maxSteps?: number;
  optim: OptimConfig;
  saveEvery: number;
  seed: number;
  resume: boolean;
  quiet?: boolean;
  extraFiles?: Record<string, string | object>;
}

export async function runRmStage(o: RmStageOptions): Promise<FitResult & { run: TrainingRun; heldout: RegressionMetrics | null }> {
  const order = new Map<number, RmExample[]>();
  const epochExamples = (epoch: number) => {
    if (!order.has(epoch)) order.set(epoch, shuffle(o.train, `${o.seed}:${epoch}`));
    return order.get(epoch)!;
  };
  let heldout: RegressionMetrics | null = null;
  const evaluate = () => {
    heldout = regressionMetrics(rmPredict(o.rm, o.heldOut, o.padId, o.batchSize), o.heldOut.map((e) => e.score));
    return { 'eval/mse': heldout.mse, 'eval/pearson': heldout.pearson, 'eval/n': heldout.n };
  };
  const result = await runStage({
    label: 'rm',
    params: o.rm.params,
    outDir: o.outDir,
    numExamples: o.train.length,
    batchSize: o.batchSize,
    gradAccum: o.gradAccum,
    epochs: o.epochs,
    maxSteps: o.maxSteps,
    optim: o.optim,
    saveEvery: o.saveEvery,
    resume: o.resume,
    quiet: o.quiet,
    microBatch: (epoch, start, end): MicroBatch => {
      const batch = epochExamples(epoch).slice(start, end);
      return {
        weight: batch.length,
        loss: () => {
          const loss = rmLoss(o.rm, batch, o.padId);
          return { loss, aux: { 'rm/score_mean': tf.scalar(batch.reduce((s, e) => s + e.score, 0) / batch.length) } };
        },
      };
    },
    evaluate: o.heldOut.length > 0 ? evaluate : undefined,
    save: (trainingState, keepFiles) =>
      o.rm.save(o.outDir, {
        tokenizerDir: o.tokenizerDir,
        trainingState,
        keepFiles,
        extraFiles: { ...o.extraFiles, ...(heldout ? { 'heldout.json': { heldout } } : {}) },
      }),
  });
  return { ...result, heldout };
}
