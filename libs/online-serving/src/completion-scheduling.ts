// When and on which model a completion is generated. Admission: at most completion.maxConcurrent generations run at
// once (they take turns by decoding step on the generator's thread); a request beyond them would wait past Continue's
// budget (375 ms, after which it keeps little of a stream), so it is answered at once with an empty completion
// (Continue shows nothing) and counted as shed (never on the simulated clock). Generation: the rows of the gate's plan
// in one generation on the request's arm's model (generation.ts: the served policy, whose weights are swapped between
// decoding steps, or the frozen start model), with Continue's line rule ending each row and the client's going away
// stopping it. What it generated comes back as the result (texts, the version of each decoding step, arrival times);
// the pieces stream to `onText` as they are decoded.
import type { CompletionServerConfig, Sampling, ServingClock, ServingRequest } from './completion-request';
import type { GatePlan } from './completion-gating';
import type { GenerationResult, Generator, TextEvent } from './generation';

export { Aborted } from './generation';

export class CompletionScheduler {
  private running = 0;

  constructor(
    private readonly o: {
      config: CompletionServerConfig;
      generator: Generator;
      clock: ServingClock;
    },
  ) {}

  /** Generations running now. */
  get active(): number {
    return this.running;
  }

  /**
   * Take a generation slot (true), or refuse (false: every slot is taken; the request is to be shed). On the simulated
   * clock every request is served: a measurement must not depend on how fast the machine is.
   */
  admit(): boolean {
    if (this.running >= this.o.config.maxConcurrent && !this.o.clock.simulated) return false;
    this.running += 1;
    return true;
  }

  /** Give back the slot `admit` took. */
  release(): void {
    this.running -= 1;
  }

  /**
   * Generate every row of the plan; `onText` gets each piece as it is decoded (with the version of the step that made
   * it); `signal` stops it between decoding steps (it then rejects with Aborted).
   */
  run(r: ServingRequest, plan: GatePlan, stops: string[], s: Sampling, onText?: (e: TextEvent) => void, signal?: AbortSignal): Promise<GenerationResult> {
    return this.o.generator.generate(
      {
        model: r.arm.model,
        rows: plan.rows.map((p) => ({ ids: p.ids, line: p.line })),
        maxNewTokens: r.maxTokens,
        minNewTokens: r.minTokens,
        trainedMinNewTokens: r.trainedMinTokens,
        temperature: s.temperature, // 0: greedy
        // A held choice's candidates: the first as asked, the others hotter (at Continue's 0.01 they would be copies).
        temperatures: plan.per > 1 ? plan.rows.map((_, row) => (row % plan.per === 0 ? s.temperature : Math.max(s.temperature, plan.alternativeTemperature))) : undefined,
        topP: s.topP,
        seed: s.seed,
        stopStrings: stops,
        t0: r.t0,
        // A held suggestion reaches Continue only after the gate: its lines count as arriving that much later.
        delayMs: plan.delayMs,
        serving: { clock: this.o.config.clock, simulatedLatency: this.o.config.simulatedLatency, prefillChunk: this.o.config.prefillChunk },
        cacheKey: r.cacheKey,
      },
      (e) => onText?.(e),
      signal,
    );
  }
}
