// The local engine: the project's own decoder (generateBatch) on the model object the trainer updates in place, so a
// published version is already what it samples from. With a prefix cache budget, a prompt sampled alone under a cache
// key decodes from the KV cache of the key's earlier prompt (@rlhf-code/model prefix-cache.ts); an entry computed
// before the weights changed (a training step) is dropped, never reused.
import { generateBatch, PrefixCache, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { EngineCompletion, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';

export class LocalEngine implements RolloutEngine {
  readonly name = 'local';
  private version = 0;
  private readonly prefixCache: PrefixCache | null;

  /** `prefixCacheBytes`: keys and values the prefix cache may keep (0 or absent: none; SampleRequest.cacheKeys are then ignored). */
  constructor(
    private readonly model: Qwen2Model,
    private readonly tokenizer?: Tokenizer,
    opts: { prefixCacheBytes?: number } = {},
  ) {
    this.prefixCache = opts.prefixCacheBytes ? new PrefixCache({ maxBytes: opts.prefixCacheBytes }) : null;
  }

  get policyVersion(): number {
    return this.version;
  }

  async sample(prompts: readonly (readonly number[])[], req: SampleRequest): Promise<EngineCompletion[]> {
    const out = await generateBatch(this.model, prompts, {
      maxNewTokens: req.maxNewTokens,
      minNewTokens: req.minNewTokens,
      temperature: req.temperature,
      temperatures: req.temperatures,
      topK: req.topK,
      topP: req.topP,
      stopIds: req.stopIds,
      stopStrings: req.stopStrings,
      vocabSize: req.vocabSize,
      seed: req.seed,
      rng: req.rng,
      rngs: req.rngs,
      batchSize: req.batchSize,
      byLength: req.byLength,
      stopWhen: req.stopWhen,
      onText: req.onText,
      beforeStep: req.beforeStep,
      onBatch: req.onBatch && ((indices, done) => req.onBatch!(indices, done.map((c) => ({ ...c, policyVersion: this.version })))),
      tokenizer: this.tokenizer,
      prefixCache: this.prefixCache && req.cacheKeys ? { cache: this.prefixCache, keys: req.cacheKeys } : undefined,
    });
    const version = this.version;
    return out.map((c) => ({ ...c, policyVersion: version }));
  }

  async publish(_snapshot: PolicySnapshot, version: number): Promise<void> {
    if (!(version > this.version)) throw new Error(`local engine: version ${version} is not after ${this.version}`);
    this.version = version;
  }

  async close(): Promise<void> {
    this.prefixCache?.dispose();
  }
}
