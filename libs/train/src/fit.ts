// The supervised training loop shared by pretraining, SFT and the reward model:
//   for epoch: for step: trainer.step(micro-batches) -> log; every saveEvery steps and at each epoch end:
//   evaluate (held-out) and save a resumable checkpoint. Ctrl-C saves and returns; so does a spent time budget
//   (TrainingRun's maxMinutes), after evaluating. A stream of examples (pretraining from a token cache) has no epochs
//   here: stepsPerEpoch Infinity, and maxSteps ends it.
// The app supplies the data (deterministic per epoch, so a resumed run skips exactly the steps it did),
// the loss inside the micro-batches, the held-out evaluation and how to save.
import { Metrics, MicroBatch, RunPosition, StepResult, Trainer, TrainingRun, yieldToEventLoop } from '@rlhf-code/trainer-core';

export interface FitOptions {
  trainer: Trainer;
  run: TrainingRun;
  epochs: number;
  /** Infinity: one endless epoch (a stream of examples that keeps its own position); maxSteps is then required. */
  stepsPerEpoch: number;
  /** Micro-batches of optimizer step `i` (0-based) of `epoch`; called once per step. */
  stepBatches(epoch: number, i: number): MicroBatch[];
  /** Held-out metrics (e.g. {"eval/loss": 1.2}), run at each epoch end and with every save. */
  evaluate?(position: RunPosition): Metrics | Promise<Metrics>;
  /** Write a checkpoint that can resume from `position`. */
  save(position: RunPosition, final: boolean): Promise<void>;
  /** Also save (and evaluate) every N steps; 0 = only at epoch ends. */
  saveEvery?: number;
  /** Log every N steps (default 1). */
  logEvery?: number;
  /** Stop (evaluate and save as final) once this many optimizer steps are done. */
  maxSteps?: number;
  /** Resume from here (from restoreTrainingState). */
  start?: RunPosition;
  /** Metrics added to every logged line, computed from the step (e.g. tokens seen). */
  stepMetrics?(result: StepResult, position: RunPosition): Metrics;
}

export interface FitResult {
  position: RunPosition;
  /** True when stopped by a signal before the end. */
  interrupted: boolean;
  /** True when the time budget (TrainingRun's maxMinutes) ended the run before the end: evaluated and saved. */
  outOfTime: boolean;
  lastEval: Metrics | null;
  skippedSteps: number;
}

export async function fit(o: FitOptions): Promise<FitResult> {
  const { trainer, run } = o;
  const saveEvery = o.saveEvery ?? 0;
  const logEvery = o.logEvery ?? 1;
  let pos: RunPosition = o.start ?? { step: 0, epoch: 0, stepInEpoch: 0 };
  let lastEval: Metrics | null = null;
  let skippedSteps = 0;
  if (!Number.isFinite(o.stepsPerEpoch) && o.maxSteps === undefined) throw new Error('fit: an endless epoch (stepsPerEpoch Infinity) needs maxSteps');
  const done = (extra: { interrupted?: boolean; outOfTime?: boolean } = {}): FitResult => ({ position: pos, interrupted: false, outOfTime: false, ...extra, lastEval, skippedSteps });

  const evaluateAndSave = async (final: boolean) => {
    if (o.evaluate) {
      lastEval = await o.evaluate(pos);
      // A stream's passes over its data are its own (its stepMetrics log them): no epoch here.
      run.log(pos.step, { ...(Number.isFinite(o.stepsPerEpoch) ? { epoch: pos.epoch } : {}), ...lastEval }, Object.keys(lastEval));
      run.print(`${run.opts.label} step ${pos.step}: ${Object.entries(lastEval).map(([k, v]) => `${k}=${fmt(v)}`).join(' ')}`);
    }
    await o.save(pos, final);
  };

  if (o.maxSteps !== undefined && pos.step >= o.maxSteps) return done();
  while (pos.epoch < o.epochs) {
    while (pos.stepInEpoch < o.stepsPerEpoch) {
      await yieldToEventLoop(); // lets Ctrl-C and the progress bar's timer in (see run.ts)
      const result = trainer.step(o.stepBatches(pos.epoch, pos.stepInEpoch));
      if (result.skipped) {
        skippedSteps++;
        run.print(`${run.opts.label}: step skipped, gradients not finite (loss ${result.loss})`);
      }
      pos = { step: trainer.stepCount, epoch: pos.epoch, stepInEpoch: pos.stepInEpoch + 1 };
      if (pos.stepInEpoch % logEvery === 0 || pos.stepInEpoch === o.stepsPerEpoch) {
        run.log(pos.step, {
          epoch: pos.epoch + pos.stepInEpoch / o.stepsPerEpoch,
          loss: result.loss,
          grad_norm: result.gradNorm,
          lr: result.lr,
          ...result.aux,
          ...o.stepMetrics?.(result, pos),
        });
      }
      if (run.stopRequested) {
        await o.save(pos, false);
        return done({ interrupted: true });
      }
      if (o.maxSteps !== undefined && pos.step >= o.maxSteps) {
        await evaluateAndSave(true);
        return done();
      }
      if (run.outOfTime) {
        await evaluateAndSave(false);
        return done({ outOfTime: true });
      }
      if (saveEvery > 0 && pos.step % saveEvery === 0 && pos.stepInEpoch < o.stepsPerEpoch) await evaluateAndSave(false);
    }
    pos = { step: pos.step, epoch: pos.epoch + 1, stepInEpoch: 0 };
    await evaluateAndSave(pos.epoch === o.epochs);
  }
  return done();
}

function fmt(v: unknown): string {
  return typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v);
}
