// Samples from an SFT checkpoint for reward-model data (prep rm --sft-model).
import { initBackend, shutdownBackend, type WeightDtype } from '@rlhf-code/backend';
import { generateBatch, openCheckpoint, type Checkpoint } from '@rlhf-code/model';
import { encodePrompt, type PromptTemplate } from '@rlhf-code/tokenizer';
import { DEFAULT_SAMPLE_BATCH } from './settings';

export interface CheckpointSampling {
  /** A checkpoint folder, or one its flag checked (checkpointAt). */
  modelDir: string | Checkpoint<'causal-lm'>;
  prompts: string[];
  /** Samples per prompt. */
  samples: number;
  maxNewTokens: number;
  temperature: number;
  template: PromptTemplate;
  seed: number;
  /** Prompts sampled together: one left-padded batch of batchSize x samples sequences (default 8). */
  batchSize?: number;
  /** How the checkpoint holds its matrices while sampling (default fp32). */
  baseDtype?: WeightDtype;
}

/**
 * `samples` continuations of each prompt, as text, from the checkpoint in `modelDir` (loaded and disposed here): top_k 0,
 * top_p 1, the given temperature, stopping at the end token. generateBatch's seeding rule: every sample has its own
 * stream, seeded from `seed` in order.
 */
export async function sampleFromCheckpoint(o: CheckpointSampling, onPrompt?: (done: number) => void): Promise<string[][]> {
  await initBackend({ quiet: true });
  const { model, tokenizer: tok } = await openCheckpoint(o.modelDir, { trainable: false, baseDtype: o.baseDtype });
  try {
    const rows = o.prompts.flatMap((p) => new Array<number[]>(o.samples).fill(encodePrompt(tok, p, o.template))); // each prompt's samples together
    const done = await generateBatch(model, rows, {
      maxNewTokens: o.maxNewTokens,
      temperature: o.temperature,
      topK: 0,
      topP: 1,
      seed: o.seed,
      tokenizer: tok,
      stop: o.template,
      batchSize: (o.batchSize ?? DEFAULT_SAMPLE_BATCH) * o.samples,
      onBatch: (indices) => onPrompt?.((indices[indices.length - 1] + 1) / o.samples), // a batch holds whole prompts
    });
    return o.prompts.map((_, k) => done.slice(k * o.samples, (k + 1) * o.samples).map((c) => c.text));
  } finally {
    model.dispose();
    await shutdownBackend();
  }
}
