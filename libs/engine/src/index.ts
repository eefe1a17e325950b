// @rlhf-code/engine: the rollout engine beneath every sampling site (engine.ts), its local kind, the local server that
// speaks vLLM's OpenAI-compatible subset over it (serve-openai.ts, `generate serve-openai`), its llamacpp kind (llama.cpp
// in process, llamacpp.ts) and the GGUF export that kind runs (gguf.ts, `generate gguf`).
export { LocalEngine } from './local';
export { LlamaCppEngine } from './llamacpp';
export { parseEngineSpec } from './engine';
export { exportLoraGguf, exportModelGguf } from './gguf';
export { GgufSettings } from './gguf-settings';
export type { EngineCompletion, EngineSpec, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';
export { localEngineHost, serveOpenAi, ServeOpenAiSettings } from './serve-openai';
