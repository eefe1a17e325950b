// A language-model training stage (pretraining or SFT): examples -> resumable checkpoint, with the
// token-weighted next-token loss and a held-out loss at each evaluation.
import type { Qwen2Model } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { FitResult } from './fit';
import { LmBatch, LmExample, padLmBatch } from './lm-data';
import { evaluateLmLoss, lmMicroBatch } from './lm-loss';
import { RunDir, TrainingRun, type OptimSettings } from '@rlhf-code/trainer-core';
import { runStage } from './stage';

export interface LmStageOptions {
  label: string;
  model: Qwen2Model;
  /** Copied into every checkpoint so the folder is self-contained. */
  tokenizerDir: string;
  /** Fields set in the copied tokenizer_config.json (e.g. {fim_mode: "spm"} when the run trains another FIM order). */
  tokenizerConfig?: Record<string, unknown>;
  padId: number;
  outDir: string;
  /** Training examples of an epoch, in any order (they are shuffled with seed + epoch). Same count every epoch. */
  examplesOf(epoch: number): LmExample[];
  heldOut: LmExample[];
  /** Largest number of held-out examples evaluated (keeps evaluation cheap); default 256. */
  maxEvalExamples?: number;
  epochs: number;
  batchSize: number;
  gradAccum: number;
  maxSteps?: number;
  optim: OptimSettings;
  saveEvery: number;
  seed: number;
  resume: boolean;
  quiet?: boolean;
  /** Written into the checkpoint beside the weights (e.g. the stage's settings). */
  extraFiles?: Record<string, string | object>;
  /** With LoRA adapters on the model: the base they were made for (adapter_config.json base_model_name_or_path). */
  baseModel?: string;
}

export async function runLmStage(o: LmStageOptions): Promise<FitResult & { run: TrainingRun }> {
  // The shuffled examples of one epoch, rebuilt when the epoch changes.
  let cached = { epoch: 0, examples: shuffle(o.examplesOf(0), `${o.seed}:0`) };
  const epochExamples = (epoch: number) => {
    if (cached.epoch !== epoch) cached = { epoch, examples: shuffle(o.examplesOf(epoch), `${o.seed}:${epoch}`) };
    return cached.examples;
  };
  const heldOut = o.heldOut.slice(0, o.maxEvalExamples ?? 256);
  const evalBatches: LmBatch[] = [];
  for (let i = 0; i < heldOut.length; i += o.batchSize) evalBatches.push(padLmBatch(heldOut.slice(i, i + o.batchSize), o.padId));
  let tokensSeen = 0;

  return runStage({
    ...o,
    params: o.model.trainableParams(), // with LoRA: the adapters only (the base has no gradient, no optimizer state)
    numExamples: cached.examples.length,
    microBatch: (epoch, start, end) => {
      o.model.train(true);
      const examples = epochExamples(epoch).slice(start, end);
      tokensSeen += examples.reduce((n, e) => n + e.ids.length, 0); // real tokens, not padding
      const batch = padLmBatch(examples, o.padId);
      return lmMicroBatch(o.model, batch);
    },
    stepMetrics: (_r, _p, run) => ({ tokens_per_s: Math.round(tokensSeen / run.elapsed) }),
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
