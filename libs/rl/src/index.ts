// @rlhf-code/rl: the reinforcement-learning maths (rewards, GAE, whitening, clipped losses, KL control, GRPO,
// TRL-named metrics) and the PPO / GRPO training loop built on them.
export { clippedUpdate, policyLoss } from './clipped-update';
export { groupAdvantages } from './grpo';
export { aggregate, type LossAggregation } from './masked';
export { METRICS } from './metrics';
export { chunksByLength, layoutSequences, selectRows, takeRows, type SequenceBatch } from './rollout';
export { forwardResponses, forwardResponsesToHost, responseLogProbs } from './policy-forward';
export { executionScorer, type ExecPrompt } from './execution-scorer';
export { combineScorers, rewardModelScorer, type Scorer } from './scorers';
export { PpoTrainer } from './ppo-trainer';
export { createValueHead } from './value-head';
export { lossAggregationField, PpoSettings } from './settings';
export { loadPpoModels, savePpoCheckpoint } from './ppo-models';
export { runPpo } from './ppo-run';
export { HeldOutProbe, HELDOUT_SVG, type HeldOutRecord } from './heldout';
