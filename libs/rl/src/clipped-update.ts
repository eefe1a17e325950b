// The clipped policy-gradient update shared by the RL algorithms (rl-trainer.ts) and the online trainer: `epochs` passes
// over the rows, each cut into `miniBatches` contiguous slices of that epoch's order, one optimizer step per slice
// (the Trainer accumulates the slice's micro-batches); stopped early by the caller's rule (e.g. approximate KL) or at
// a step whose gradients were not finite. And the policy part of the loss: the clipped surrogate plus, when asked,
// the k3 KL to a reference, aggregated over the response tokens.
import * as tf from '@tensorflow/tfjs';
import type { MicroBatch, Trainer } from '@rlhf-code/trainer-core';
import { k3Kl } from './kl';
import { aggregate, type LossAggregation } from './masked';
import { METRICS, MetricMeans, type MetricRecord } from './metrics';
import { clippedPolicyLoss } from './policy-loss';

export interface ClippedUpdateOptions {
  trainer: Trainer;
  /** Rows (sequences) the update covers. */
  rows: number;
  epochs: number;
  miniBatches: number;
  /** The rows' order in `epoch` (default: 0..rows-1 every epoch). */
  order?: (epoch: number) => number[];
  /** The micro-batches of one optimizer step over `rows`. */
  microBatches: (rows: number[]) => MicroBatch[];
  /** After a step: true stops the update (e.g. its approximate KL is past a bound), and says so in the result. */
  stopAfter?: (aux: Record<string, number>) => boolean;
  /** Awaited after every optimizer step (a server keeps decoding meanwhile). */
  pause?: () => Promise<void>;
}

export interface ClippedUpdateResult {
  /** Optimizer steps taken (a step with non-finite gradients counts, though it changed nothing). */
  steps: number;
  /** A step's loss or gradients were not finite: the update stopped there. */
  nonFinite: boolean;
  /** stopAfter ended the update before its last step. */
  earlyStopped: boolean;
  lr: number;
  /** Mean over the steps of each step's (weighted mean) loss. */
  loss: number;
  /** Means over the steps of the gradient norm and every aux value. */
  means: MetricRecord;
}

export async function clippedUpdate(o: ClippedUpdateOptions): Promise<ClippedUpdateResult> {
  const means = new MetricMeans();
  const identity = Array.from({ length: o.rows }, (_, i) => i);
  const slices = Math.min(o.miniBatches, o.rows);
  let steps = 0;
  let lossSum = 0;
  let lr = o.trainer.optimizer.lr;
  const result = (nonFinite: boolean, earlyStopped: boolean): ClippedUpdateResult => ({
    steps,
    nonFinite,
    earlyStopped,
    lr,
    loss: steps > 0 ? lossSum / steps : NaN,
    means: means.means(),
  });
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    const order = o.order?.(epoch) ?? identity;
    for (let m = 0; m < slices; m++) {
      const rows = order.slice(Math.floor((m * o.rows) / slices), Math.floor(((m + 1) * o.rows) / slices));
      const r = o.trainer.step(o.microBatches(rows));
      steps++;
      lossSum += r.loss;
      lr = r.lr;
      means.add({ ...r.aux, [METRICS.gradNorm]: r.gradNorm });
      await o.pause?.();
      if (r.skipped || !Number.isFinite(r.loss)) return result(true, false);
      if (o.stopAfter?.(r.aux)) return result(false, true);
    }
  }
  return result(false, false);
}

export interface PolicyLossOptions {
  clipRange: number;
  aggregation: LossAggregation;
  /** Weight of the k3 KL to the reference (with refLogprobs); 0 = no KL term. */
  klCoef?: number;
  /** [B, R] truncated importance weights of the clipped loss (truncatedIsWeights); absent: none. */
  isWeights?: tf.Tensor2D;
}

/**
 * The policy part of the loss over [B, R] response tokens (inside the caller's tape): the clipped surrogate, + klCoef
 * x k3 KL(policy || reference) when klCoef > 0. aux: the policy loss, clip fraction, approximate KL, and the KL term.
 */
export function policyLoss(
  logprobs: tf.Tensor2D,
  oldLogprobs: tf.Tensor2D,
  advantages: tf.Tensor2D,
  mask: tf.Tensor2D,
  o: PolicyLossOptions,
  refLogprobs?: tf.Tensor2D,
): { loss: tf.Scalar; aux: Record<string, tf.Scalar> } {
  const pg = clippedPolicyLoss(logprobs, oldLogprobs, advantages, mask, o.clipRange, o.aggregation, o.isWeights);
  const aux: Record<string, tf.Scalar> = { [METRICS.lossPolicy]: pg.loss, [METRICS.clipfrac]: pg.clipfrac, [METRICS.approxKl]: pg.approxKl };
  if (!refLogprobs || !(o.klCoef && o.klCoef > 0)) return { loss: pg.loss, aux };
  const kl = aggregate(k3Kl(logprobs, refLogprobs), mask, o.aggregation);
  aux[METRICS.lossKl] = kl;
  return { loss: tf.add(pg.loss, tf.mul(o.klCoef, kl)) as tf.Scalar, aux };
}
