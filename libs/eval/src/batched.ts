// How the base-model figures (FIM middles, function bodies) and the syntax training data continue code: generateBatch
// with the FIM stop set (every control token ends a completion, as the online server serves), prompts of similar
// length batched together (less padding), greedy unless `sampling` (then top-k 0, top-p 1 and generateBatch's
// seeding rule, so the samples do not depend on the batch size).
import { generateBatch, Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';

export interface CompleteOptions {
  maxNewTokens: number;
  /** No end token before this many tokens (the online server's completion.minTokens); default 0. */
  minNewTokens?: number;
  batchSize: number;
  /** Sample at this temperature, from per-prompt streams seeded by `seed`, instead of greedy. */
  sampling?: { temperature: number; seed: number };
  onProgress?: (done: number, total: number) => void;
}

/** Each prompt's completion, in input order. `stopped`: ended by a stop token (else cut at maxNewTokens); `text` excludes it. */
export async function completeBatched(
  model: Qwen2Model,
  tok: Tokenizer,
  prompts: readonly (readonly number[])[],
  opts: CompleteOptions,
): Promise<{ text: string; stopped: boolean }[]> {
  const { sampling } = opts;
  let done = 0;
  const out = await generateBatch(model, prompts, {
    maxNewTokens: opts.maxNewTokens,
    minNewTokens: opts.minNewTokens,
    batchSize: opts.batchSize,
    byLength: true,
    tokenizer: tok,
    stop: 'fim',
    ...(sampling ? { temperature: sampling.temperature, topK: 0, topP: 1, seed: sampling.seed } : { greedy: true }),
    onBatch: (rows) => opts.onProgress?.((done += rows.length), prompts.length),
  });
  return out.map((c) => ({ text: c.text, stopped: c.stopId !== null }));
}
