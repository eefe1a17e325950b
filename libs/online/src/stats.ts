// Who served what, and how it was received: per policy version and per A/B arm,
//   requests  completions served            shown     non-empty completions (the server did not stay silent)
//   accepted  accepted outcomes             rejected  rejected outcomes
// and the three rates Cursor reported for its Tab model: suggestion rate = shown / requests, acceptance rate of
// shown suggestions = accepted / shown, accepted per request = accepted / requests.
//
// Continue's outcomes carry Continue's own completionId, not ours, so an outcome is matched to the completion it is
// about by its prompt: the most recent completion served for exactly that prompt (Continue sends the prompt back).
// Versions count policy-arm completions only; the start arm is always the frozen starting model.
import { createHash } from 'crypto';
import type { Arm, LoggedEvent, ServedRef } from './feedback-log';

/** One served completion (one choice of a response), as written to <stateDir>/requests.jsonl. */
export interface ServedRecord extends ServedRef {
  /** sha256 of the prompt text (the key outcomes are matched by; the prompt itself is not kept). */
  promptHash: string;
  /** Every version that produced a token of it (more than one when weights were swapped mid-generation). */
  versions: number[];
  shown: boolean;
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  time: string;
}

export interface Counts {
  requests: number;
  shown: number;
  accepted: number;
  rejected: number;
}

export interface CountsWithRates extends Counts {
  suggestion_rate: number | null;
  acceptance_rate: number | null;
  accepted_per_request: number | null;
}

export const hashPrompt = (prompt: string): string => createHash('sha256').update(prompt, 'utf8').digest('hex');

const zero = (): Counts => ({ requests: 0, shown: 0, accepted: 0, rejected: 0 });
const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function withRates(c: Counts): CountsWithRates {
  return {
    ...c,
    suggestion_rate: ratio(c.shown, c.requests),
    acceptance_rate: ratio(c.accepted, c.shown),
    accepted_per_request: ratio(c.accepted, c.requests),
  };
}

export class OnlineStats {
  private readonly byVersion = new Map<string, Counts>();
  private readonly byArm: Record<Arm, Counts> = { policy: zero(), start: zero() };
  private readonly byPrompt = new Map<string, ServedRef>();

  /** How many prompts are remembered for matching outcomes (oldest forgotten first). */
  constructor(private readonly maxPrompts = 50_000) {}

  private version(key: string): Counts {
    let c = this.byVersion.get(key);
    if (!c) this.byVersion.set(key, (c = zero()));
    return c;
  }

  recordServed(r: ServedRecord): void {
    const counts = r.arm === 'policy' ? [this.byArm.policy, this.version(String(r.version))] : [this.byArm.start];
    for (const c of counts) {
      c.requests += 1;
      if (r.shown) c.shown += 1;
    }
    this.byPrompt.delete(r.promptHash); // re-insert: Map order is the eviction order
    this.byPrompt.set(r.promptHash, { id: r.id, version: r.version, arm: r.arm });
    if (this.byPrompt.size > this.maxPrompts) this.byPrompt.delete(this.byPrompt.keys().next().value!);
  }

  /** The completion most recently served for this prompt, if remembered. */
  lookup(prompt: string): ServedRef | null {
    return this.byPrompt.get(hashPrompt(prompt)) ?? null;
  }

  /** Count a client's outcome (server-recorded silent samples are not outcomes: they are counted as requests). */
  recordOutcome(e: LoggedEvent): void {
    if (e.source !== 'continue') return;
    const key = e.served ? String(e.served.version) : 'unknown';
    const counts = e.served?.arm === 'start' ? [this.byArm.start] : [this.byArm.policy, this.version(key)];
    for (const c of counts) {
      if (e.outcome.accepted) c.accepted += 1;
      else c.rejected += 1;
    }
  }

  acceptanceByVersion(): Record<string, CountsWithRates> {
    const keys = [...this.byVersion.keys()].sort((a, b) => (a === 'unknown' ? 1 : b === 'unknown' ? -1 : Number(a) - Number(b)));
    return Object.fromEntries(keys.map((k) => [k, withRates(this.byVersion.get(k)!)]));
  }

  acceptanceByArm(): Record<Arm, CountsWithRates> {
    return { policy: withRates(this.byArm.policy), start: withRates(this.byArm.start) };
  }
}
