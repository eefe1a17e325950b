// Where the completion server's suggestions are decoded. The server (completion-scheduling.ts) hands a generation to a
// Generator as plain data (a GenerationRequest) and gets its text back as it is decoded; the models live behind it:
//   LocalGenerator   the models in this thread (tests, and inside the generation thread)
//   GenerationThread the models in a worker thread of their own (generation-thread.ts): what the service runs, so that
//                    no decoding step holds up a feedback acknowledgement or a status call on the HTTP thread
// Both decode with generateBatch on the request's model (the served policy, whose weights the PolicyHolder swaps between
// decoding steps, or the frozen start model), with Continue's line rule ending each row where Continue would (its clock:
// the wall clock from the request's arrival, or the latency model's), and stop between steps when the request's signal
// is aborted (the client went away). A request of one row with a cache key (its user and file) decodes from the KV
// cache of that key's previous prompt on the same model, prefilling only what follows the token prefix they share
// (@rlhf-code/model prefix-cache.ts: one cache for both models, completion.prefixCacheMiB in all).
import { generateBatch, PrefixCache, type Completion, type HostTensor, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { LineRule, type LineRuleOptions } from '@rlhf-code/continue';
import { servingClock, type CompletionServerConfig } from './completion-request';
import type { PolicyHolder } from './policy';

/** The client went away mid-stream: generation stopped. */
export class Aborted extends Error {}

/** One generation: a batch of rows on one model. Plain data (it crosses to the generation thread). */
export interface GenerationRequest {
  /** 'policy': the served policy (the newest published weights); 'start': the frozen start model. */
  model: 'policy' | 'start';
  /** One per row: the prompt's token ids, and Continue's line rule for a FIM prompt (null: none). */
  rows: { ids: number[]; line: LineRuleOptions | null }[];
  maxNewTokens: number;
  minNewTokens: number;
  /** On the policy once an update has trained it (version >= 1), instead of minNewTokens; null: minNewTokens always. */
  trainedMinNewTokens: number | null;
  /** 0: greedy. */
  temperature: number;
  /** Per row, instead of `temperature` (a held choice's candidates). */
  temperatures?: number[];
  topP: number;
  seed: number | string;
  stopStrings: string[];
  /** Date.now() when the request arrived: the line rule's wall clock. */
  t0: number;
  /** Added to each row's elapsed time for the line rule: how long the gate takes to judge a held suggestion. */
  delayMs: number;
  /** The server's clock of the line rule (completion.clock and its latency model) and its prefill piece size. */
  serving: Pick<CompletionServerConfig, 'clock' | 'simulatedLatency' | 'prefillChunk'>;
  /** Whose prompt a request of one row is (its user and file: the prefix cache's key); null: no prefix cache. */
  cacheKey: string | null;
}

/** A piece of a row's text, as decoded (before it is sent). */
export interface TextEvent {
  row: number;
  delta: string;
  /** The policy version of the step that produced it (0 on the start model). */
  version: number;
  /** On the simulated clock, the ms after the request at which it counts as arriving; else null. */
  simMs: number | null;
}

export interface GenerationResult {
  /** With a prefix cache, each carries cachedTokens: its prompt's first positions not prefilled again. */
  completions: Completion[];
  /** The version of each decoding step, in order (0 on the start model). */
  versions: number[];
  /** Per row, the simulated ms its last text counts as arriving (null on the wall clock). */
  simMs: (number | null)[];
}

/** The served model as it is now (tests and diagnostics; host copies). */
export interface ServedModelSnapshot {
  lora: Qwen2Model['lora'];
  activeAdapter: string | null;
  /** Every weight of the base (Hugging Face names). */
  host: Map<string, HostTensor>;
  /** What trains (the adapter with LoRA, else every weight). */
  trainable: Map<string, HostTensor>;
}

export interface Generator {
  /** The policy version of the weights decoding now (as far as this thread knows). */
  readonly version: number;
  /** The version of the newest published weights. */
  readonly latestVersion: number;
  /** The tokens prompt and completion may use in the model (its max_position_embeddings). */
  readonly modelWindow: number;
  /** New weights for the policy (swapped in between decoding steps); returns their version. */
  publish(weights: Map<string, HostTensor>): number;
  generate(request: GenerationRequest, onText?: (e: TextEvent) => void, signal?: AbortSignal): Promise<GenerationResult>;
  servedModel(): Promise<ServedModelSnapshot>;
  close(): Promise<void>;
}

/**
 * What every generator decodes a request with, whatever its decoder: the request's sampling settings, and Continue's
 * line rule on each row on the server's clock. `stopWhen` (for the decoder: called once per row per decoding step,
 * after the row's token is sampled and before its text streams) ends a row where Continue would; `simMs` holds each
 * row's simulated arrival time so far (null on the wall clock). `servedVersion` is the policy version that decodes
 * (0 for the start model): a trained policy may end first (silence, an action RL teaches it); the start model and v0
 * keep the server's minimum.
 */
export function requestSampling(req: GenerationRequest, servedVersion: number) {
  const clock = servingClock(req.serving);
  const timed = { t0: req.t0, prompts: req.rows };
  const rules = req.rows.map((r) => r.line && new LineRule(r.line));
  const steps = req.rows.map(() => 0);
  const simMs = req.rows.map(() => (clock.simulated ? clock.simAt(timed, 0) : null));
  const stopWhen = (row: number, text: string) => {
    const done = ++steps[row];
    if (clock.simulated) simMs[row] = clock.simAt(timed, done);
    return rules[row]?.cut(text, clock.elapsed(timed, done) + req.delayMs) ?? null;
  };
  const trained = req.model === 'policy' && servedVersion > 0;
  const sampling = {
    maxNewTokens: req.maxNewTokens,
    minNewTokens: trained && req.trainedMinNewTokens !== null ? req.trainedMinNewTokens : req.minNewTokens,
    temperature: req.temperature,
    temperatures: req.temperatures,
    topP: req.topP,
    seed: req.seed,
    stopStrings: req.stopStrings,
    stopWhen,
  };
  return { sampling, simMs };
}

/** The prefix cache's key of a request: its model, user and file, for a request of one row; else null. */
export function cacheKeyOf(req: GenerationRequest): string | null {
  return req.cacheKey !== null && req.rows.length === 1 ? `${req.model}:${req.cacheKey}` : null;
}

/** The models in this thread; the start model is never trained (A/B control). */
export class LocalGenerator implements Generator {
  readonly modelWindow: number;
  /** The keys and values of each cache key's last prompt on each model (null: no prefix cache). */
  private readonly prefixCache: PrefixCache | null;

  /** `owned`: the models close() disposes; `prefixCacheBytes`: the prefix cache's budget (0 or absent: none). */
  constructor(private readonly o: { policy: PolicyHolder; start: Qwen2Model; tokenizer: Tokenizer; owned?: Qwen2Model[]; prefixCacheBytes?: number }) {
    this.modelWindow = o.policy.model.config.max_position_embeddings;
    this.prefixCache = o.prefixCacheBytes ? new PrefixCache({ maxBytes: o.prefixCacheBytes }) : null;
  }

  get version(): number {
    return this.o.policy.version;
  }

  get latestVersion(): number {
    return this.o.policy.latestVersion;
  }

  publish(weights: Map<string, HostTensor>): number {
    return this.o.policy.publish(weights);
  }

  async generate(req: GenerationRequest, onText?: (e: TextEvent) => void, signal?: AbortSignal): Promise<GenerationResult> {
    const { policy } = this.o;
    const onPolicy = req.model === 'policy';
    const model = onPolicy ? policy.model : this.o.start;
    const { sampling, simMs } = requestSampling(req, onPolicy ? policy.version : 0);
    const versions: number[] = [];
    const key = cacheKeyOf(req);
    const prefixCache = this.prefixCache && key !== null ? { cache: this.prefixCache, keys: [key] } : undefined;
    const go = () =>
      generateBatch(
        model,
        req.rows.map((r) => r.ids),
        {
          ...sampling,
          tokenizer: this.o.tokenizer,
          stop: 'fim',
          prefillChunk: req.serving.prefillChunk,
          prefixCache,
          modelLogprobs: true, // the model's confidence in what it suggests: a feature of the show gate
          onText: onText && ((row, delta) => onText({ row, delta, version: versions[versions.length - 1] ?? 0, simMs: simMs[row] })),
          beforeStep: async () => {
            if (signal?.aborted) throw new Aborted();
            if (onPolicy) await policy.beforeStep();
            versions.push(onPolicy ? policy.version : 0);
          },
        },
      );
    const completions = await (onPolicy ? policy.run(go) : go());
    return { completions, versions, simMs };
  }

  async servedModel(): Promise<ServedModelSnapshot> {
    const m = this.o.policy.model;
    return { lora: m.lora, activeAdapter: m.activeAdapter, host: m.hostWeights(), trainable: m.trainableWeights() };
  }

  async close(): Promise<void> {
    this.prefixCache?.dispose();
    for (const m of this.o.owned ?? []) m.dispose();
  }
}
