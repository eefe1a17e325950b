// The one generation entry point. Every caller that wants continuations of prompts goes through generateBatch: PPO /
// GRPO rollouts and held-out probes (libs/rl sampleResponses), the evaluation and the base-model figures (libs/eval),
// prep's reward-model samples, the completion server, and the generate and bench CLIs. It drives generate() (the
// KV-cached decoder, one left-padded batch at a time):
//
//   batching    `batchSize` prompts decode together (default: all at once). With `byLength` the prompts are first
//               stably sorted by length, so a batch wastes less compute on padding. Results come back in input order.
//               Within a batch, once half of the rows still decoding have finished, the finished ones leave it (and
//               the KV cache), so a few long continuations do not pay for the whole batch every step.
//   decoding    greedy (also temperature 0), or sampling from softmax(logits / temperature) with optional top-k and
//               top-p (sampling.ts). No stop id can be chosen before minNewTokens, and no id past the tokenizer's
//               tokens (a checkpoint's padded vocab_size rows) ever.
//   seeding     one rule: a root stream (resumableRng(seed), seed 0 by default, or the caller's own `rng`) gives each
//               prompt, in input order, the seed of a stream of its own (one draw per prompt), and every token of
//               that prompt's continuation is drawn from its own stream. So a prompt's samples depend on the seed,
//               its index and the model only: not on batchSize, byLength or the other prompts (up to the float
//               rounding of a differently padded batch). A caller-owned rng moves on by exactly one draw per prompt,
//               so a run that saves its state between calls (PPO) resumes exactly. Or the caller gives every prompt
//               its stream (`rngs`: a multi-turn caller keeps one per episode and turn). Greedy decoding draws nothing.
//   stops       a set by name resolved from the tokenizer (stopTokenIds: 'raw' <|endoftext|>; 'chat' <|im_end|> too;
//               'fim' every control token that ends a FIM completion), plus any `stopIds` and stop strings.
//   prefix      with `prefixCache`, a batch of one prompt that has a key decodes from the KV cache of the key's earlier
//   cache       prompt, prefilling only what follows the longest token prefix they share, and leaves its own there
//               (prefix-cache.ts): a user's next keystroke in a file costs its new tokens. Batches of several prompts
//               decode as they would without it.
//   event loop  generate() yields a macrotask turn before every decoding step, so sandbox callbacks, a server's other
//               requests and progress bars run while a generation does.
//
// Per prompt it returns the ids without the stop token, the stop id (or null), the finish reason, the sampler's own
// log-probs and, with a tokenizer, the decoded text.
import { stopTokenIds, type StopSet, type Tokenizer } from '@rlhf-code/tokenizer';
import { generate, type FinishReason } from './generate';
import type { Qwen2Model } from './model';
import type { PrefixCache } from './prefix-cache';
import { resumableRng, type Rng, type SamplingOptions } from './sampling';

export interface GenerateBatchOptions extends SamplingOptions {
  maxNewTokens: number;
  /** No stop id before this many new tokens (Hugging Face's min_new_tokens, vLLM's min_tokens); default 0. */
  minNewTokens?: number;
  /** Prompts decoded together (the KV cache's memory grows with it); default all. */
  batchSize?: number;
  /** Batch prompts of similar length together (stable sort; results still in input order). */
  byLength?: boolean;
  /** Decodes `text`, resolves `stop` and gives the pad id. */
  tokenizer?: Tokenizer;
  /** The named stop set (needs `tokenizer`). */
  stop?: StopSet;
  /** More ids that end a continuation. */
  stopIds?: readonly number[];
  /** A continuation also ends when its text contains one of these; `text` is cut before it (needs `tokenizer`). */
  stopStrings?: readonly string[];
  /** Default: the tokenizer's, else 0 (any id will do: padding is masked out). */
  padId?: number;
  /** Ids at or past it are never sampled (a checkpoint's vocab_size padded past its tokenizer's ids). Default: the tokenizer's size, else every id. */
  vocabSize?: number;
  /** A temperature per prompt instead of `temperature` (0: that prompt greedy), e.g. a greedy answer and sampled alternatives in one batch. */
  temperatures?: readonly number[];
  /** Seed of the root stream (see the seeding rule above); default 0. */
  seed?: number | string;
  /** A caller-owned root stream (e.g. restored from a checkpoint) instead of `seed`; it advances one draw per prompt. */
  rng?: Rng;
  /**
   * Caller-owned streams, one per prompt, instead of a root stream: every token of prompt i is drawn from rngs[i]
   * (one draw per token). Two models sampled with the same streams share their random numbers (common random
   * numbers, for paired comparisons: where their distributions agree they pick the same tokens).
   */
  rngs?: readonly Rng[];
  /** Ends prompt `index`'s continuation at an index into its text, or null to go on (see generate's stopWhen; needs `tokenizer`). */
  stopWhen?: (index: number, text: string) => number | null;
  /** Streams prompt `index`'s newly final text as it is decoded (needs `tokenizer`). */
  onText?: (index: number, delta: string) => void;
  /** Awaited before every decoding step (a server swaps weights or notices an aborted request there). */
  beforeStep?: () => void | Promise<void>;
  /** Prefill long prompts this many positions at a time, yielding between pieces (see generate's prefillChunk). */
  prefillChunk?: number;
  /**
   * Reuse the KV cache of earlier prompts of the same key (a user's, a file's): `keys[i]` is prompt i's (null: none).
   * Applies to batches of one prompt (batchSize 1, or a single prompt); see the top of this file.
   */
  prefixCache?: { cache: PrefixCache; keys: readonly (string | null)[] };
  /** Called after each batch with its prompts' input indices and their completions. */
  onBatch?: (indices: readonly number[], completions: readonly Completion[]) => void;
}

export interface Completion {
  /** Generated ids, without the stop token. */
  ids: number[];
  /** The stop id that ended the continuation, or null (cut at maxNewTokens, or ended by a stop string). */
  stopId: number | null;
  finishReason: FinishReason;
  /** The sampler's log p(token) under softmax(logits / temperature), one per sampled token: `ids`, then the stop id. */
  logprobs: number[];
  /** With `modelLogprobs`: the model's log p(token) at temperature 1, one per sampled token as `logprobs`. */
  modelLogprobs?: number[];
  /** Decoded `ids`, cut before a stop string ('' without a tokenizer). */
  text: string;
  /** Decoded with a prefix cache: the prompt's first positions whose keys and values came from it. */
  cachedTokens?: number;
}

/** Every sampled id: the continuation plus the stop token when there is one (what log-probs and KL are taken over). */
export function sampledIds(c: Pick<Completion, 'ids' | 'stopId'>): number[] {
  return c.stopId === null ? c.ids : [...c.ids, c.stopId];
}

/** Continue each prompt (token ids); see the top of this file for batching, seeding and stop sets. */
export async function generateBatch(model: Qwen2Model, prompts: readonly (readonly number[])[], opts: GenerateBatchOptions): Promise<Completion[]> {
  const tok = opts.tokenizer;
  if (!tok && (opts.stop || opts.stopStrings?.length || opts.onText || opts.stopWhen)) {
    throw new Error('generateBatch: a stop set, stop strings, stopWhen and streaming need a tokenizer');
  }
  if (prompts.length === 0) return [];
  const batchSize = opts.batchSize ?? prompts.length;
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw new Error(`generateBatch: batchSize must be an integer >= 1, got ${opts.batchSize}`);
  const stops = [...new Set([...(opts.stop ? stopTokenIds(tok!, opts.stop) : []), ...(opts.stopIds ?? [])])];
  const isStop = new Set(stops);

  // The seeding rule: one stream per prompt, seeded in input order from the root stream.
  if (opts.temperatures && opts.temperatures.length !== prompts.length) throw new Error(`generateBatch: ${prompts.length} prompts need ${prompts.length} temperatures, got ${opts.temperatures.length}`);
  const greedy = opts.greedy === true || (opts.temperatures ? opts.temperatures.every((t) => t === 0) : opts.temperature === 0);
  if (opts.rngs && (opts.rng || opts.seed !== undefined)) throw new Error('generateBatch: give rngs, or rng / seed, not both');
  if (opts.prefixCache && opts.prefixCache.keys.length !== prompts.length) throw new Error(`generateBatch: ${prompts.length} prompts need ${prompts.length} prefix cache keys, got ${opts.prefixCache.keys.length}`);
  if (opts.rngs && opts.rngs.length !== prompts.length) throw new Error(`generateBatch: ${prompts.length} prompts need ${prompts.length} rngs, got ${opts.rngs.length}`);
  const streamsFrom = (root: Rng) => prompts.map(() => resumableRng(String(root.next())));
  const rngs = greedy ? undefined : (opts.rngs ?? streamsFrom(opts.rng ?? resumableRng(opts.seed ?? 0)));

  // The text is decoded once at the end, unless stop strings or streaming need it after every step.
  const stepText = tok && (opts.stopStrings?.length || opts.onText || opts.stopWhen) ? (ids: number[]) => tok.decode(ids) : undefined;
  const order = prompts.map((_, i) => i);
  if (opts.byLength) order.sort((a, b) => prompts[a].length - prompts[b].length);
  const out: Completion[] = new Array(prompts.length);
  for (let start = 0; start < order.length; start += batchSize) {
    const rows = order.slice(start, start + batchSize); // input indices of this batch
    const key = rows.length === 1 ? opts.prefixCache?.keys[rows[0]] : null;
    const gens = await generate(
      model,
      rows.map((i) => prompts[i]),
      {
        maxNewTokens: opts.maxNewTokens,
        minNewTokens: opts.minNewTokens,
        greedy,
        temperature: greedy ? undefined : opts.temperature,
        temperatures: greedy ? undefined : opts.temperatures && rows.map((i) => opts.temperatures![i]),
        topK: opts.topK,
        topP: opts.topP,
        modelLogprobs: opts.modelLogprobs,
        rngs: rngs && rows.map((i) => rngs[i]),
        padId: opts.padId ?? tok?.padId ?? 0,
        vocabSize: opts.vocabSize ?? tok?.vocabSize, // a checkpoint's padding rows past the tokenizer's tokens are never sampled
        stopTokenIds: stops,
        stopStrings: opts.stopStrings ? [...opts.stopStrings] : undefined,
        decode: stepText,
        stopWhen: opts.stopWhen && ((row, text) => opts.stopWhen!(rows[row], text)),
        onText: opts.onText && ((row, delta) => opts.onText!(rows[row], delta)),
        beforeStep: opts.beforeStep,
        prefillChunk: opts.prefillChunk,
        prefixCache: key ? { cache: opts.prefixCache!.cache, key } : undefined,
      },
    );
    const batch = gens.map((g): Completion => {
      const last = g.ids[g.ids.length - 1];
      const stopId = g.ids.length > 0 && isStop.has(last) ? last : null;
      const ids = stopId === null ? g.ids : g.ids.slice(0, -1);
      return {
        ids,
        stopId,
        finishReason: g.finishReason,
        logprobs: g.logprobs,
        ...(g.modelLogprobs ? { modelLogprobs: g.modelLogprobs } : {}),
        text: stepText ? g.text : (tok?.decode(ids) ?? ''),
        ...(g.cachedTokens === undefined ? {} : { cachedTokens: g.cachedTokens }),
      };
    });
    batch.forEach((c, k) => (out[rows[k]] = c));
    opts.onBatch?.(rows, batch);
  }
  return out;
}
