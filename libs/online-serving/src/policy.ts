// The served policy: one model whose weights the trainer replaces while completions keep streaming.
//
// The trainer publishes new weights (a host copy) with publish(). They are written into the served model's
// variables at a decoding-step boundary: immediately when no generation is running, otherwise at the next call of
// beforeStep(), which every generation passes to generate() as its hook. All variables are assigned in one
// synchronous block, so no decoding step ever sees half old and half new weights, and the version number changes
// in the same block. A generation that spans a swap continues with the new weights (its KV cache holds keys and
// values of the old ones, a small and short-lived mismatch for small learning rates); it reports the version of
// every step, so the response says which versions produced it.
import type { HostTensor, Qwen2Model } from '@rlhf-code/model';

export class PolicyHolder {
  private pending: { weights: Map<string, HostTensor>; version: number } | null = null;
  private active = 0;
  private current: number;
  private latest: number;

  constructor(
    readonly model: Qwen2Model,
    version = 0,
  ) {
    this.current = version;
    this.latest = version;
  }

  /** Version of the weights in the model right now. */
  get version(): number {
    return this.current;
  }

  /** Version that will be served once published weights are applied (== version when nothing is pending). */
  get latestVersion(): number {
    return this.latest;
  }

  /** Generations running now. */
  get activeGenerations(): number {
    return this.active;
  }

  /**
   * Queue new weights (keyed by Hugging Face names, as Qwen2Model.hostWeights returns) and return their version.
   * Weights published while an earlier set is still pending replace it (only the newest matters).
   */
  publish(weights: Map<string, HostTensor>): number {
    this.latest += 1;
    this.pending = { weights, version: this.latest };
    if (this.active === 0) this.applyPending();
    return this.latest;
  }

  /** The generate() hook: swap in pending weights between decoding steps. */
  readonly beforeStep = async (): Promise<void> => {
    this.applyPending();
  };

  /** Run a generation: pending weights are applied first, and later ones wait for a step boundary. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.applyPending();
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      if (this.active === 0) this.applyPending();
    }
  }

  private applyPending(): void {
    if (!this.pending) return;
    const { weights, version } = this.pending;
    this.pending = null;
    this.model.assignWeights(weights); // synchronous: no decoding step can interleave
    this.current = version;
  }
}
