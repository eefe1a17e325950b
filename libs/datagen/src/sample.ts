// Samples from an SFT checkpoint for reward-model data (prep rm --sft-model), decoded by the --engine it names.
import { initBackend, shutdownBackend, type WeightDtype } from '@rlhf-code/backend';
import { openEngine, type EngineSettings } from '@rlhf-code/engine';
import { openCheckpoint, type Checkpoint } from '@rlhf-code/model';
import { encodePrompt, stopTokenIds, type PromptTemplate } from '@rlhf-code/tokenizer';
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
  /** What decodes the samples (default local), with its settings (@rlhf-code/engine engineFields). */
  engine?: EngineSettings['engine'];
  engineSharedDir?: string;
  enginePathPrefix?: string;
  engineWeights?: EngineSettings['engineWeights'];
}

/**
 * `samples` continuations of each prompt, as text, from the checkpoint in `modelDir` (loaded and disposed here): top_k 0,
 * top_p 1, the given temperature, stopping at the end token. generateBatch's seeding rule (every engine follows it): every sample has its own
 * stream, seeded from `seed` in order.
 */
export async function sampleFromCheckpoint(o: CheckpointSampling, onPrompt?: (done: number) => void): Promise<string[][]> {
  await initBackend({ quiet: true });
  const { model, tokenizer: tok } = await openCheckpoint(o.modelDir, { trainable: false, baseDtype: o.baseDtype });
  const checkpointDir = typeof o.modelDir === 'string' ? o.modelDir : o.modelDir.dir;
  const engine = await openEngine({ engine: o.engine ?? 'local', engineSharedDir: o.engineSharedDir, enginePathPrefix: o.enginePathPrefix, engineWeights: o.engineWeights }, { model, tokenizer: tok, checkpointDir }).catch(async (e) => {
    model.dispose();
    await shutdownBackend();
    throw e;
  });
  try {
    const rows = o.prompts.flatMap((p) => new Array<number[]>(o.samples).fill(encodePrompt(tok, p, o.template))); // each prompt's samples together
    let sampled = 0;
    const done = await engine.sample(rows, {
      maxNewTokens: o.maxNewTokens,
      temperature: o.temperature,
      topK: 0,
      topP: 1,
      seed: o.seed,
      stopIds: stopTokenIds(tok, o.template),
      vocabSize: tok.vocabSize,
      batchSize: (o.batchSize ?? DEFAULT_SAMPLE_BATCH) * o.samples,
      onBatch: (indices) => onPrompt?.(Math.floor((sampled += indices.length) / o.samples)), // progress in prompts (the local engine: whole prompts per batch)
    });
    return o.prompts.map((_, k) => done.slice(k * o.samples, (k + 1) * o.samples).map((c) => c.text));
  } finally {
    await engine.close();
    model.dispose();
    await shutdownBackend();
  }
}
