// When and on which model a completion is generated. Admission: at most completion.maxConcurrent generations run at
// once (they take turns on this thread, one decoding step or prefill piece each); a request beyond them would wait
// past Continue's budget (375 ms, after which it keeps little of a stream), so it is answered at once with an empty
// completion (Continue shows nothing) and counted as shed (never on the simulated clock). Generation: the job's rows in one generateBatch on its
// arm's model (the served policy, whose weights the PolicyHolder swaps between decoding steps, or the frozen start
// model), with Continue's line rule ending each row and the client's going away stopping it between steps.
import { generateBatch, type Completion, type Qwen2Model } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { CompletionServerConfig, Job, JobClock, Sampling } from './completion-request';
import type { PolicyHolder } from './policy';

/** The client went away mid-stream: stop generating. */
export class Aborted extends Error {}

export class CompletionScheduler {
  private running = 0;

  constructor(
    private readonly o: {
      config: CompletionServerConfig;
      tokenizer: Tokenizer;
      policy: PolicyHolder;
      start: Qwen2Model;
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

  /** Generate all rows of a job; `onText` streams pieces; `aborted` is polled between decoding steps. */
  async run(job: Job, stops: string[], s: Sampling, onText?: (row: number, delta: string) => void, aborted?: () => boolean): Promise<Completion[]> {
    const { config, policy, clock } = this.o;
    const onPolicy = job.arm.model === 'policy';
    const model = onPolicy ? policy.model : this.o.start;
    job.steps = job.prompts.map(() => 0);
    job.simMs = job.prompts.map(() => clock.simAt(job, 0));
    // stopWhen runs once per row per decoding step (after the row's token is sampled, before its text streams).
    const stopWhen = (row: number, text: string) => {
      const steps = ++job.steps[row];
      if (clock.simulated) job.simMs[row] = clock.simAt(job, steps);
      // A held suggestion reaches Continue only after the gate: its lines count as arriving that much later.
      return job.prompts[row].rule?.cut(text, clock.elapsed(job, steps) + (job.held ? this.o.judgeMs() : 0)) ?? null;
    };
    const go = () =>
      generateBatch(
        model,
        job.prompts.map((p) => p.ids),
        {
          maxNewTokens: job.maxTokens,
          minNewTokens: job.minTokens,
          temperature: s.temperature, // 0: greedy
          // A held choice's candidates: the first as asked, the others hotter (at Continue's 0.01 they would be copies).
          temperatures: job.per > 1 ? job.prompts.map((_, r) => (r % job.per === 0 ? s.temperature : Math.max(s.temperature, job.alternativeTemperature))) : undefined,
          topP: s.topP,
          seed: s.seed,
          tokenizer: this.o.tokenizer,
          stop: 'fim',
          stopStrings: stops,
          prefillChunk: config.prefillChunk,
          modelLogprobs: true, // the model's confidence in what it suggests: a feature of the show gate
          stopWhen,
          onText,
          beforeStep: async () => {
            if (aborted?.()) throw new Aborted();
            if (onPolicy) await policy.beforeStep();
            job.versions.push(onPolicy ? policy.version : 0);
          },
        },
      );
    return onPolicy ? policy.run(go) : go();
  }
}
