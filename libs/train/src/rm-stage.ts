// Reward-model regression: a (prompt, response) pair -> a scalar fitted to its score with mean squared error.
// The score is read at the EOS token that ends each response (encodePair appends it), as HF's
// Qwen2ForSequenceClassification reads its last non-pad token. Held-out MSE and Pearson correlation
// tell whether the model ranks unseen responses the way their execution scores do; the pairwise accuracy whether it
// puts each held-out prompt's reference solution above that prompt's mutants (broken variants of the reference).
import * as tf from '@tensorflow/tfjs';
import { corr } from 'mathjs';
import { RewardModel } from '@rlhf-code/model';
import { groupByLength, shuffle } from '@rlhf-code/data';
import { jackknife } from '@rlhf-code/stats';
import { FitResult } from './fit';
import { RunDir, TrainingRun, type MicroBatch } from '@rlhf-code/trainer-core';
import { runStage, type StageLoopSettings } from './stage';
import type { PairLoss } from './settings';

export interface RmExample {
  /** prompt + response + EOS token ids */
  ids: number[];
  score: number;
  /** Rows with the same group answer the same prompt; the pairwise accuracy compares rows of one group only. */
  group?: string;
  /** Where the response comes from (rm data's `source`): "reference" and "mutant" / "mutant:<kind>" are paired. */
  source?: string;
}

/** Right-padded ids and masks of a group of examples. */
function rmTensors(examples: readonly RmExample[], padId: number): { ids: tf.Tensor2D; mask: tf.Tensor2D } {
  const T = Math.max(...examples.map((e) => e.ids.length));
  const ids = examples.map((e) => [...e.ids, ...new Array<number>(T - e.ids.length).fill(padId)]);
  const mask = examples.map((e) => [...new Array<number>(e.ids.length).fill(1), ...new Array<number>(T - e.ids.length).fill(0)]);
  return { ids: tf.tensor2d(ids, undefined, 'int32'), mask: tf.tensor2d(mask, undefined, 'int32') };
}


/** Index pairs (i, j), i < j, of rows of one group in a batch, with the score difference s_i - s_j. */
export function groupPairs(examples: readonly RmExample[]): { i: number[]; j: number[]; diff: number[] } {
  const out = { i: [] as number[], j: [] as number[], diff: [] as number[] };
  for (let a = 0; a < examples.length; a++) {
    for (let b = a + 1; b < examples.length; b++) {
      if (examples[a].group === undefined || examples[a].group !== examples[b].group) continue;
      out.i.push(a);
      out.j.push(b);
      out.diff.push(examples[a].score - examples[b].score);
    }
  }
  return out;
}

/**
 * Mean squared error of the predicted rewards against the scores (inside the caller's tape), plus pairCoef x a
 * within-prompt term over the batch's pairs of one group: 'diff' = squared error of the predicted difference against
 * the score difference; 'bt' = Bradley-Terry -log sigmoid(r_better - r_worse) over pairs whose scores differ.
 */
export function rmLoss(rm: RewardModel, examples: readonly RmExample[], padId: number, pairLoss: PairLoss = 'none', pairCoef = 0): tf.Scalar {
  return tf.tidy(() => {
    const { ids, mask } = rmTensors(examples, padId);
    const pred = rm.forward(ids, mask); // [B]
    const mse = tf.mean(tf.square(tf.sub(pred, tf.tensor1d(examples.map((e) => e.score))))) as tf.Scalar;
    if (pairLoss === 'none' || pairCoef === 0) return mse;
    let { i, j, diff } = groupPairs(examples);
    if (pairLoss === 'bt') {
      // orient each pair better - worse, drop ties (within 0.01: the score's own rounding)
      const keep = diff.map((d) => Math.abs(d) > 0.01);
      const better = i.map((a, k) => (diff[k] > 0 ? a : j[k])).filter((_, k) => keep[k]);
      const worse = i.map((a, k) => (diff[k] > 0 ? j[k] : a)).filter((_, k) => keep[k]);
      [i, j, diff] = [better, worse, better.map(() => 0)];
    }
    if (i.length === 0) return mse;
    const d = tf.sub(tf.gather(pred, tf.tensor1d(i, 'int32')), tf.gather(pred, tf.tensor1d(j, 'int32'))); // [P]
    const pair = pairLoss === 'diff' ? tf.mean(tf.square(tf.sub(d, tf.tensor1d(diff)))) : tf.mean(tf.softplus(tf.neg(d)));
    return tf.add(mse, tf.mul(pair, pairCoef)) as tf.Scalar;
  });
}

/**
 * Every group's rows together, so a batch compares responses to one prompt: groups shuffled, then sorted by their
 * longest row within runs of 50 groups (as groupByLength, so that a batch pads little), rows shuffled inside a group.
 */
export function groupedOrder(examples: readonly RmExample[], seed: string): RmExample[] {
  const groups = new Map<string, RmExample[]>();
  examples.forEach((e, k) => {
    const key = e.group ?? `#${k}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(e);
  });
  const longest = (rows: RmExample[]) => Math.max(...rows.map((e) => e.ids.length));
  return groupByLength(shuffle([...groups.values()], seed), longest, 1, 50).flatMap((rows, g) => shuffle(rows, `${seed}:${g}`));
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

export interface PairwiseMetrics {
  /** Share of (reference, mutant) pairs of one group where the reference scores strictly higher; null without pairs. */
  pairwise_accuracy: number | null;
  /** Number of such pairs. */
  pairwise_n: number;
}

const isMutant = (source: string | undefined) => source === 'mutant' || (source?.startsWith('mutant:') ?? false);

/**
 * For every group with a "reference" row and "mutant" rows, every (reference, mutant) pair: the fraction where the
 * reference's prediction is strictly above the mutant's (a tie counts as wrong: an RM that scores everything alike
 * ranks nothing). Rows without a group, or with another source (e.g. "sft" samples), take no part.
 */
export function pairwiseAccuracy(pred: readonly number[], rows: readonly { group?: string; source?: string }[]): PairwiseMetrics {
  if (pred.length !== rows.length) throw new Error(`pairwiseAccuracy: ${pred.length} predictions for ${rows.length} rows`);
  const groups = new Map<string, { refs: number[]; mutants: number[] }>();
  rows.forEach((r, i) => {
    if (r.group === undefined || !(r.source === 'reference' || isMutant(r.source))) return;
    let g = groups.get(r.group);
    if (!g) groups.set(r.group, (g = { refs: [], mutants: [] }));
    (r.source === 'reference' ? g.refs : g.mutants).push(pred[i]);
  });
  let pairs = 0;
  let right = 0;
  for (const { refs, mutants } of groups.values()) {
    for (const ref of refs) {
      for (const mutant of mutants) {
        pairs++;
        if (ref > mutant) right++;
      }
    }
  }
  return { pairwise_accuracy: pairs > 0 ? right / pairs : null, pairwise_n: pairs };
}

/**
 * What heldout.json holds: regression metrics, the reference-vs-mutant pairwise accuracy, and their standard errors
 * by the jackknife over prompts (a prompt's responses are not independent of each other; null with fewer than 2 prompts).
 */
export type RmHeldOutMetrics = RegressionMetrics &
  PairwiseMetrics & { se: { mse: number | null; pearson: number | null; pairwise_accuracy: number | null }; prompts: number };

/** All held-out metrics of predictions on examples. */
export function rmHeldOutMetrics(pred: readonly number[], examples: readonly RmExample[]): RmHeldOutMetrics {
  const all = (rows: number[]) => ({
    ...regressionMetrics(rows.map((i) => pred[i]), rows.map((i) => examples[i].score)),
    ...pairwiseAccuracy(rows.map((i) => pred[i]), rows.map((i) => examples[i])),
  });
  const groupOf = examples.map((e, i) => e.group ?? `#${i}`);
  const groups = [...new Set(groupOf)];
  const rowsWithout = groups.map((g) => groupOf.flatMap((h, i) => (h === g ? [] : [i])));
  const loo = rowsWithout.map(all); // metrics without each prompt in turn
  const se = (key: 'mse' | 'pearson' | 'pairwise_accuracy') => jackknife(groups.length, (skip) => (skip < 0 ? full[key] : loo[skip][key])).se;
  const full = all(examples.map((_, i) => i));
  return { ...full, prompts: groups.length, se: { mse: se('mse'), pearson: se('pearson'), pairwise_accuracy: se('pairwise_accuracy') } };
}

export interface RmStageOptions extends StageLoopSettings {
  rm: RewardModel;
  padId: number;
  tokenizerDir: string;
  train: RmExample[];
  heldOut: RmExample[];
  extraFiles?: Record<string, string | object>;
  /** Within-prompt pairwise term (see rmLoss); with it, batches hold whole groups instead of length-sorted rows. */
  pairLoss?: PairLoss;
  pairCoef?: number;
}

export async function runRmStage(o: RmStageOptions): Promise<FitResult & { run: TrainingRun; heldout: RmHeldOutMetrics | null }> {
  const order = new Map<number, RmExample[]>();
  const pairwise = (o.pairLoss ?? 'none') !== 'none' && (o.pairCoef ?? 0) > 0;
  const epochExamples = (epoch: number) => {
    // Shuffled, then grouped by length so that a batch pads little (each batch is padded to its longest pair).
    if (!order.has(epoch)) {
      order.set(
        epoch,
        pairwise ? groupedOrder(o.train, `${o.seed}:${epoch}`) : groupByLength(shuffle(o.train, `${o.seed}:${epoch}`), (e) => e.ids.length, o.batchSize),
      );
    }
    return order.get(epoch)!;
  };
  let heldout: RmHeldOutMetrics | null = null;
  const evaluate = () => {
    o.rm.backbone.train(false);
    const h = rmHeldOutMetrics(rmPredict(o.rm, o.heldOut, o.padId, o.batchSize), o.heldOut);
    heldout = h;
    return {
      'eval/mse': h.mse,
      'eval/pearson': h.pearson,
      'eval/n': h.n,
      'eval/pairwise_accuracy': h.pairwise_accuracy,
      'eval/pairwise_n': h.pairwise_n,
    };
  };
  const result = await runStage({
    label: 'rm',
    params: o.rm.trainableParams(), // with LoRA: the adapter and the score head
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
      o.rm.backbone.train(true); // LoRA dropout on while training
      return {
        weight: batch.length,
        loss: () => {
          const loss = rmLoss(o.rm, batch, o.padId, o.pairLoss, o.pairCoef);
          return { loss, aux: { 'rm/score_mean': tf.scalar(batch.reduce((s, e) => s + e.score, 0) / batch.length) } };
        },
      };
    },
    evaluate: o.heldOut.length > 0 ? evaluate : undefined,
    save: (state, keepFiles) =>
      new RunDir(o.outDir).save({
        ...o.rm.checkpointContent(),
        tokenizerDir: o.tokenizerDir,
        state,
        keepFiles,
        extraFiles: { ...o.extraFiles, ...(heldout ? { 'heldout.json': { heldout } } : {}) },
      }),
  });
  return { ...result, heldout };
}
