// The PPO stage's outer loop: prompts in a seeded order, one PpoTrainer.step per batch, metrics.jsonl and
// the progress bar through TrainingRun, checkpoints every saveEvery steps and at the end (or on Ctrl-C),
// and --resume from the last checkpoint (optimizer moments, KL coefficient, sampling RNG, prompt position).
import { shuffle } from '@rlhf-code/data';
import type { TrainingState } from '@rlhf-code/model';
import { restoreTrainingState, RunPosition, trainingStateOf, TrainingRun, yieldToEventLoop } from '@rlhf-code/train';
import { METRICS, MetricRecord } from './metrics';
import { PpoPrompt, PpoTrainer } from './ppo-trainer';

export interface PpoRunOptions {
  ppo: PpoTrainer;
  prompts: readonly PpoPrompt[];
  /** Prompts per iteration (GRPO samples groupSize responses for each). */
  batchSize: number;
  /** PPO iterations in all (including those done before a resume). */
  steps: number;
  outDir: string;
  /** Also save every n iterations; 0 = only at the end. */
  saveEvery: number;
  /** Write the checkpoint with this training state (see savePpoCheckpoint). */
  save: (trainingState: TrainingState) => Promise<void>;
  /** From loadTrainingState(outDir) when resuming. */
  resumeState?: TrainingState;
  label?: string;
  quiet?: boolean;
  /** Seed of the prompt order. */
  seed: number;
}

export interface PpoRunResult {
  steps: number;
  interrupted: boolean;
  history: MetricRecord[];
}

export async function runPpo(o: PpoRunOptions): Promise<PpoRunResult> {
  const label = o.label ?? o.ppo.config.algo;
  if (o.prompts.length < o.batchSize) {
    throw new Error(`${label}: ${o.prompts.length} prompts are fewer than one batch of ${o.batchSize}; lower --batch-size`);
  }
  const batchesPerEpoch = Math.floor(o.prompts.length / o.batchSize);
  let position: RunPosition = { step: 0, epoch: 0, stepInEpoch: 0 };
  if (o.resumeState) {
    const restored = restoreTrainingState(o.ppo.trainer, o.resumeState, o.outDir);
    position = restored.position;
    o.ppo.restore(restored.extra.ppo, `${o.outDir}: trainer_state.json ppo`);
  }
  // metrics.jsonl counts PPO iterations: lines logged after the checkpoint's iteration are dropped on resume.
  const resumeStep = o.resumeState ? o.ppo.ppoStep : undefined;
  const run = new TrainingRun({ outDir: o.outDir, label, totalSteps: o.steps, append: resumeStep !== undefined, resumeStep, quiet: o.quiet });
  if (o.resumeState) run.print(`${label}: resuming from ${o.outDir} at iteration ${o.ppo.ppoStep}`);
  const history: MetricRecord[] = [];
  const save = () => o.save(trainingStateOf(o.ppo.trainer, { ...position, step: o.ppo.trainer.stepCount }, { ppo: o.ppo.state() }));
  let order = shuffle(o.prompts, `${o.seed}:${position.epoch}`);
  let interrupted = false;
  try {
    while (o.ppo.ppoStep < o.steps) {
      if (position.stepInEpoch >= batchesPerEpoch) {
        position = { ...position, epoch: position.epoch + 1, stepInEpoch: 0 };
        order = shuffle(o.prompts, `${o.seed}:${position.epoch}`);
      }
      const batch = order.slice(position.stepInEpoch * o.batchSize, (position.stepInEpoch + 1) * o.batchSize);
      await yieldToEventLoop(); // lets Ctrl-C and the progress bar's timer in
      const metrics = await o.ppo.step(batch);
      position = { ...position, step: o.ppo.trainer.stepCount, stepInEpoch: position.stepInEpoch + 1 };
      history.push(metrics);
      run.log(o.ppo.ppoStep, { epoch: position.epoch, ...metrics }, [METRICS.rewardMean, METRICS.kl, METRICS.lossTotal]);
      const last = o.ppo.ppoStep >= o.steps;
      if (run.stopRequested) {
        interrupted = !last;
        break;
      }
      if (!last && o.saveEvery > 0 && o.ppo.ppoStep % o.saveEvery === 0) await save();
    }
    await save();
  } finally {
    run.close();
  }
  return { steps: o.ppo.ppoStep, interrupted, history };
}
