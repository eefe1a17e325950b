// @rlhf-code/online-core: what every part of the online service shares, one layer below them all. The settings (one
// zod schema, config.ts), the A/B arms and their analysis (arms.ts, ab-analysis.ts), the records and types that pass
// between the parts (a served completion: served-record.ts; the service's status: status.ts), the models by role
// (online-models.ts), worker threads as promises (thread-calls.ts), the two servers' JSON handling (http.ts) and the
// reader of the service's own logs (json-lines.ts).
export {
  CompletionServerSchema,
  FeedbackServerSchema,
  GateSchema,
  OnlineConfigSchema,
  parseOnlineConfig,
  RewardSchema,
  ServeSettings,
  TrainingSchema,
  type FeedbackServerConfig,
  type GateConfig,
  type OnlineConfig,
  type OnlineConfigInput,
  type RewardConfig,
  type TrainingConfig,
  type UserRmConfig,
} from './config';
export { ArmRouter, defaultArms, EXPERIMENT_ARMS, holds, modelOfArm, type Arm, type ArmSpec } from './arms';
export { analyseArms, formatArmAnalysis, UTILITY, utilityPerRequest, type ArmAnalysis } from './ab-analysis';
export { hashPrompt, type GateInput, type ServedRecord } from './served-record';
export type { GateStatus, OnlineStatus, UpstreamCounts, Validation } from './status';
export { loadOnlineModels } from './online-models';
export { COMPUTE_NICENESS, serveCalls, threadData, ThreadCalls } from './thread-calls';
export { bearerToken, errorBody, installJsonHandling, QueryError, sendError } from './http';
export { readJsonLines } from './json-lines';
