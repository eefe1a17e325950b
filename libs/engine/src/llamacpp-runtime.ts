// Loading node-llama-cpp (llama.cpp's Node-API binding) for the llamacpp engine. It is not a root dependency: its
// platform builds are large, so tools/engine-llamacpp/install.cjs installs it into tools/engine-llamacpp/node_modules
// (the root postinstall runs it; `npm run install:llamacpp` again by hand). It is an ES module, so it is imported
// (resolved from that folder) where ES modules can be imported: under tsx (the apps, the scripts), not inside jest's
// module system, whose tests run it in a tsx child process.
//
// The types below are the part of node-llama-cpp 3.22's API the engine uses (its own .d.ts files are not visible to
// the root tsconfig). Nothing is built or downloaded at run time (build: 'never'); the GPU is off unless the runtime
// setting llamacppGpu (RLHF_LLAMACPP_GPU) names one (the one build for Apple silicon is Metal's).
import { createRequire } from 'module';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { runtimeSettings } from '@rlhf-code/cli';

/** The folder holding the engine's own package.json, lockfile and node_modules. */
export const LLAMACPP_RUNTIME_DIR = path.join(__dirname, '../../../tools/engine-llamacpp');

export type LlamaGpu = false | 'auto' | 'cuda' | 'vulkan' | 'metal';

/** Options of one sampling step (node-llama-cpp's SequenceEvaluateOptions, the fields used). */
export interface LlamaSamplingOptions {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed?: number;
  tokenBias: () => LlamaTokenBias;
  yieldEogToken: boolean;
}

/** node-llama-cpp's TokenBias: the addon applies the logit biases of its `_biases` map (token -> added logit). */
export interface LlamaTokenBias {
  readonly _biases: Map<number, number>;
}

export interface LlamaContextSequence {
  readonly nextTokenIndex: number;
  /** The tokens whose keys and values the sequence holds (a copy). */
  readonly contextTokens: number[];
  compareContextTokens(tokens: number[]): { firstDifferentIndex: number };
  eraseContextTokenRanges(ranges: { start: number; end: number }[]): Promise<void>;
  evaluateWithMetadata(tokens: number[], metadata: { confidence: true }, options: LlamaSamplingOptions): AsyncGenerator<{ token: number; confidence: number }, void, void>;
  controlledEvaluate(input: (number | [number, { generateNext: { logits: true } }])[]): Promise<({ next: { logits?: Map<number, number> } } | undefined)[]>;
}

export interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaContextSequence;
  dispose(): Promise<void>;
}

export interface LlamaContextOptions {
  contextSize: number;
  sequences: number;
  threads: number;
  flashAttention: boolean;
  experimentalKvCacheKeyType: 'F32' | 'F16';
  experimentalKvCacheValueType: 'F32' | 'F16';
  lora?: { adapters: { filePath: string; scale: number }[] };
}

export interface LlamaModel {
  createContext(opts: LlamaContextOptions): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

export interface Llama {
  readonly gpu: LlamaGpu;
  loadModel(opts: { modelPath: string; gpuLayers: number | 'max' }): Promise<LlamaModel>;
}

interface NodeLlamaCpp {
  getLlama(opts: { build: 'never'; gpu: LlamaGpu; logLevel: 'error'; progressLogs: false }): Promise<Llama>;
  TokenBias: { for(model: LlamaModel): LlamaTokenBias };
}

export interface LlamaRuntime {
  llama: Llama;
  /** A TokenBias for `model` that sets each of `ids` to never be sampled. */
  banned(model: LlamaModel, ids: Iterable<number>): LlamaTokenBias;
}

/** The runtime setting llamacppGpu (RLHF_LLAMACPP_GPU) in node-llama-cpp's terms (false: the CPU). */
function gpuSetting(): LlamaGpu {
  const v = runtimeSettings().llamacppGpu;
  return v === 'cpu' ? false : v;
}

let runtime: Promise<LlamaRuntime> | null = null;

/** node-llama-cpp's llama.cpp binding, loaded once per process. */
export function llamaRuntime(): Promise<LlamaRuntime> {
  runtime ??= load().catch((e: unknown) => {
    runtime = null; // a later call (after `npm run install:llamacpp`) tries again
    throw e;
  });
  return runtime;
}

async function load(): Promise<LlamaRuntime> {
  let entry: string;
  try {
    entry = createRequire(path.join(LLAMACPP_RUNTIME_DIR, 'package.json')).resolve('node-llama-cpp');
  } catch {
    throw new Error(`llamacpp engine: node-llama-cpp is not installed in ${path.relative(process.cwd(), LLAMACPP_RUNTIME_DIR) || '.'} (run npm run install:llamacpp)`);
  }
  let mod: NodeLlamaCpp;
  try {
    mod = (await import(pathToFileURL(entry).href)) as NodeLlamaCpp;
  } catch (e) {
    throw new Error(`llamacpp engine: cannot import node-llama-cpp (an ES module) from ${entry}: ${(e as Error).message}`);
  }
  const gpu = gpuSetting();
  let llama: Llama;
  try {
    llama = await mod.getLlama({ build: 'never', gpu, logLevel: 'error', progressLogs: false });
  } catch (e) {
    throw new Error(`llamacpp engine: no usable llama.cpp binary for ${process.platform}/${process.arch} with gpu ${gpu} (run npm run install:llamacpp${gpu ? ` with RLHF_LLAMACPP_GPU=${gpu}` : ''}): ${(e as Error).message}`);
  }
  return {
    llama,
    banned: (model, ids) => {
      // TokenBias.set skips end-of-generation tokens (node-llama-cpp 3.22 TokenBias.js), and a stop id held back by
      // minNewTokens usually is one, so the ids go into the map the addon reads (LlamaContext.js getTokenBiasesForAddon).
      const bias = mod.TokenBias.for(model);
      for (const id of ids) bias._biases.set(id, -Infinity);
      return bias;
    },
  };
}
