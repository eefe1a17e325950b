// When and on which model a completion is generated. Admission: at most completion.maxConcurrent generations run at
// once (they take turns by decoding step on the generator's thread); a request beyond them would wait past Continue's
// budget (375 ms, after which it keeps little of a stream), so it is answered at once with an empty completion
// (Continue shows nothing) and counted as shed (never on the simulated clock). Generation: the job's rows in one
// generation on its arm's model (generation.ts: the served policy, whose weights are swapped between decoding steps, or
// the frozen start model), with Continue's line rule ending each row and the client's going away stopping it.
import type { Completion } from '@rlhf-code/model';
import type { CompletionServerConfig, Job, JobClock, Sampling } from './completion-request';
import type { Generator } from './generation';

export { Aborted } from './generation';

export class CompletionScheduler {
  private running = 0;

  constructor(
    private readonly o: {
      config: CompletionServerConfig;
      generator: Generator;
      clock: JobClock;
      /** How long the gate takes to judge a held suggestion (its lines count as arriving that much later). */
      judgeMs: () => number;
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
   * Generate all rows of a job; `onText` streams pieces (job.versions and job.simMs are current when it is called);
   * `signal` stops it between decoding steps (it then rejects with Aborted).
   */
  async run(job: Job, stops: string[], s: Sampling, onText?: (row: number, delta: string) => void, signal?: AbortSignal): Promise<Completion[]> {
    job.simMs = job.prompts.map(() => this.o.clock.simAt(job, 0));
    const r = await this.o.generator.generate(
      {
        model: job.arm.model,
        rows: job.prompts.map((p) => ({ ids: p.ids, line: p.line })),
        maxNewTokens: job.maxTokens,
        minNewTokens: job.minTokens,
        trainedMinNewTokens: job.trainedMinTokens,
        temperature: s.temperature, // 0: greedy
        // A held choice's candidates: the first as asked, the others hotter (at Continue's 0.01 they would be copies).
        temperatures: job.per > 1 ? job.prompts.map((_, r) => (r % job.per === 0 ? s.temperature : Math.max(s.temperature, job.alternativeTemperature))) : undefined,
        topP: s.topP,
        seed: s.seed,
        stopStrings: stops,
        t0: job.t0,
        // A held suggestion reaches Continue only after the gate: its lines count as arriving that much later.
        delayMs: job.held ? this.o.judgeMs() : 0,
        serving: { clock: this.o.config.clock, simulatedLatency: this.o.config.simulatedLatency, prefillChunk: this.o.config.prefillChunk },
      },
      (e) => {
        if (job.versions[job.versions.length - 1] !== e.version) job.versions.push(e.version);
        if (e.simMs !== null) job.simMs[e.row] = e.simMs;
        onText?.(e.row, e.delta);
      },
      signal,
    );
    job.versions = r.versions;
    r.simMs.forEach((ms, row) => ms !== null && (job.simMs[row] = ms));
    return r.completions;
  }
}
