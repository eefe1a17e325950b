// Samples from an SFT checkpoint for reward-model data (prep rm --sft-model). Imported lazily by main.ts.
import { generate, Qwen2Model } from '@rlhf-code/model';
import { initBackend, shutdownBackend } from '@rlhf-code/backend';
import { encodePrompt, loadTokenizer, stopTokenIds, type PromptTemplate } from '@rlhf-code/tokenizer';
import type { BackendChoice } from '@rlhf-code/backend';
import { yieldToEventLoop } from '@rlhf-code/train';

export interface SampleOptions {
  modelDir: string;
  prompts: string[];
  /** Samples per prompt. */
  samples: number;
  maxNewTokens: number;
  temperature: number;
  template: PromptTemplate;
  seed: number;
  backend?: BackendChoice;
}

/** Prompts generated together: one batch of PROMPTS_PER_BATCH x samples sequences (left-padded). */
const PROMPTS_PER_BATCH = 8;

/** `samples` continuations of each prompt (top_k 0, top_p 1, the given temperature), stopping at the end token. */
export async function sampleResponses(o: SampleOptions, onPrompt?: (done: number) => void): Promise<string[][]> {
  await initBackend({ backend: o.backend, quiet: true });
  const model = await Qwen2Model.load(o.modelDir, { trainable: false });
  try {
    const tok = loadTokenizer(o.modelDir);
    const out: string[][] = [];
    for (let start = 0; start < o.prompts.length; start += PROMPTS_PER_BATCH) {
      const prompts = o.prompts.slice(start, start + PROMPTS_PER_BATCH).map((p) => encodePrompt(tok, p, o.template));
      const gens = await generate(model, prompts.flatMap((ids) => Array.from({ length: o.samples }, () => ids)), {
        maxNewTokens: o.maxNewTokens,
        temperature: o.temperature,
        topK: 0,
        topP: 1,
        seed: o.seed * 100_003 + start, // one stream per batch of prompts: the same flags give the same samples
        padId: tok.padId,
        stopTokenIds: stopTokenIds(tok, o.template),
        decode: (t) => tok.decode(t),
      });
      prompts.forEach((_, k) => out.push(gens.slice(k * o.samples, (k + 1) * o.samples).map((g) => g.text)));
      onPrompt?.(out.length);
      await yieldToEventLoop(); // lets the progress bar draw
    }
    return out;
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}
