// @rlhf-code/rl: the reinforcement-learning maths (rewards, GAE, whitening, clipped losses, KL control, GRPO,
// TRL-named metrics), the PPO / GRPO training loop built on them, and the stage behind `ppo train` (runPpo).
export { clippedUpdate, policyLoss } from './clipped-update';
export { groupAdvantages } from './grpo';
export { aggregate, type LossAggregation } from './masked';
export { METRICS } from './metrics';
export { chunksByLength, layoutSequences, selectRows, takeRows, type SequenceBatch } from './rollout';
export { forwardResponses, forwardResponsesToHost, responseLogProbs } from './policy-forward';
export { PpoTrainer } from './ppo-trainer';
export { createValueHead } from './value-head';
export { lossAggregationField, PpoSettings } from './settings';
export { loadPpoModels, savePpoCheckpoint } from './ppo-models';
export { runPpo, type HeldOutPlot } from './stages';
export { HELDOUT_SVG, type HeldOutRecord } from './heldout';
export { runRft } from './rft';
export { RftSettings } from './rft-settings';
