// @rlhf-code/rl: the reinforcement-learning maths (rewards, GAE, whitening, clipped losses, KL control, GRPO and
// RLOO advantages, TRL-named metrics), the algorithms as records (algorithms.ts), the training loop built on them, and
// the stage behind `rl train` (runRl).
export { clippedUpdate, policyLoss } from './clipped-update';
export { truncatedIsWeights } from './policy-loss';
export { ALGORITHMS } from './algorithms';
export { groupAdvantages } from './grpo';
export { aggregate, type LossAggregation } from './masked';
export { METRICS } from './metrics';
export { chunksByLength, layoutSequences, selectRows, takeRows, type SequenceBatch } from './rollout';
export { forwardResponses, forwardResponsesToHost, responseLogProbs } from './policy-forward';
export { RlTrainer } from './rl-trainer';
export { createValueHead } from './value-head';
export { lossAggregationField, policyGradientSettings, RlSettings, rolloutIsFields } from './settings';
export { loadRlModels, saveRlCheckpoint } from './rl-models';
export { runRl, type HeldOutPlot } from './stages';
export { HELDOUT_SVG, type HeldOutRecord } from './heldout';
