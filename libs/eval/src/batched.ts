// Batched completion of token-id prompts, greedy or sampled (the base-model figures: FIM middles and function bodies;
// the syntax training data: sampled function bodies).
import { generate, Qwen2Model } from '@rlhf-code/model';
import { Tokenizer } from '@rlhf-code/tokenizer';
import { yieldToEventLoop } from '@rlhf-code/train';

export interface BatchOptions {
  maxNewTokens: number;
  batchSize: number;
  /** Ids that end a completion (not part of its text). */
  stopIds: number[];
  /** The stop ids cannot come before this many tokens (generate's minNewTokens); default 0. */
  minNewTokens?: number;
  /** Sample at this temperature (top-k 0, top-p 1) instead of greedy; batch b uses seed * 100003 + b. */
  sampling?: { temperature: number; seed: number };
  onProgress?: (done: number, total: number) => void;
}

/**
 * Continue each prompt, `batchSize` at a time with left padding. Prompts of similar length go in one batch (less
 * padding, i.e. wasted compute; a stable sort, so equal prompts keep their order); the results come back in input
 * order. `stopped`: ended by a stop id (else cut at maxNewTokens); `text` excludes the stop id.
 */
export async function completeBatched(
  model: Qwen2Model,
  tok: Tokenizer,
  prompts: readonly (readonly number[])[],
  opts: BatchOptions,
): Promise<{ text: string; stopped: boolean }[]> {
  const order = prompts.map((_, i) => i).sort((a, b) => prompts[a].length - prompts[b].length);
  const out: { text: string; stopped: boolean }[] = new Array(prompts.length);
  for (let s = 0, b = 0; s < order.length; s += opts.batchSize, b++) {
    const batch = order.slice(s, s + opts.batchSize);
    const decoding = opts.sampling
      ? { temperature: opts.sampling.temperature, topK: 0, topP: 1, seed: opts.sampling.seed * 100_003 + b } // one stream per batch: the same flags give the same samples
      : { greedy: true };
    const gens = await generate(
      model,
      batch.map((i) => prompts[i].slice()),
      { maxNewTokens: opts.maxNewTokens, minNewTokens: opts.minNewTokens, ...decoding, padId: tok.padId, stopTokenIds: opts.stopIds, beforeStep: yieldToEventLoop },
    );
    gens.forEach((g, k) => {
      const stopped = g.finishReason === 'stop';
      out[batch[k]] = { text: tok.decode(stopped ? g.ids.slice(0, -1) : g.ids), stopped };
    });
    opts.onProgress?.(Math.min(s + opts.batchSize, order.length), order.length);
  }
  return out;
}
