// @rlhf-code/train: supervised training: the settings of pretrain / sft / rm and the optimiser fields every stage
// shares, AdamW with clipping and the LR schedule (Trainer: the one training step), the run directory (RunDir: what
// --resume reads and writes), the LM and reward-model stages and their data.
export { sparseCrossEntropy, tokenLogProbs, entropyFromLogits } from './losses';
export { Trainer } from './trainer';
export type { MicroBatch, TrainerConfig } from './trainer';
export { TrainingRun, yieldToEventLoop, dropLinesAfter } from './run';
export { RunDir } from './run-dir';
export type { RunPosition } from './run';
export { pretrainWindows, sftExample, fimSftExample, packExamples, padLmBatch } from './lm-data';
export type { LmExample } from './lm-data';
export { evaluateLmLoss, lmMicroBatch } from './lm-loss';
export { runLmStage } from './lm-stage';
export { loadLmStageModel } from './lm-model';
export { rmLoss, runRmStage } from './rm-stage';
export type { RmExample } from './rm-stage';
export { checkMergeExport, checkOptim, loraConfigOf, loraFields, mergeExportField, optimFields, PretrainSettings, RmSettings, runFields, SftSettings, trainerConfig } from './settings';
