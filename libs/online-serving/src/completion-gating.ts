// The show gate's part in serving (@rlhf-code/online-gate decides; this file applies it to a request). A held request
// is a FIM request of an arm with gate mechanisms (libs/online-core arms.ts) while the gate is active: its suggestions are held until
// complete and sent whole (so Continue sees every line arrive at that moment), judged unless the arm only holds; when
// the arm ranks, each choice becomes the gate's `candidates().n` rows of the decoding batch (the first as asked, the
// others hotter). A hidden choice becomes an empty completion that says so (gated). What is judged and recorded is what
// Continue will display: cut by its line rule at the moment the suggestion arrives.
// Both steps return what they decide (plan: how the request is held and its decoding batch; judge: one completion per
// choice and when it arrives); the only state here is the gate's own, how long its last verdicts took.
import { sampledIds, type Completion } from '@rlhf-code/model';
import { quantile } from '@rlhf-code/stats';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import { wholeCut, type LineRuleOptions } from '@rlhf-code/continue';
import { holds, type GateInput } from '@rlhf-code/online-core';
import { stepsOf, type ChoicePrompt, type CompletionServerConfig, type ServingClock, type ServingRequest } from './completion-request';

/** A finished suggestion the gate judges; `id` is the completion id its outcome will carry. */
export type GateChoice = GateInput & { id: string };

/** What the completion server asks of the show gate. */
export interface ServingGate {
  active(): boolean;
  candidates(): { n: number; temperature: number };
  choose(groups: GateChoice[][], how: { rank: boolean; hide: boolean }): Promise<(number | null)[]>;
}

/** How a request is served with respect to the gate, decided before it is generated. */
export interface GatePlan {
  /** Held for the gate: sent whole once judged (so Continue sees every line arrive at that moment). */
  readonly held: boolean;
  /** Rows of the decoding batch per choice: the gate's candidates when the arm ranks, else 1. */
  readonly per: number;
  /** The lowest temperature of a choice's candidates after its first. */
  readonly alternativeTemperature: number;
  /** How long the gate is expected to take: a held suggestion's lines count as arriving that much later (0: not held). */
  readonly delayMs: number;
  /** The decoding batch: each choice's prompt, `per` times. */
  readonly rows: readonly ChoicePrompt[];
}

/** The gate's verdict on a held request: one completion per choice, and when they arrive. */
export interface Judged {
  completions: (Completion & { gated?: boolean })[];
  /** On the simulated clock, the ms after the request at which every choice arrives (its chunks' `sim_ms`); else 0. */
  arrivalMs: number;
}

/** The completion id of choice i of a request (the request's id when it has one choice). */
export const choiceId = (r: ServingRequest, i: number) => (r.prompts.length > 1 ? `${r.id}-${i}` : r.id);

export class CompletionGating {
  /** The last 32 verdicts' durations (ms). */
  private readonly judgeTimes: number[] = [];

  constructor(
    private readonly o: { config: CompletionServerConfig; tokenizer: Tokenizer; clock: ServingClock; gate?: ServingGate },
  ) {}

  /** Held when the request's arm has gate mechanisms and the gate is active; a ranking arm's choices become candidates. */
  plan(r: ServingRequest): GatePlan {
    const gate = this.o.gate;
    const held = holds(r.arm) && gate?.active() === true && r.prompts.every((p) => p.line !== null);
    const c = held && r.arm.rank ? gate!.candidates() : { n: 1, temperature: 0 };
    const per = Math.max(1, c.n);
    return {
      held,
      per,
      alternativeTemperature: c.temperature,
      delayMs: held ? this.judgeMs() : 0,
      rows: per > 1 ? r.prompts.flatMap((p) => Array.from({ length: per }, () => p)) : r.prompts,
    };
  }

  /**
   * How long the gate takes to judge: the latency model's judgeMs on the simulated clock; else the 90th percentile of
   * its last 32 verdicts (the project's one quantile rule; 50 ms before the first).
   */
  readonly judgeMs = (): number => {
    if (this.o.clock.simulated) return this.o.config.simulatedLatency.judgeMs;
    return quantile(this.judgeTimes, 0.9) ?? 50;
  };

  /** A held choice as Continue will show it when it arrives whole `elapsedMs` after the request (line-rule.ts wholeCut). */
  private heldCut(line: LineRuleOptions, g: Completion, elapsedMs: number): Completion {
    const tok = this.o.tokenizer;
    const cut = wholeCut(g.text, line, elapsedMs);
    if (cut === g.text.length) return g;
    const text = g.text.slice(0, cut);
    // Cut by the line rule, not ended by the model; the model's log-probs of the generated tokens that make up the text.
    let kept = 0;
    while (kept < g.ids.length && tok.decode(g.ids.slice(0, kept + 1)).length <= text.length) kept++;
    return { ...g, text, ids: tok.encode(text), stopId: null, finishReason: 'stop', modelLogprobs: g.modelLogprobs?.slice(0, kept) };
  }

  /**
   * The gate's choice among each choice's finished candidates (`gens`, one per row of the plan), judged as Continue will
   * display them (cut to the first line when they will arrive past the line rule's deadline); a hidden choice becomes an
   * empty completion that says so. An arm that only holds is not judged: each choice is cut as it arrives. On the
   * simulated clock every choice arrives at the end of decoding + judgeMs.
   */
  async judge(r: ServingRequest, plan: GatePlan, gens: Completion[]): Promise<Judged> {
    const { clock } = this.o;
    const started = Date.now();
    const k = plan.per;
    const arrival = clock.simulated ? clock.simAt(r, stepsOf(gens)) + this.judgeMs() : null;
    const arrivalMs = arrival ?? 0;
    const lineOf = (row: number) => plan.rows[row].line!; // held: every prompt is a FIM prompt
    if (!r.arm.rank && !r.arm.hide) return { completions: gens.map((g, i) => this.heldCut(lineOf(i), g, arrival ?? Date.now() - r.t0)), arrivalMs };
    const cut = gens.map((g, i) => this.heldCut(lineOf(i), g, arrival ?? started - r.t0 + this.judgeMs()));
    const groups = Array.from({ length: cut.length / k }, (_, c) =>
      cut.slice(c * k, (c + 1) * k).map((g, j) => ({
        id: choiceId(r, c), prompt: plan.rows[c * k + j].text, text: g.text, tokens: sampledIds(g).length, endedByModel: g.stopId !== null, logprobs: g.modelLogprobs ?? [],
      })),
    );
    const picked = await this.o.gate!.choose(groups, { rank: r.arm.rank, hide: r.arm.hide });
    this.judgeTimes.push(Date.now() - started);
    if (this.judgeTimes.length > 32) this.judgeTimes.shift();
    const rows = picked.map((j, c) => c * k + (j ?? 0));
    // A verdict slower than expected: cut again at the real time (what Continue shows is what is recorded).
    const completions = rows.map((row, c) =>
      picked[c] !== null || cut[row].text.trim() === '' ? this.heldCut(r.prompts[c].line!, cut[row], arrival ?? Date.now() - r.t0) : { ...cut[row], text: '', gated: true },
    );
    return { completions, arrivalMs };
  }
}
