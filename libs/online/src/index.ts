// @rlhf-code/online: online RL behind Continue. A completion server (OpenAI legacy completions, SSE), a feedback
// server (Continue's AutocompleteOutcome), a durable feedback log, a critic-free PPO trainer that updates the served
// policy between decoding steps, A/B routing to the frozen starting model. The latency bench, the load command and the
// learning experiment, which drive it from outside, are @rlhf-code/online-bench.
export { CompletionServerSchema, OnlineConfigSchema, parseOnlineConfig, ServeSettings, TrainingSchema, type OnlineConfigInput } from './config';
export { startMeasuringService, startOnlineService, type OnlineStatus } from './service';
export { analyseArms, formatArmAnalysis, type ArmAnalysis } from './ab-analysis';
export { EXPERIMENT_ARMS } from './arms';
export { listCheckpoints } from './policy-checkpoints';
