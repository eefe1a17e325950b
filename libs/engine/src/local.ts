// The local engine: the project's own decoder (generateBatch) on the model object the trainer updates in place, so a
// published version is already what it samples from.
import { generateBatch, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { EngineCompletion, PolicySnapshot, RolloutEngine, SampleRequest } from './engine';

export class LocalEngine implements RolloutEngine {
  readonly name = 'local';
  private version = 0;

  constructor(
    private readonly model: Qwen2Model,
    private readonly tokenizer?: Tokenizer,
  ) {}

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
      tokenizer: this.tokenizer,
    });
    const version = this.version;
    return out.map((c) => ({ ...c, policyVersion: version }));
  }

  async publish(_snapshot: PolicySnapshot, version: number): Promise<void> {
    if (!(version > this.version)) throw new Error(`local engine: version ${version} is not after ${this.version}`);
    this.version = version;
  }

  async close(): Promise<void> {}
}
