// Samples from an SFT checkpoint for reward-model data (prep rm --sft-model). Imported lazily by main.ts.
import { generate, initBackend, Qwen2Model, shutdownBackend } from '@rlhf-code/model';
import { encodePrompt, loadTokenizer, stopTokenIds, type PromptTemplate } from '@rlhf-code/tokenizer';
import type { BackendChoice } from '@rlhf-code/model';

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

/** `samples` continuations of each prompt (top_k 0, top_p 1, the given temperature), stopping at the end token. */
export async function sampleResponses(o: SampleOptions, onPrompt?: (done: number) => void): Promise<string[][]> {
  await initBackend({ backend: o.backend, quiet: true });
  const model = await Qwen2Model.load(o.modelDir, { trainable: false });
  try {
    const tok = loadTokenizer(o.modelDir);
    const out: string[][] = [];
    for (const [i, prompt] of o.prompts.entries()) {
      const ids = encodePrompt(tok, prompt, o.template);
      const gens = await generate(model, Array.from({ length: o.samples }, () => ids), {
        maxNewTokens: o.maxNewTokens,
        temperature: o.temperature,
        topK: 0,
        topP: 1,
        seed: o.seed * 100_003 + i, // one stream per prompt: rerunning a subset gives the same samples
        padId: tok.padId,
        stopTokenIds: stopTokenIds(tok, o.template),
        decode: (t) => tok.decode(t),
      });
      out.push(gens.map((g) => g.text));
      onPrompt?.(i + 1);
    }
    return out;
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}
