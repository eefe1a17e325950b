// The llamacpp engine's defaults that depend on the model (llamacpp.ts): one thread for a model of a few million
// parameters, where llama.cpp's per-operation barrier costs more than a second thread gains; every core otherwise.
import { DEFAULT_SEQUENCES, defaultLlamaThreads, SMALL_MODEL_PARAMETERS } from './llamacpp';

describe('llamacpp defaults', () => {
  it('threads: one below SMALL_MODEL_PARAMETERS whatever the cores, every core from it on', () => {
    expect(defaultLlamaThreads(8.62e6, 2)).toBe(1); // models/base
    expect(defaultLlamaThreads(8.62e6, 16)).toBe(1);
    expect(defaultLlamaThreads(SMALL_MODEL_PARAMETERS - 1, 4)).toBe(1);
    expect(defaultLlamaThreads(SMALL_MODEL_PARAMETERS, 4)).toBe(4);
    expect(defaultLlamaThreads(494e6, 2)).toBe(2); // Qwen2.5-Coder-0.5B's shape
    expect(defaultLlamaThreads(494e6)).toBeGreaterThanOrEqual(1);
    expect(DEFAULT_SEQUENCES).toBe(8);
  });
});
