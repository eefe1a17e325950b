// A language-model training stage (pretraining or SFT): examples -> resumable checkpoint, with the
// token-weighted next-token loss and a held-out loss at each evaluation. The examples are an epoch's list, shuffled,
// or a stream (pretraining from a token cache: CacheWindows) whose position every checkpoint keeps.
import type { Qwen2Model } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { FitResult } from './fit';
import { LmBatch, LmExample, padLmBatch } from './lm-data';
import { evaluateLmLoss, lmMicroBatch } from './lm-loss';
import type { CacheWindows } from './lm-stream';
import { RunDir, TrainingRun, type SavedState } from '@rlhf-code/trainer-core';
import { runStage, type StageLoopSettings } from './stage';

export interface LmStageOptions extends StageLoopSettings {
  label: string;
  model: Qwen2Model;
  /** Copied into every checkpoint so the folder is self-contained. */
  tokenizerDir: string;
  /** Fields set in the copied tokenizer_config.json (e.g. {fim_mode: "spm"} when the run trains another FIM order). */
  tokenizerConfig?: Record<string, unknown>;
  padId: number;
  /** Training examples of an epoch, in any order (they are shuffled with seed + epoch). Same count every epoch. */
  examplesOf?(epoch: number): LmExample[];
  /** Or a stream of them, drawn as batches are (maxSteps then sets the run's length; its position is saved). */
  stream?: CacheWindows;
  /** With a stream: where to start when there is no checkpoint to resume (RunDir.startState of --init). */
  start?: SavedState;
  heldOut: LmExample[];
  /** Largest number of held-out examples evaluated (keeps evaluation cheap); default 256. */
  maxEvalExamples?: number;
  /** Stop cleanly after this many minutes of training (0 = no limit). */
  maxMinutes?: number;
  /** Written into the checkpoint beside the weights (e.g. the stage's settings). */
  extraFiles?: Record<string, string | object>;
  /** With LoRA adapters on the model: the base they were made for (adapter_config.json base_model_name_or_path). */
  baseModel?: string;
}

export async function runLmStage(o: LmStageOptions): Promise<FitResult & { run: TrainingRun }> {
  const { stream } = o;
  if (!stream === !o.examplesOf) throw new Error(`${o.label}: give examplesOf or a stream, not both or neither`);
  // The shuffled examples of one epoch, rebuilt when the epoch changes (none with a stream).
  let cached = { epoch: 0, examples: stream ? [] : shuffle(o.examplesOf!(0), `${o.seed}:0`) };
  const epochExamples = (epoch: number) => {
    if (cached.epoch !== epoch) cached = { epoch, examples: shuffle(o.examplesOf!(epoch), `${o.seed}:${epoch}`) };
    return cached.examples;
  };
  const heldOut = o.heldOut.slice(0, o.maxEvalExamples ?? 256);
  const evalBatches: LmBatch[] = [];
  for (let i = 0; i < heldOut.length; i += o.batchSize) evalBatches.push(padLmBatch(heldOut.slice(i, i + o.batchSize), o.padId));
  let tokensSeen = 0; // by this process
  let secondsBefore = 0; // of training in the chunks this run continues (a stream's checkpoints keep the sum)

  return runStage({
    ...o,
    params: o.model.trainableParams(), // with LoRA: the adapters only (the base has no gradient, no optimizer state)
    numExamples: stream ? Infinity : cached.examples.length,
    microBatch: (epoch, start, end) => {
      o.model.train(true);
      const examples = stream ? Array.from({ length: end - start }, () => stream.next()) : epochExamples(epoch).slice(start, end);
      tokensSeen += examples.reduce((n, e) => n + e.ids.length, 0); // real tokens, not padding
      const batch = padLmBatch(examples, o.padId); // ids, attention, loss: [B, T]
      return lmMicroBatch(o.model, batch);
    },
    // A stream's lines also carry its pass over the data, and the tokens and wall seconds of every chunk so far.
    stepMetrics: (_r, _p, run) => ({
      tokens_per_s: Math.round(tokensSeen / run.elapsed),
      ...(stream ? { epoch: stream.epochs, tokens: stream.tokens, wall_s: Math.round(secondsBefore + run.elapsed) } : {}),
    }),
    state: stream && {
      save: (run) => ({ stream: stream.save(), wall_s: secondsBefore + run.elapsed }),
      restore: (extra, resumed) => {
        secondsBefore = typeof extra.wall_s === 'number' ? extra.wall_s : 0;
        const note = stream.restore(extra.stream, resumed);
        return note && `${o.label}: ${note}`;
      },
    },
    evaluate:
      evalBatches.length > 0
        ? () => {
            o.model.train(false); // no LoRA dropout while measuring
            return { 'eval/loss': evaluateLmLoss(o.model, evalBatches).loss };
          }
        : undefined,
    save: (state, keepFiles) =>
      new RunDir(o.outDir).save({
        ...o.model.checkpointContent(o.baseModel ?? ''),
        tokenizerDir: o.tokenizerDir,
        tokenizerConfig: o.tokenizerConfig,
        extraFiles: o.extraFiles,
        state,
        keepFiles,
      }),
  });
}
