// @rlhf-code/train: the supervised stages, pretrain, sft and rm: their settings, their data and their training loops
// (on @rlhf-code/trainer-core's Trainer, TrainingRun and RunDir).
export { padLmBatch, pretrainWindows } from './lm-data';
export type { LmExample } from './lm-data';
export { lmMicroBatch, lmRowLosses } from './lm-loss';
export { runLmStage } from './lm-stage';
export { loadLmStageModel } from './lm-model';
export { rmLoss } from './rm-stage';
export { PretrainSettings, RmSettings, SftSettings } from './settings';
export { runPretrain, runRm, runSft } from './stages';
