// The RL stage's outer loop (any policy-gradient algorithm): prompts in a seeded order, one RlTrainer.step per batch, metrics.jsonl and
// the progress bar through TrainingRun, checkpoints every saveEvery steps and at the end (or on Ctrl-C),
// and --resume from the last checkpoint (optimizer moments, KL coefficient, sampling RNG, prompt position).
// With a held-out probe it also measures the policy on prompts it never trains on, before the first iteration,
// every `every` iterations and after the last, into heldout.jsonl.
import * as fs from 'fs';
import * as path from 'path';
import { shuffle } from '@rlhf-code/data';
import type { TrainingState } from '@rlhf-code/model';
import { dropLinesAfter, RunDir, RunPosition, TrainingRun, yieldToEventLoop } from '@rlhf-code/trainer-core';
import { formatHeldOut, HELDOUT_FILE, HeldOutProbe, HeldOutRecord } from './heldout';
import { METRICS, MetricRecord } from './metrics';
import { RlPrompt, RlTrainer } from './rl-trainer';

export interface RlRunOptions {
  rl: RlTrainer;
  prompts: readonly RlPrompt[];
  /** Prompts per iteration (GRPO samples groupSize responses for each). */
  batchSize: number;
  /** Iterations in all (including those done before a resume). */
  steps: number;
  outDir: string;
  /** Also save every n iterations; 0 = only at the end. */
  saveEvery: number;
  /** Write the checkpoint with this training state (see saveRlCheckpoint). */
  save: (trainingState: TrainingState) => Promise<void>;
  /** Continue from the training state saved in outDir (when there is one). */
  resume?: boolean;
  label?: string;
  quiet?: boolean;
  /** Seed of the prompt order. */
  seed: number;
  /** Held-out measurements (heldout.jsonl); `onRecord` gets every record so far after each one (e.g. to plot). */
  heldOut?: { probe: HeldOutProbe; every: number; onRecord?: (history: readonly HeldOutRecord[]) => Promise<void> };
}

/** Sources shown in the log line of a held-out measurement, when present. */
const HELDOUT_SHOWN = ['exec_score', 'rm_score', 'score', 'missing_eos'];

export interface RlRunResult {
  steps: number;
  interrupted: boolean;
  history: MetricRecord[];
  /** Held-out measurements of this run (with those before a resume). */
  heldOut: HeldOutRecord[];
}

/** heldout.jsonl's records up to iteration `step` (the file is rewritten without the later ones). */
function resumeHeldOut(file: string, step: number): HeldOutRecord[] {
  if (!fs.existsSync(file)) return [];
  dropLinesAfter(file, step);
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as HeldOutRecord);
}

export async function runRlLoop(o: RlRunOptions): Promise<RlRunResult> {
  const label = o.label ?? o.rl.config.algo;
  if (o.prompts.length < o.batchSize) {
    throw new Error(`${label}: ${o.prompts.length} prompts are fewer than one batch of ${o.batchSize}; lower --batch-size`);
  }
  const batchesPerEpoch = Math.floor(o.prompts.length / o.batchSize);
  let position: RunPosition = { step: 0, epoch: 0, stepInEpoch: 0 };
  const runDir = new RunDir(o.outDir);
  const resuming = runDir.resumeFrom(o.resume === true) !== undefined;
  if (resuming) {
    const restored = await runDir.restore(o.rl.trainer);
    position = restored.position;
    o.rl.restore(restored.extra.rl, `${o.outDir}: trainer_state.json rl`);
  }
  // metrics.jsonl counts iterations: lines logged after the checkpoint's iteration are dropped on resume.
  const resumeStep = resuming ? o.rl.iteration : undefined;
  const run = new TrainingRun({ outDir: o.outDir, label, totalSteps: o.steps, append: resumeStep !== undefined, resumeStep, quiet: o.quiet });
  if (resuming) run.print(`${label}: resuming from ${o.outDir} at iteration ${o.rl.iteration}`);
  const history: MetricRecord[] = [];
  const save = () => o.save(RunDir.stateOf(o.rl.trainer, { ...position, step: o.rl.trainer.stepCount }, { rl: o.rl.state() }));
  let order = shuffle(o.prompts, `${o.seed}:${position.epoch}`);
  let interrupted = false;

  const heldOutFile = path.join(o.outDir, HELDOUT_FILE);
  const heldOut: HeldOutRecord[] = o.heldOut && resumeStep !== undefined ? resumeHeldOut(heldOutFile, resumeStep) : [];
  if (o.heldOut && resumeStep === undefined) fs.writeFileSync(heldOutFile, '');
  if (o.heldOut && heldOut.length > 0) o.heldOut.probe.setStart(heldOut[0]);
  const measure = async () => {
    if (!o.heldOut || heldOut.some((r) => r.step === o.rl.iteration)) return;
    const record = await o.heldOut.probe.measure(o.rl.engine, o.rl.iteration);
    heldOut.push(record);
    fs.appendFileSync(heldOutFile, JSON.stringify(record) + '\n');
    run.print(formatHeldOut(record, HELDOUT_SHOWN));
    await o.heldOut.onRecord?.(heldOut);
  };
  try {
    await o.rl.catchUpEngine(); // the held-out probe samples from the engine too
    await measure();
    while (o.rl.iteration < o.steps) {
      if (position.stepInEpoch >= batchesPerEpoch) {
        position = { ...position, epoch: position.epoch + 1, stepInEpoch: 0 };
        order = shuffle(o.prompts, `${o.seed}:${position.epoch}`);
      }
      const batch = order.slice(position.stepInEpoch * o.batchSize, (position.stepInEpoch + 1) * o.batchSize);
      await yieldToEventLoop(); // lets Ctrl-C and the progress bar's timer in
      const metrics = await o.rl.step(batch);
      position = { ...position, step: o.rl.trainer.stepCount, stepInEpoch: position.stepInEpoch + 1 };
      history.push(metrics);
      run.log(o.rl.iteration, { epoch: position.epoch, ...metrics }, [METRICS.rewardMean, METRICS.kl, METRICS.lossTotal]);
      const last = o.rl.iteration >= o.steps;
      if (o.heldOut && (last || (o.heldOut.every > 0 && o.rl.iteration % o.heldOut.every === 0))) await measure();
      if (run.stopRequested) {
        interrupted = !last;
        break;
      }
      if (!last && o.saveEvery > 0 && o.rl.iteration % o.saveEvery === 0) await save();
    }
    await save();
  } finally {
    run.close();
  }
  return { steps: o.rl.iteration, interrupted, history, heldOut };
}
