// @rlhf-code/rl: the reinforcement-learning maths (rewards, GAE, whitening, clipped losses, KL control, GRPO,
// TRL-named metrics) and the PPO / GRPO training loop built on them.
export { aggregate, maskedMean, LOSS_AGGREGATIONS, type LossAggregation } from './masked';
export { responseLengths } from './response-mask';
export { maskedMoments, whiten, type WhitenOptions } from './whiten';
export { applyMissingEosPenalty, clipScores, perTokenRewards, type MissingEosOptions, type TokenRewardsInput, type TokenRewards } from './rewards';
export { computeGae, type GaeResult } from './gae';
export { clippedPolicyLoss, type PolicyLossResult } from './policy-loss';
export { clippedUpdate, policyLoss, type ClippedUpdateOptions, type ClippedUpdateResult, type PolicyLossOptions } from './clipped-update';
export { clippedValueLoss, type ValueLossResult } from './value-loss';
export { tokenEntropy } from './entropy';
export { k3Kl, sequenceKl } from './kl';
export {
  AdaptiveKlController,
  FixedKlController,
  createKlController,
  restoreKlController,
  type KlController,
  type KlControllerState,
} from './kl-controller';
export { groupAdvantages, type GroupAdvantageOptions, type GroupAdvantages } from './grpo';
export { METRICS, MetricMeans, mean, std, rolloutMetrics, type MetricRecord, type RolloutSummary } from './metrics';
export { layoutSequences, selectRows, takeRows, sampleResponses, type SequenceBatch, type SampleOptions, type Responses } from './rollout';
export { forwardResponses, forwardResponsesToHost, responseLogProbs, type ResponseForward, type ResponseForwardOptions } from './policy-forward';
export { createValueHead, valueHeadFromWeights, VALUE_HEAD_NAME, type ValueHeadSource } from './value-head';
export { executionScorer, responseProgram, type ExecPrompt } from './execution-scorer';
export { combineScorers, rewardModelScorer, type RolloutSample, type Scorer, type ScoreResult, type CombinedScorer } from './scorers';
export {
  PpoTrainer,
  type PpoAlgo,
  type PpoConfig,
  type PpoOptimConfig,
  type PpoModels,
  type PpoPrompt,
  type PpoTrainerState,
} from './ppo-trainer';
export { loadPpoModels, savePpoCheckpoint, type LoadPpoModelsOptions } from './ppo-checkpoint';
export { runPpo, type PpoRunOptions, type PpoRunResult } from './ppo-run';
export { HeldOutProbe, formatHeldOut, HELDOUT_FILE, HELDOUT_SVG, type HeldOutOptions, type HeldOutRecord } from './heldout';
