// Batched greedy completion of token-id prompts (the base-model figures: FIM middles and function bodies).
import { generate, Qwen2Model } from '@rlhf-code/model';
import { Tokenizer } from '@rlhf-code/tokenizer';
import { yieldToEventLoop } from '@rlhf-code/train';

export interface GreedyOptions {
  maxNewTokens: number;
  batchSize: number;
  /** Ids that end a completion (not part of its text). */
  stopIds: number[];
  onProgress?: (done: number, total: number) => void;
}

/**
 * Greedy continuation of each prompt, `batchSize` at a time with left padding. Prompts of similar length go in one
 * batch (less padding, i.e. wasted compute); the results come back in input order. `stopped`: ended by a stop id
 * (else cut at maxNewTokens); `text` excludes the stop id.
 */
export async function greedyComplete(
  model: Qwen2Model,
  tok: Tokenizer,
  prompts: readonly (readonly number[])[],
  opts: GreedyOptions,
): Promise<{ text: string; stopped: boolean }[]> {
  const order = prompts.map((_, i) => i).sort((a, b) => prompts[a].length - prompts[b].length);
  const out: { text: string; stopped: boolean }[] = new Array(prompts.length);
  for (let s = 0; s < order.length; s += opts.batchSize) {
    const batch = order.slice(s, s + opts.batchSize);
    const gens = await generate(
      model,
      batch.map((i) => prompts[i].slice()),
      { maxNewTokens: opts.maxNewTokens, greedy: true, padId: tok.padId, stopTokenIds: opts.stopIds, beforeStep: yieldToEventLoop },
    );
    gens.forEach((g, k) => {
      const stopped = g.finishReason === 'stop';
      out[batch[k]] = { text: tok.decode(stopped ? g.ids.slice(0, -1) : g.ids), stopped };
    });
    opts.onProgress?.(Math.min(s + opts.batchSize, order.length), order.length);
  }
  return out;
}
