// A language-model training stage (pretraining or SFT) from examples to a saved, resumable checkpoint:
// Trainer (AdamW + clip + warmup/cosine) + TrainingRun (metrics, progress, signals) + fit (the loop).
import * as fs from 'fs';
import * as path from 'path';
import { loadTrainingState, Qwen2Model, saveCheckpoint, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { fit, FitResult } from './fit';
import { evaluateLmLoss } from './lm-loss';
import { LmExample, padLmBatch } from './lm-data';
import { lmMicroBatch } from './lm-loss';
import { restoreTrainingState, RunPosition, trainingStateOf, TrainingRun } from './run';
import { Trainer } from './trainer';

export interface OptimConfig {
  lr: number;
  minLr: number;
  warmupSteps: number;
  weightDecay: number;
  beta1: number;
  beta2: number;
  maxGradNorm: number;
}

export interface LmStageOptions {
  label: string;
  model: Qwen2Model;
  /** Copied into every checkpoint so the folder is self-contained. */
  tokenizerDir: string;
  padId: number;
  outDir: string;
  /** Training examples of an epoch, in any order (they are shuffled with seed + epoch). */
  examplesOf(epoch: number): LmExample[];
  heldOut: LmExample[];
  epochs: number;
  /** Examples per micro-batch and micro-batches per optimizer step. */
  batchSize: number;
  gradAccum: number;
  /** Stop after this many optimizer steps in all (0 = run all epochs). */
  maxSteps?: number;
  optim: OptimConfig;
  saveEvery: number;
  seed: number;
  resume: boolean;
  quiet?: boolean;
  /** Written into the checkpoint beside the weights (e.g. the stage's config). */
  extraFiles?: Record<string, string | object>;
  /** Largest number of held-out examples evaluated (keeps evaluation cheap). */
  maxEvalExamples?: number;
}

export async function runLmStage(o: LmStageOptions): Promise<FitResult & { run: TrainingRun }> {
  const examples0 = o.examplesOf(0);
  const stepsPerEpoch = Math.floor(examples0.length / (o.batchSize * o.gradAccum));
  if (stepsPerEpoch < 1) {
    throw new Error(`${o.label}: ${examples0.length} training examples are fewer than one step (batch ${o.batchSize} x accumulation ${o.gradAccum})`);
  }
  const totalSteps = o.maxSteps && o.maxSteps > 0 ? Math.min(o.maxSteps, stepsPerEpoch * o.epochs) : stepsPerEpoch * o.epochs;
  const epochs = Math.ceil(totalSteps / stepsPerEpoch);
  const trainer = new Trainer(o.model.params, {
    optimizer: { lr: o.optim.lr, weightDecay: o.optim.weightDecay, beta1: o.optim.beta1, beta2: o.optim.beta2 },
    schedule: { minLr: o.optim.minLr, warmupSteps: Math.min(o.optim.warmupSteps, totalSteps), totalSteps, kind: 'cosine' },
    maxGradNorm: o.optim.maxGradNorm,
  });

  let start: RunPosition | undefined;
  if (o.resume && fs.existsSync(path.join(o.outDir, TRAINER_STATE_FILE))) {
    start = restoreTrainingState(trainer, await loadTrainingState(o.outDir), o.outDir).position;
  }
  const run = new TrainingRun({ outDir: o.outDir, label: o.label, totalSteps, append: start !== undefined, quiet: o.quiet });
  if (start) run.print(`${o.label}: resuming from ${o.outDir} at step ${start.step} (epoch ${start.epoch}, step ${start.stepInEpoch} in it)`);

  // The shuffled examples of one epoch, rebuilt when the epoch changes.
  let cached: { epoch: number; examples: LmExample[] } = { epoch: 0, examples: shuffle(examples0, `${o.seed}:0`) };
  const epochExamples = (epoch: number) => {
    if (cached.epoch !== epoch) cached = { epoch, examples: shuffle(o.examplesOf(epoch), `${o.seed}:${epoch}`) };
    return cached.examples;
  };
  const heldOut = o.heldOut.slice(0, o.maxEvalExamples ?? 256);
  const evalBatches: ReturnType<typeof padLmBatch>[] = [];
  for (let i = 0; i < heldOut.length; i += o.batchSize) evalBatches.push(padLmBatch(heldOut.slice(i, i + o.batchSize), o.padId));
  let tokensSeen = 0;

  try {
    const result = await fit({
      trainer,
      run,
      epochs,
      stepsPerEpoch,
      start,
      saveEvery: o.saveEvery,
      stepBatches: (epoch, i) => {
        const ex = epochExamples(epoch);
        const per = o.batchSize * o.gradAccum;
        const out = [];
        for (let m = 0; m < o.gradAccum; m++) {
          const batch = padLmBatch(ex.slice(i * per + m * o.batchSize, i * per + (m + 1) * o.batchSize), o.padId);
          tokensSeen += batch.ids.length * batch.ids[0].length;
          out.push(lmMicroBatch(o.model, batch));
        }
        return out;
      },
      stepMetrics: () => ({ tokens_per_s: Math.round(tokensSeen / run.elapsed) }),
      evaluate: evalBatches.length > 0 ? () => ({ 'eval/loss': evaluateLmLoss(o.model, evalBatches).loss }) : undefined,
      save: async (position) => {
        await saveCheckpoint(o.outDir, {
          config: o.model.config,
          weights: o.model.hostWeights(),
          tokenizerDir: o.tokenizerDir,
          extraFiles: o.extraFiles,
          trainingState: trainingStateOf(trainer, position, { stepsPerEpoch, totalSteps }),
          keepFiles: ['metrics.jsonl'],
        });
      },
      maxSteps: totalSteps,
    });
    return { ...result, run };
  } finally {
    run.close();
    trainer.dispose();
  }
}
