// The show gate's part in serving (libs/online-gate gate.ts decides; this file applies it to a job). A held job is a FIM request of an
// arm with gate mechanisms (libs/online-core arms.ts) while the gate is active: its suggestions are held until complete and sent whole
// (so Continue sees every line arrive at that moment), judged unless the arm only holds; when the arm ranks, each
// choice becomes the gate's `candidates().n` rows of the decoding batch (the first as asked, the others hotter). A
// hidden choice becomes an empty completion that says so (gated). What is judged and recorded is what Continue will
// display: cut by its line rule at the moment the suggestion arrives.
import { sampledIds, type Completion } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { LineRule, wholeCut } from '@rlhf-code/continue';
import { holds, type GateInput } from '@rlhf-code/online-core';
import { stepsOf, type CompletionServerConfig, type Job, type JobClock } from './completion-request';

/** A finished suggestion the gate judges; `id` is the completion id its outcome will carry. */
export type GateChoice = GateInput & { id: string };

/** What the completion server asks of the show gate. */
export interface ServingGate {
  active(): boolean;
  candidates(): { n: number; temperature: number };
  choose(groups: GateChoice[][], how: { rank: boolean; hide: boolean }): Promise<(number | null)[]>;
}

/** The completion id of choice i of a job (the request's id when it has one choice). */
export const choiceId = (job: Job, i: number) => (job.prompts.length / job.per > 1 ? `${job.id}-${i}` : job.id);

export class CompletionGating {
  /** The last 32 verdicts' durations (ms). */
  private readonly judgeTimes: number[] = [];

  constructor(
    private readonly o: { config: CompletionServerConfig; tokenizer: Tokenizer; clock: JobClock; gate?: ServingGate },
  ) {}

  /** Mark a job held when its arm has gate mechanisms and the gate is active; a ranking arm's choices become candidates. */
  hold(job: Job): void {
    const gate = this.o.gate;
    job.held = holds(job.arm) && gate?.active() === true && job.prompts.every((p) => p.rule !== null);
    const c = job.held && job.arm.rank ? gate!.candidates() : { n: 1, temperature: 0 };
    job.per = Math.max(1, c.n);
    job.alternativeTemperature = c.temperature;
    if (job.per > 1) job.prompts = job.prompts.flatMap((p) => Array.from({ length: job.per }, () => ({ ...p, rule: p.line && new LineRule(p.line) })));
  }

  /** Keep row rows[c] for choice c (one row per choice from here on). */
  keepRows(job: Job, rows: number[]): void {
    job.prompts = rows.map((r) => job.prompts[r]);
    job.per = 1;
  }

  /**
   * How long the gate takes to judge: the latency model's judgeMs on the simulated clock; else the 90th percentile of
   * its last 32 verdicts (50 ms before the first).
   */
  readonly judgeMs = (): number => {
    const t = this.judgeTimes;
    if (this.o.clock.simulated) return this.o.config.simulatedLatency.judgeMs;
    return t.length === 0 ? 50 : [...t].sort((a, b) => a - b)[Math.floor(0.9 * (t.length - 1))];
  };

  /** A held choice as Continue will show it when it arrives whole `elapsedMs` after the request (line-rule.ts wholeCut). */
  private heldCut(job: Job, i: number, g: Completion, elapsedMs: number): Completion {
    const tok = this.o.tokenizer;
    const cut = wholeCut(g.text, job.prompts[i].line!, elapsedMs);
    if (cut === g.text.length) return g;
    const text = g.text.slice(0, cut);
    // Cut by the line rule, not ended by the model; the model's log-probs of the generated tokens that make up the text.
    let kept = 0;
    while (kept < g.ids.length && tok.decode(g.ids.slice(0, kept + 1)).length <= text.length) kept++;
    return { ...g, text, ids: tok.encode(text), stopId: null, finishReason: 'stop', modelLogprobs: g.modelLogprobs?.slice(0, kept) };
  }

  /**
   * The gate's choice among each choice's finished candidates, judged as Continue will display them (cut to the first
   * line when they will arrive past the line rule's deadline); a hidden choice becomes an empty completion that says so.
   * An arm that only holds is not judged: each choice is cut as it arrives. On the simulated clock every choice arrives
   * at the end of decoding + judgeMs (also its chunks' `sim_ms`).
   */
  async judge(job: Job, gens: Completion[]): Promise<(Completion & { gated?: boolean })[]> {
    const { clock } = this.o;
    const started = Date.now();
    const k = job.per;
    const arrival = clock.simulated ? clock.simAt(job, stepsOf(gens)) + this.judgeMs() : null;
    job.simMs = job.prompts.map(() => arrival ?? 0);
    if (!job.arm.rank && !job.arm.hide) return gens.map((g, i) => this.heldCut(job, i, g, arrival ?? Date.now() - job.t0));
    const cut = gens.map((g, i) => this.heldCut(job, i, g, arrival ?? started - job.t0 + this.judgeMs()));
    const groups = Array.from({ length: cut.length / k }, (_, c) =>
      cut.slice(c * k, (c + 1) * k).map((g, j) => ({
        id: choiceId(job, c), prompt: job.prompts[c * k + j].text, text: g.text, tokens: sampledIds(g).length, endedByModel: g.stopId !== null, logprobs: g.modelLogprobs ?? [],
      })),
    );
    const picked = await this.o.gate!.choose(groups, { rank: job.arm.rank, hide: job.arm.hide });
    this.judgeTimes.push(Date.now() - started);
    if (this.judgeTimes.length > 32) this.judgeTimes.shift();
    const rows = picked.map((j, c) => c * k + (j ?? 0));
    this.keepRows(job, rows);
    // A verdict slower than expected: cut again at the real time (what Continue shows is what is recorded).
    return rows.map((r, c) => (picked[c] !== null || cut[r].text.trim() === '' ? this.heldCut(job, c, cut[r], arrival ?? Date.now() - job.t0) : { ...cut[r], text: '', gated: true }));
  }
}
