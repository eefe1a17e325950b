// A supervised training stage, whatever the model and loss: builds the Trainer (AdamW + clip + warmup and decay),
// resumes from the checkpoint in outDir if asked, runs `fit` with a TrainingRun, saves through the caller.
// runLmStage (pretraining, SFT) and the reward-model stage are built on it.
import * as tf from '@tensorflow/tfjs';
import { TRAINER_STATE_FILE, type TrainingState } from '@rlhf-code/model';
import { fit, FitResult } from './fit';
import { Metrics, MicroBatch, RunDir, RunPosition, StepResult, Trainer, trainerConfig, TrainingRun, type OptimSettings } from '@rlhf-code/trainer-core';

export interface StageOptions {
  label: string;
  /** Trainable parameters keyed by Hugging Face name. */
  params: Record<string, tf.Variable>;
  outDir: string;
  /** Training examples; a step uses batchSize x gradAccum of them. */
  numExamples: number;
  batchSize: number;
  gradAccum: number;
  epochs: number;
  /** Stop after this many optimizer steps in all (0 = all epochs). */
  maxSteps?: number;
  optim: OptimSettings;
  saveEvery: number;
  resume: boolean;
  quiet?: boolean;
  /** Micro-batch m (0-based) of step i of `epoch`: examples [start, end) of that epoch's order. */
  microBatch(epoch: number, start: number, end: number): MicroBatch;
  evaluate?(position: RunPosition): Metrics | Promise<Metrics>;
  stepMetrics?(result: StepResult, position: RunPosition, run: TrainingRun): Metrics;
  /** Write the checkpoint: the caller's weights + this training state; keep metrics.jsonl in the folder. */
  save(trainingState: TrainingState, keepFiles: string[], position: RunPosition, final: boolean): Promise<void>;
}

export async function runStage(o: StageOptions): Promise<FitResult & { run: TrainingRun }> {
  const perStep = o.batchSize * o.gradAccum;
  const stepsPerEpoch = Math.floor(o.numExamples / perStep);
  if (stepsPerEpoch < 1) {
    throw new Error(`${o.label}: ${o.numExamples} training examples are fewer than one step (batch ${o.batchSize} x accumulation ${o.gradAccum})`);
  }
  const totalSteps = o.maxSteps && o.maxSteps > 0 ? Math.min(o.maxSteps, stepsPerEpoch * o.epochs) : stepsPerEpoch * o.epochs;
  const trainer = new Trainer(o.params, trainerConfig(o.optim, totalSteps));

  const runDir = new RunDir(o.outDir);
  let start: RunPosition | undefined;
  if (runDir.resumeFrom(o.resume)) {
    try {
      const { position, extra } = await runDir.restore(trainer);
      // The position counts steps of the saved run: with another number of steps per epoch it points elsewhere.
      if (extra.stepsPerEpoch !== undefined && extra.stepsPerEpoch !== stepsPerEpoch) {
        throw new Error(
          `${o.outDir}: cannot resume: this run has ${stepsPerEpoch} steps per epoch, the checkpoint's run had ${extra.stepsPerEpoch} ` +
            '(resume with the same data, batch size and accumulation)',
        );
      }
      start = position;
    } catch (e) {
      trainer.dispose();
      throw e;
    }
  }
  const run = new TrainingRun({ outDir: o.outDir, label: o.label, totalSteps, append: start !== undefined, resumeStep: start?.step, quiet: o.quiet });
  if (start) run.print(`${o.label}: resuming from ${o.outDir} at step ${start.step} (epoch ${start.epoch}, step ${start.stepInEpoch} in it)`);
  else if (o.resume) run.print(`${o.label}: --resume: no checkpoint (${TRAINER_STATE_FILE}) in ${o.outDir} yet, starting from step 0`);

  try {
    const result = await fit({
      trainer,
      run,
      epochs: Math.ceil(totalSteps / stepsPerEpoch),
      stepsPerEpoch,
      maxSteps: totalSteps,
      start,
      saveEvery: o.saveEvery,
      stepBatches: (epoch, i) =>
        Array.from({ length: o.gradAccum }, (_, m) => o.microBatch(epoch, i * perStep + m * o.batchSize, i * perStep + (m + 1) * o.batchSize)),
      stepMetrics: o.stepMetrics && ((r, p) => o.stepMetrics!(r, p, run)),
      evaluate: o.evaluate,
      save: (position, final) => o.save(RunDir.stateOf(trainer, position, { stepsPerEpoch, totalSteps }), ['metrics.jsonl'], position, final),
    });
    return { ...result, run };
  } finally {
    run.close();
    trainer.dispose();
  }
}
