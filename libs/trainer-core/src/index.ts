// @rlhf-code/trainer-core: what every training stage (sft, rm, ppo / grpo, tool GRPO, online) trains with: AdamW with
// gradient clipping and the LR schedule (Trainer: the one training step), the token losses, the run's metrics file and
// progress (TrainingRun), the run directory (RunDir: what --resume reads and writes), and the settings fields every
// stage shares (optimiser, run, LoRA).
export { entropyFromLogits, sparseCrossEntropy, tokenLogProbs } from './losses';
export { gradientsOf, Trainer } from './trainer';
export type { MicroBatch, StepResult, TrainerConfig } from './trainer';
export { dropLinesAfter, TrainingRun, yieldToEventLoop } from './run';
export type { Metrics, RunPosition } from './run';
export { BF16_MOMENTS_FILE, POSITION_FILE, RunDir } from './run-dir';
export type { SavedState } from './run-dir';
export { lrSchedule } from './schedule';
export { checkBaseDtype, checkMergeExport, checkOptim, loraConfigOf, loraFields, mergeExportField, optimFields, precisionField, runFields, trainerConfig } from './settings';
export type { OptimSettings } from './settings';
