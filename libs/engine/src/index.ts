// @rlhf-code/engine: the rollout engine beneath every sampling site (engine.ts), its local kind, the local server that
// speaks vLLM's OpenAI-compatible subset over it (serve-openai.ts, `generate serve-openai`), its llamacpp kind (llama.cpp
// in process, llamacpp.ts), the GGUF export that kind runs (gguf.ts, `generate gguf`), and how a stage opens the engine
// its --engine names and publishes its policy to it (open.ts), and the generate app's commands (generate-commands.ts).
export { parseEngineSpec } from './engine';
export { LocalEngine } from './local';
export { engineFields, openEngine, publishPolicy } from './open';
export type { EngineSettings } from './open';
export { GgufSettings } from './gguf-settings';
export type { RolloutEngine } from './engine';
export { localEngineHost, serveOpenAi, ServeOpenAiSettings } from './serve-openai';
export { ggufCommand, logitsCommand, runCommand, serveOpenAiCommand } from './generate-commands';
