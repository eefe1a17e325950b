// Opening the rollout engine a stage's `--engine` names, and publishing the trainer's policy to it: the one place
// every sampling stage (rl, eval, tool-rl, online serve, ...) turns its settings into a RolloutEngine, so the flags,
// their help and their errors are defined once (engineFields, spread into each stage's settings schema).
//
//   local      LocalEngine on the stage's own model object (it samples the weights as the trainer leaves them).
//   llamacpp   LlamaCppEngine on a GGUF export of the checkpoint folder the stage started from.
//   openai:URL OpenAiEngine.open: the server must serve that checkpoint (its tokenizer is checked).
//
// publishPolicy: after an update, a non-local engine gets the policy written to a fresh temporary folder (the LoRA
// adapter when the model trains one, else a full checkpoint), published, and the folder removed (both engines copy
// or convert what they load; never inside a run's --out, which holds a checkpoint only); the local engine only
// records the version (nothing is written).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { z } from 'zod';
import { saveCheckpoint, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { engineSpecProblem, parseEngineSpec, type RolloutEngine } from './engine';
import { DEFAULT_SEQUENCES, LlamaCppEngine } from './llamacpp';
import { LocalEngine } from './local';
import { OpenAiEngine } from './openai';

/** The engine settings of a sampling stage (spread into its zod schema: --engine, --engine-shared-dir, --engine-path-prefix). */
export const engineFields = {
  engine: z
    .string()
    .default('local')
    .superRefine((v, ctx) => {
      const problem = engineSpecProblem(v);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      "what decodes the samples: local (the project's own decoder on the trainer's model), llamacpp (llama.cpp in process on a GGUF export of the checkpoint), or openai:URL (a vLLM / SGLang server serving the same checkpoint, e.g. openai:http://127.0.0.1:8000)",
    ),
  engineSharedDir: z
    .string()
    .min(1)
    .optional()
    .describe('openai engine: a folder the trainer writes each policy version into and the server reads (needed to publish updates to the server)'),
  enginePathPrefix: z.string().min(1).optional().describe('openai engine: --engine-shared-dir as the server sees it (default: its absolute path here)'),
  engineWeights: z
    .enum(['F32', 'Q8_0'])
    .default('F32')
    .describe("llamacpp engine: the GGUF export's matrices: F32 (logits within ~1e-5 of the project's) or Q8_0 (8-bit blocks: a quarter of the bytes a decoded token reads, logits off by ~1e-2)"),
  engineSequences: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`llamacpp engine: prompts decoded at once, each on a sequence of its own in one llama.cpp batch (default ${DEFAULT_SEQUENCES}; each holds its own KV cache of the model's context length, at most 2048 tokens)`),
};
/** engineFields' values; engineThreads (llama.cpp's CPU threads, default defaultLlamaThreads) is set by `bench generate` only. */
export type EngineSettings = {
  engine: string;
  engineSharedDir?: string;
  enginePathPrefix?: string;
  engineWeights?: 'F32' | 'Q8_0';
  engineSequences?: number;
  engineThreads?: number;
};

export interface OpenEngineOptions {
  /** The stage's model object (the local engine samples it; the others read its vocab size). */
  model: Qwen2Model;
  tokenizer: Tokenizer;
  /** The checkpoint (or LoRA adapter) folder the model was loaded from: what llamacpp exports. */
  checkpointDir: string;
  /** Local engine: the prefix cache's budget in bytes (0 or absent: none). */
  prefixCacheBytes?: number;
  /** llamacpp engine: LlamaCppOptions.cacheReuse (0 or absent: the shared prefix only). */
  cacheReuse?: number;
  /** The stage publishes policy versions (a trainer): the openai engine then needs --engine-shared-dir. */
  publishes?: boolean;
}

/** The engine `s.engine` names, opened on the stage's model (see the top of this file). */
export async function openEngine(s: EngineSettings, o: OpenEngineOptions): Promise<RolloutEngine> {
  const spec = parseEngineSpec(s.engine);
  if (spec.kind !== 'openai' && (s.engineSharedDir || s.enginePathPrefix)) throw new Error(`--engine-shared-dir / --engine-path-prefix: only the openai engine uses them, not --engine ${s.engine}`);
  if (spec.kind !== 'llamacpp' && (s.engineWeights ?? 'F32') !== 'F32') throw new Error(`--engine-weights ${s.engineWeights}: only the llamacpp engine exports weights, not --engine ${s.engine}`);
  if (spec.kind !== 'llamacpp' && s.engineThreads !== undefined) throw new Error(`--engine-threads: only the llamacpp engine runs its own threads, not --engine ${s.engine}`);
  if (spec.kind !== 'llamacpp' && s.engineSequences !== undefined) throw new Error(`--engine-sequences: only the llamacpp engine decodes on sequences of its own, not --engine ${s.engine}`);
  if (spec.kind === 'local') return new LocalEngine(o.model, o.tokenizer, { prefixCacheBytes: o.prefixCacheBytes });
  if (spec.kind === 'llamacpp') {
    return LlamaCppEngine.open(o.checkpointDir, { tokenizer: o.tokenizer, weights: s.engineWeights, sequences: s.engineSequences, threads: s.engineThreads, cacheReuse: o.cacheReuse });
  }
  if (o.publishes && !s.engineSharedDir) throw new Error(`--engine ${s.engine}: a trainer publishes each policy version to the server through a folder both see: give --engine-shared-dir`);
  return OpenAiEngine.open(s.engine, { modelVocabSize: o.model.config.vocab_size, sharedDir: s.engineSharedDir, pathPrefix: s.enginePathPrefix }, o.tokenizer);
}

export interface PublishOptions {
  version: number;
  /** The adapter's base_model_name_or_path (LoRA), and the folder the tokenizer files come from (full weights). */
  baseModel: string;
}

/** Make `model`'s current weights version `o.version` of `engine` (see the top of this file). */
export async function publishPolicy(engine: RolloutEngine, model: Qwen2Model, o: PublishOptions): Promise<void> {
  const kind = model.lora ? 'adapter' : 'full';
  if (engine instanceof LocalEngine) return engine.publish({ kind, dir: '' }, o.version);
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rlhf-policy-')), `policy-v${o.version}`);
  await saveCheckpoint(dir, { ...model.checkpointContent(o.baseModel), tokenizerDir: kind === 'full' ? o.baseModel : undefined });
  try {
    await engine.publish({ kind, dir }, o.version);
  } finally {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  }
}
