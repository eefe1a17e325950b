// `online serve --engine llamacpp | openai:URL`: the suggestions decoded by a rollout engine (@rlhf-code/engine)
// instead of the project's decoder. Two engines: the policy's, to which every published update goes as a new policy
// version, and the start model's (the A/B control), never published to. The served model object stays in this thread
// as the updates' landing place: publish() writes the new weights into it and hands the engine its checkpoint (the
// served LoRA adapter, or every weight) through publishPolicy, one version at a time, the newest pending one only.
//
// What differs from LocalGenerator (generation.ts), whose request and answer shapes it keeps:
//   versions        a call samples from one version from start to end (the engine's at the call's start): an update
//                   lands between calls, never between steps.
//   modelLogprobs   the engine's log-probs of its tokens (llama.cpp: under softmax(logits / T) at the served
//                   temperature, at T = 1 when greedy; generateBatch's are at T = 1 always).
//   prefix reuse    the engine's own (llama.cpp: the free sequence holding the longest prefix of the prompt).
//   streaming       llamacpp streams as it decodes; the openai engine answers each row whole.
import { isAdapterFolder, type HostTensor, type Qwen2Model } from '@rlhf-code/model';
import { openEngine, publishPolicy, type EngineSettings, type RolloutEngine } from '@rlhf-code/engine';
import { stopTokenIds, type Tokenizer } from '@rlhf-code/tokenizer';
import { Aborted, cacheKeyOf, requestSampling, type Generator, type GenerationRequest, type GenerationResult, type ServedModelSnapshot, type TextEvent } from './generation';

export interface EngineGeneratorOptions {
  /** The served copy of the policy (updates are written into it) and the frozen start model. */
  policy: Qwen2Model;
  start: Qwen2Model;
  tokenizer: Tokenizer;
  /** The start model's folder (what both engines open) and the policy's checkpoint with its version (resuming), or null. */
  startDir: string;
  policyDir: string | null;
  version: number;
  /** What close() disposes. */
  owned?: Qwen2Model[];
  /** Called when a version cannot be published (the engine keeps serving the previous one). */
  onPublishError?: (version: number, e: Error) => void;
  /** llamacpp: completion.cacheReuseTokens (the cached runs reused past a change in the prompt; 0: none). */
  cacheReuse?: number;
}

export class EngineGenerator implements Generator {
  readonly modelWindow: number;
  private latest: number;
  private pending: { weights: Map<string, HostTensor>; version: number } | null = null;
  private publishing: Promise<void> = Promise.resolve();
  private readonly stopIds: number[];

  private constructor(
    private readonly o: EngineGeneratorOptions,
    private readonly engines: { policy: RolloutEngine; start: RolloutEngine },
  ) {
    this.modelWindow = o.policy.config.max_position_embeddings;
    this.latest = o.version;
    this.stopIds = stopTokenIds(o.tokenizer, 'fim');
  }

  /** Open both engines `s.engine` names on the start model's folder, the policy's at `o.version` when resuming. */
  static async open(s: EngineSettings, o: EngineGeneratorOptions): Promise<EngineGenerator> {
    if (!o.policy.lora && s.engine.startsWith('openai:')) {
      throw new Error(`--engine ${s.engine}: online serving publishes full weights only by replacing the server's model, which also serves the start model (the A/B control); train a LoRA adapter (training.loraRank > 0)`);
    }
    const open = (model: Qwen2Model, publishes: boolean) => openEngine(s, { model, tokenizer: o.tokenizer, checkpointDir: o.startDir, publishes, cacheReuse: o.cacheReuse });
    const start = await open(o.start, false);
    let policy: RolloutEngine | null = null;
    try {
      policy = await open(o.policy, true);
      if (o.policyDir && o.version > 0) await policy.publish({ kind: isAdapterFolder(o.policyDir) ? 'adapter' : 'full', dir: o.policyDir }, o.version);
    } catch (e) {
      await Promise.all([start.close(), policy?.close()]);
      throw e;
    }
    return new EngineGenerator(o, { policy, start });
  }

  /** The version the policy's engine samples now (the start's until the first update; `o.version` when resuming). */
  get version(): number {
    return Math.max(this.engines.policy.policyVersion, this.o.version);
  }

  get latestVersion(): number {
    return this.latest;
  }

  publish(weights: Map<string, HostTensor>): number {
    this.latest += 1;
    const first = this.pending === null;
    this.pending = { weights, version: this.latest }; // only the newest pending set matters
    if (first) this.publishing = this.publishing.then(() => this.publishPending());
    return this.latest;
  }

  private async publishPending(): Promise<void> {
    const next = this.pending;
    this.pending = null;
    if (!next) return;
    this.o.policy.assignWeights(next.weights);
    try {
      await publishPolicy(this.engines.policy, this.o.policy, { version: next.version, baseModel: this.o.startDir });
    } catch (e) {
      this.o.onPublishError?.(next.version, e as Error);
    }
  }

  async generate(req: GenerationRequest, onText?: (e: TextEvent) => void, signal?: AbortSignal): Promise<GenerationResult> {
    const onPolicy = req.model === 'policy';
    const engine = onPolicy ? this.engines.policy : this.engines.start;
    const version = onPolicy ? this.version : 0;
    const { sampling, simMs } = requestSampling(req, version);
    const key = cacheKeyOf(req);
    if (signal?.aborted) throw new Aborted();
    const out = await engine.sample(
      req.rows.map((r) => r.ids),
      {
        ...sampling,
        stopIds: this.stopIds,
        vocabSize: this.o.tokenizer.vocabSize,
        onText: onText && ((row, delta) => onText({ row, delta, version, simMs: simMs[row] })),
        beforeStep: () => {
          if (signal?.aborted) throw new Aborted();
        },
        cacheKeys: key === null ? undefined : [key],
      },
    );
    const completions = out.map(({ policyVersion: _, ...c }) => ({ ...c, modelLogprobs: c.logprobs }));
    return { completions, versions: [onPolicy ? out[0]?.policyVersion ?? version : 0], simMs };
  }

  async servedModel(): Promise<ServedModelSnapshot> {
    await this.publishing;
    const m = this.o.policy;
    return { lora: m.lora, activeAdapter: m.activeAdapter, host: m.hostWeights(), trainable: m.trainableWeights() };
  }

  async close(): Promise<void> {
    await this.publishing;
    await Promise.all([this.engines.policy.close(), this.engines.start.close()]);
    for (const m of this.o.owned ?? []) m.dispose();
  }
}
