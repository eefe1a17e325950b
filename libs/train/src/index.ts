// Training utilities shared by the apps: optimizer, clipping, LR schedule, gradient accumulation, token losses.
export { AdamW } from './adamw';
export type { AdamWConfig, OptimizerState } from './adamw';
export { clipByGlobalNorm } from './clip';
export { lrSchedule } from './schedule';
export type { LrScheduleConfig, LrScheduleKind } from './schedule';
export { GradAccumulator } from './accumulate';
export { sparseCrossEntropy, tokenLogProbs, entropyFromLogits } from './losses';
export { Trainer, gradientsOf } from './trainer';
export type { TrainerConfig, LossFn, MicroBatch, StepResult } from './trainer';
export { TrainingRun, trainingStateOf, restoreTrainingState, yieldToEventLoop, dropLinesAfter } from './run';
export type { RunOptions, RunPosition, Metrics } from './run';
export { fit } from './fit';
export type { FitOptions, FitResult } from './fit';
export {
  chunkLines,
  fimSplit,
  pretrainTokens,
  pretrainWindows,
  sftExample,
  fimSftExample,
  packExamples,
  padLmBatch,
  targetCount,
} from './lm-data';
export type { LmExample, LmBatch, PretrainOptions } from './lm-data';
export { causalLmLoss, lmMicroBatch, evaluateLmLoss } from './lm-loss';
export { runStage } from './stage';
export type { StageOptions, OptimConfig } from './stage';
export { runLmStage } from './lm-stage';
export type { LmStageOptions } from './lm-stage';
export { runRmStage, rmLoss, rmPredict, regressionMetrics, pairwiseAccuracy, rmHeldOutMetrics, PAIR_LOSSES, type PairLoss } from './rm-stage';
export type { RmExample, RmStageOptions, RegressionMetrics, PairwiseMetrics, RmHeldOutMetrics } from './rm-stage';
