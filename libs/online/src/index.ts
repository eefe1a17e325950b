// @rlhf-code/online: online RL behind Continue. A completion server (OpenAI legacy completions, SSE), a feedback
// server (Continue's AutocompleteOutcome), a durable feedback log, a critic-free PPO trainer that updates the served
// policy between decoding steps, A/B routing to the frozen starting model; the latency bench and the learning
// experiment, which drive it with @rlhf-code/continue's simulated Continue.
export { OnlineConfigSchema, parseOnlineConfig, ServeSettings, type OnlineConfigInput } from './config';
export { startOnlineService } from './service';
export { measureLatency } from './latency';
export { formatExperiment, runOnlineExperiment } from './experiment';
export { EXPERIMENT_ARMS } from './arms';
export { ExperimentSettings, LatencySettings } from './settings';
