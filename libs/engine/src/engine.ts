// The rollout engine: what decodes samples for every sampling site (RL rollouts, evaluation sampling, tool episodes,
// the online server), and how a new policy version reaches it. Three kinds:
//
//   local      the project's own decoder (generateBatch) on the trainer's model object: a published version is the
//              trainer's weights as they are, so publish() only records the version.
//   llamacpp   llama.cpp in this process (node-llama-cpp) on a GGUF export of the checkpoint; a version is a GGUF
//              LoRA adapter (or full weights) loaded into a new context, older ones released.
//   openai:URL a vLLM or SGLang server's OpenAI-compatible API (token ids in and out, the sampled tokens' log-probs);
//              a version is a PEFT adapter folder loaded under a new name, or full weights (SGLang) from disk.
//
// Every call names every sampling parameter (no engine default applies: top-k 0 / top-p 1 / min-p 0 unless given),
// takes token ids (never re-tokenized) and returns token ids. The trainer never takes an engine's log-probs as the
// old policy's: it recomputes them (the engine's are the sampler's, for the mismatch metric and an optional
// truncated importance weight).
import type { Completion, Rng } from '@rlhf-code/model';

/** What `--engine` names: `local`, `llamacpp`, or `openai:<base URL>` (e.g. openai:http://127.0.0.1:8000). */
export type EngineSpec = { kind: 'local' } | { kind: 'llamacpp' } | { kind: 'openai'; url: string };

export interface SampleRequest {
  maxNewTokens: number;
  /** No stop id before this many new tokens; default 0. */
  minNewTokens?: number;
  /** 0 = greedy. */
  temperature: number;
  /** A temperature per prompt instead of `temperature` (0: that prompt greedy). */
  temperatures?: readonly number[];
  /** 0 or absent: off. */
  topK?: number;
  /** 1 or absent: off. */
  topP?: number;
  /** Ids that end a continuation (the caller resolves its stop set with the tokenizer). */
  stopIds: readonly number[];
  /** A continuation also ends when its text contains one of these; `text` is cut before it. */
  stopStrings?: readonly string[];
  /** Ids at or past it are never sampled (a checkpoint's vocab_size padded past its tokenizer's). */
  vocabSize: number;
  /** Root seed (generateBatch's seeding rule: one stream per prompt, in input order), or a caller-owned root stream, or one stream per prompt. */
  seed?: number | string;
  rng?: Rng;
  rngs?: readonly Rng[];
  /** Prompts decoded together where the engine batches (the local engine's batchSize). */
  batchSize?: number;
  /** Local engine: batch prompts of similar length together. */
  byLength?: boolean;
  /** Ends prompt `index`'s continuation at an index into its text, or null (engines without streaming apply it to the final text). */
  stopWhen?: (index: number, text: string) => number | null;
  /** Streams prompt `index`'s newly final text as it is decoded (local, llamacpp; the openai engine calls it once per prompt at the end). */
  onText?: (index: number, delta: string) => void;
  /** Called with prompts' input indices and their completions as they are done (the local engine: after each batch; the others: after each prompt). */
  onBatch?: (indices: readonly number[], completions: readonly EngineCompletion[]) => void;
  /** Awaited before every decoding step where the engine decodes step by step in this process. */
  beforeStep?: () => void | Promise<void>;
  /**
   * Per prompt (null: none), a key whose earlier prompt's KV cache the engine may reuse for the token prefix they
   * share (a user's file, a multi-turn episode): local, a prompt sampled alone (a single prompt, or batchSize 1).
   */
  cacheKeys?: readonly (string | null)[];
}

/** A completion as generateBatch returns it, plus the policy version that sampled it. */
export interface EngineCompletion extends Completion {
  policyVersion: number;
}

/** A new policy for the engine: a PEFT adapter folder (adapter_config.json + adapter_model.safetensors) or a full Hugging Face checkpoint folder. */
export type PolicySnapshot = { kind: 'adapter'; dir: string } | { kind: 'full'; dir: string };

export interface RolloutEngine {
  /** 'local', 'llamacpp', 'vllm', 'sglang': which engine sampled (recorded with results). */
  readonly name: string;
  /** The version that new calls sample from (0 = the checkpoint the engine was opened on). */
  readonly policyVersion: number;
  /** Continue each prompt (token ids); results in input order. */
  sample(prompts: readonly (readonly number[])[], req: SampleRequest): Promise<EngineCompletion[]>;
  /** Make `snapshot` version `version` (> the current one): resolves once new calls sample from it. */
  publish(snapshot: PolicySnapshot, version: number): Promise<void>;
  /** Release what the engine holds (contexts, adapters, connections). */
  close(): Promise<void>;
}

/** What is wrong with an `--engine` value (null: nothing), without the flag's name. */
export function engineSpecProblem(value: string): string | null {
  if (value === 'local' || value === 'llamacpp') return null;
  if (!value.startsWith('openai:')) return `expected local, llamacpp or openai:URL, got '${value}'`;
  const url = value.slice('openai:'.length);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `'${url}' is not a URL (expected openai:http://host:port)`;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : `'${url}' must be http:// or https://`;
}

/** Parse an `--engine` value: a clear error naming the flag for anything else. */
export function parseEngineSpec(value: string, flag = '--engine'): EngineSpec {
  const problem = engineSpecProblem(value);
  if (problem !== null) throw new Error(`${flag}: ${problem}`);
  if (value === 'local' || value === 'llamacpp') return { kind: value };
  return { kind: 'openai', url: value.slice('openai:'.length).replace(/\/+$/, '') };
}
