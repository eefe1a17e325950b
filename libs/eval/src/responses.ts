// One response per problem from a causal LM: batched generation with a KV cache (left padding), greedy by default,
// stopping at the end token or after maxNewTokens.
import { createRng, generate, Qwen2Model } from '@rlhf-code/model';
import { encodePrompt, PromptTemplate, stopTokenIds, Tokenizer } from '@rlhf-code/tokenizer';
import { yieldToEventLoop } from '@rlhf-code/train';

export interface DecodingOptions {
  maxNewTokens: number;
  batchSize: number;
  /** true: always the most likely token; false: sample from softmax(logits / temperature) (top-k 0, top-p 1). */
  greedy: boolean;
  temperature: number;
  /** Seeds the sampling RNG (one stream per model, so a model's responses do not depend on the other models). */
  seed: number;
  template: PromptTemplate;
}

export interface Response {
  /** Prompt ids as fed to the model (cut from the left if the prompt + maxNewTokens exceed the context window). */
  promptIds: number[];
  /** Generated ids without the end token. */
  ids: number[];
  /** The end token the model emitted, or null when it was cut at maxNewTokens. */
  stopId: number | null;
  /** Decoded `ids`. */
  text: string;
}

/** Every generated id (what KL is measured on): the response plus the end token when the model emitted one. */
export function sampledIds(r: Response): number[] {
  return r.stopId === null ? r.ids : [...r.ids, r.stopId];
}

/**
 * Generate a response to each prompt, `batchSize` prompts at a time; `onBatch` sees each batch as soon as it is
 * done (the caller starts running its code meanwhile) with the index of its first prompt.
 */
export async function generateResponses(
  model: Qwen2Model,
  tok: Tokenizer,
  prompts: readonly string[],
  opts: DecodingOptions,
  onBatch?: (start: number, batch: Response[]) => void,
): Promise<Response[]> {
  const stops = stopTokenIds(tok, opts.template);
  const window = model.config.max_position_embeddings;
  const maxPrompt = Math.max(1, window - opts.maxNewTokens);
  const rng = opts.greedy ? undefined : createRng(opts.seed);
  const out: Response[] = [];
  for (let start = 0; start < prompts.length; start += opts.batchSize) {
    const promptIds = prompts.slice(start, start + opts.batchSize).map((p) => {
      const ids = encodePrompt(tok, p, opts.template);
      return ids.length > maxPrompt ? ids.slice(ids.length - maxPrompt) : ids;
    });
    const gens = await generate(model, promptIds, {
      maxNewTokens: opts.maxNewTokens,
      greedy: opts.greedy,
      temperature: opts.temperature,
      topK: 0,
      topP: 1,
      rng,
      padId: tok.padId,
      stopTokenIds: stops,
      // Let the event loop run between decoding steps: the sandbox's python processes report back through I/O
      // callbacks, which awaiting tfjs results alone (microtasks) never reaches, so tests would wait until the end.
      beforeStep: yieldToEventLoop,
    });
    const batch = gens.map((g, i): Response => {
      const stopped = g.finishReason === 'stop';
      const ids = stopped ? g.ids.slice(0, -1) : g.ids;
      return { promptIds: promptIds[i], ids, stopId: stopped ? g.ids[g.ids.length - 1] : null, text: tok.decode(ids) };
    });
    onBatch?.(start, batch);
    out.push(...batch);
  }
  return out;
}
