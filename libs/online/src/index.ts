// @rlhf-code/online: online RL behind Continue. A completion server (OpenAI legacy completions, SSE), a feedback
// server (Continue's AutocompleteOutcome), a durable feedback log, a critic-free PPO trainer that updates the served
// policy between decoding steps, A/B routing to the frozen starting model; the latency bench and the learning
// experiment, which drive it with @rlhf-code/continue's simulated Continue.
export {
  OnlineConfigSchema,
  CompletionServerSchema,
  FeedbackServerSchema,
  TrainingSchema,
  RewardSchema,
  ConfigError,
  configFromEnv,
  loadOnlineConfig,
  parseOnlineConfig,
  type OnlineConfig,
  type OnlineConfigInput,
  type RewardConfig,
  type TrainingConfig,
} from './config';
export { PolicyHolder } from './policy';
export { ArmRouter } from './arms';
export { OnlineStats, hashPrompt, withRates, type ServedRecord, type Counts, type CountsWithRates } from './stats';
export { ServedIndex } from './served-index';
export { FeedbackLog, type LoggedEvent, type LogCounts, type ServedRef, type Arm, type SkipReason } from './feedback-log';
export { buildCompletionServer, CompletionRequestSchema, type CompletionRequest, type CompletionServerOptions } from './completion-server';
export { buildFeedbackServer, type FeedbackServerOptions, type SubmitResult } from './feedback-server';
export { eventKind, reward, RewardScheme, type EventKind, type BatchRewards } from './rewards';
export { OnlineTrainer, type OnlineTrainerOptions, type TrainingSample, type UpdateMetrics, type UpdateResult, type DiscardReason } from './online-trainer';
export { listCheckpoints, checkpointDir, saveOnlineCheckpoint, loadOnlineState, type OnlineTrainerState } from './checkpoints';
export { startOnlineService, startMeasuringService, type OnlineService, type OnlineStatus, type StartOptions } from './service';
export { buildFimDataset, fimExamplesFromText, fimSftRecords, type FimExample, type FimKind, type FimBuildOptions, type FimSftRecord } from './fim-dataset';
export { measureLatency, continueShapedPrompt, type LatencyOptions, type LatencyRow, type FimCase } from './latency';
export { scrubOutcome } from './scrub';
export { runOnlineExperiment, type ExperimentOptions, type ExperimentResult, type HeldOutComparison } from './experiment';
