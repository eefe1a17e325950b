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
