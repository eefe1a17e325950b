// @rlhf-code/engine: the rollout engine beneath every sampling site (engine.ts), its local kind, and the local server
// that speaks vLLM's OpenAI-compatible subset over it (serve-openai.ts, `generate serve-openai`).
export { LocalEngine } from './local';
export { parseEngineSpec } from './engine';
export type { EngineCompletion, EngineSpec, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';
export { localEngineHost, serveOpenAi, ServeOpenAiSettings } from './serve-openai';
