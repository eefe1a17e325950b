// A supervised training stage, whatever the model and loss: builds the Trainer (AdamW + clip + warmup and decay),
// resumes from the checkpoint in outDir if asked (or starts from an --init checkpoint's position), runs `fit` with a
// TrainingRun, saves through the caller. runLmStage (pretraining, SFT) and the reward-model stage are built on it.
import * as tf from '@tensorflow/tfjs';
import { TRAINER_STATE_FILE, type TrainingState } from '@rlhf-code/model';
import { fit, FitResult } from './fit';
import { lrSchedule, Metrics, MicroBatch, RunDir, RunPosition, StepResult, Trainer, trainerConfig, TrainingRun, type OptimSettings, type SavedState } from '@rlhf-code/trainer-core';

export interface StageOptions {
  label: string;
  /** Trainable parameters keyed by Hugging Face name. */
  params: Record<string, tf.Variable>;
  outDir: string;
  /**
   * Training examples; a step uses batchSize x gradAccum of them. Infinity: a stream that keeps its own position (in
   * `state`); maxSteps then sets the run's length, and resuming with a larger one goes on.
   */
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
  /** Stop cleanly (evaluate, save, return outOfTime) once this many minutes of training have passed; 0 = no limit. */
  maxMinutes?: number;
  /**
   * Where a run starts when there is no checkpoint to resume: a state from RunDir.startState (an --init checkpoint's
   * position, with its optimizer moments or a fresh optimizer from that step).
   */
  start?: SavedState;
  /** The stage's own state in trainer_state.json (e.g. a stream's position); `restore` gets it back (resumed: false for `start`) and may return a line to print. */
  state?: { save(run: TrainingRun): Record<string, unknown>; restore(extra: Record<string, unknown>, resumed: boolean): string | undefined };
  /** Micro-batch m (0-based) of step i of `epoch`: examples [start, end) of that epoch's order (a stream: the next ones). */
  microBatch(epoch: number, start: number, end: number): MicroBatch;
  evaluate?(position: RunPosition): Metrics | Promise<Metrics>;
  stepMetrics?(result: StepResult, position: RunPosition, run: TrainingRun): Metrics;
  /** Write the checkpoint: the caller's weights + this training state; keep metrics.jsonl in the folder. */
  save(trainingState: TrainingState, keepFiles: string[], position: RunPosition, final: boolean): Promise<void>;
}

/** A stage's training loop as its caller (runLmStage, runRmStage) is given it: the shared part of their options. */
export type StageLoopSettings = Pick<StageOptions, 'outDir' | 'epochs' | 'batchSize' | 'gradAccum' | 'maxSteps' | 'optim' | 'saveEvery' | 'resume' | 'quiet'> & {
  /** Seeds the order of the examples (shuffled with seed + epoch). */
  seed: number;
};

export async function runStage(o: StageOptions): Promise<FitResult & { run: TrainingRun }> {
  const perStep = o.batchSize * o.gradAccum;
  const stream = o.numExamples === Infinity;
  const stepsPerEpoch = Math.floor(o.numExamples / perStep);
  if (stepsPerEpoch < 1) {
    throw new Error(`${o.label}: ${o.numExamples} training examples are fewer than one step (batch ${o.batchSize} x accumulation ${o.gradAccum})`);
  }
  if (stream && !(o.maxSteps && o.maxSteps > 0)) throw new Error(`${o.label}: a stream of examples needs maxSteps`);
  const totalSteps = o.maxSteps && o.maxSteps > 0 ? Math.min(o.maxSteps, stepsPerEpoch * o.epochs) : stepsPerEpoch * o.epochs;

  // The state to continue from: the checkpoint in outDir (--resume), else the caller's start (an --init position).
  const runDir = new RunDir(o.outDir);
  const resumed = runDir.resumeFrom(o.resume) !== undefined;
  const saved = resumed ? await runDir.load() : o.start;
  const trainer = new Trainer(o.params, trainerConfig(o.optim, totalSteps, saved ? RunDir.optimizerStartOf(saved) : 0));
  let start: RunPosition | undefined;
  const notes: string[] = [];
  if (saved) {
    try {
      const { position, extra } = await runDir.restore(trainer, saved);
      // The position counts steps of the saved run: with another number of steps per epoch it points elsewhere.
      if (!stream && extra.stepsPerEpoch !== undefined && extra.stepsPerEpoch !== stepsPerEpoch) {
        throw new Error(
          `${o.outDir}: cannot resume: this run has ${stepsPerEpoch} steps per epoch, the checkpoint's run had ${extra.stepsPerEpoch} ` +
            '(resume with the same data, batch size and accumulation)',
        );
      }
      const note = o.state?.restore(extra, resumed);
      if (note) notes.push(note);
      const jump = lrJump(extra.lrSchedule, trainer, position.step);
      if (jump) notes.push(`${o.label}: ${jump}`);
      // A stream's position is its own (state); the loop counts the run's steps in one endless epoch.
      start = stream ? { step: position.step, epoch: 0, stepInEpoch: position.step } : position;
    } catch (e) {
      trainer.dispose();
      throw e;
    }
  }
  const run = new TrainingRun({ outDir: o.outDir, label: o.label, totalSteps, append: resumed, resumeStep: resumed ? start?.step : undefined, quiet: o.quiet, maxMinutes: o.maxMinutes });
  if (start && resumed) run.print(`${o.label}: resuming from ${o.outDir} at step ${start.step}` + (stream ? '' : ` (epoch ${start.epoch}, step ${start.stepInEpoch} in it)`));
  else if (start) {
    const how = trainer.optimizerStart === start.step ? `a fresh optimizer, warmup ${trainer.config.schedule.warmupSteps ?? 0} steps` : 'the optimizer moments carried';
    run.print(`${o.label}: starting at step ${start.step} of the --init checkpoint, with ${how}`);
  } else if (o.resume) run.print(`${o.label}: --resume: no checkpoint (${TRAINER_STATE_FILE}) in ${o.outDir} yet, starting from step 0`);
  for (const note of notes) run.print(note);

  try {
    const result = await fit({
      trainer,
      run,
      epochs: stream ? 1 : Math.ceil(totalSteps / stepsPerEpoch),
      stepsPerEpoch,
      maxSteps: totalSteps,
      start,
      saveEvery: o.saveEvery,
      stepBatches: (epoch, i) =>
        Array.from({ length: o.gradAccum }, (_, m) => o.microBatch(epoch, i * perStep + m * o.batchSize, i * perStep + (m + 1) * o.batchSize)),
      stepMetrics: o.stepMetrics && ((r, p) => o.stepMetrics!(r, p, run)),
      evaluate: o.evaluate,
      save: (position, final) => {
        const lrSchedule = { ...trainer.config.schedule, maxLr: trainer.config.optimizer.lr, restartStep: trainer.optimizerStart };
        const extra = { ...(stream ? {} : { stepsPerEpoch }), totalSteps, lrSchedule, ...o.state?.save(run) };
        return o.save(RunDir.stateOf(trainer, position, extra), ['metrics.jsonl'], position, final);
      },
    });
    return { ...result, run };
  } finally {
    run.close();
    trainer.dispose();
  }
}

/**
 * When the saved run's schedule (trainer_state.json's lrSchedule) gave the last step taken another rate than this
 * run's gives it, the rate jumps at the resume: a sentence saying so (a cosine or linear run resumed with another
 * --max-steps; a wsd run extended in its constant phase never jumps), else undefined.
 */
function lrJump(saved: unknown, trainer: Trainer, step: number): string | undefined {
  if (step === 0 || typeof saved !== 'object' || saved === null) return undefined;
  const before = lrSchedule(saved as Parameters<typeof lrSchedule>[0])(step - 1);
  const now = trainer.lrAt(step - 1);
  if (Math.abs(before - now) <= 1e-9 * Math.max(before, now)) return undefined;
  return `the learning rate jumps at step ${step}: the checkpoint's schedule gave step ${step - 1} lr ${before.toPrecision(4)}, these settings give it ${now.toPrecision(4)} (another --max-steps, --lr or --schedule; with --schedule wsd only the decay depends on --max-steps)`;
}
