// @rlhf-code/engine: the rollout engine beneath every sampling site (engine.ts), and its local kind.
export { LocalEngine } from './local';
export { parseEngineSpec } from './engine';
export type { EngineCompletion, EngineSpec, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';
