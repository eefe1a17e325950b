// Who served what, and how it was received: per policy version and per A/B arm,
//   requests   completions served                        silent      blank answers (nothing to show)
//   shown      outcomes Continue posted (it posts one only for a suggestion it displayed): accepted + rejected
//   no_outcome served, not blank, no outcome (yet): Continue dropped it (aborted, filtered, superseded) or its
//              outcome is still to come (rejections arrive after 10 s)
// and the rates Cursor reported for its Tab model: suggestion rate = shown / requests, acceptance rate of shown
// suggestions = accepted / shown (with its Wilson 95% interval), accepted per request = accepted / requests.
//
// Continue's outcomes carry Continue's own completionId, not ours, so an outcome is matched to the completion it is
// about by its prompt: the most recent completion served for exactly that prompt, or, when the user typed through
// part of a suggestion (Continue then reuses it without a request and reports the new prompt), a completion served
// for the same suffix whose prefix, extended by the start of its text, is the outcome's prefix. An outcome that
// matches nothing counts as `unmatched`, never as the policy's.
// Versions count policy-arm completions only; the start arm is always the frozen starting model.
import { createHash } from 'crypto';
import { wilson } from '@rlhf-code/stats';
import { formatRepoHeader, parseFim } from '@rlhf-code/tokenizer';
import type { Arm, LoggedEvent, ServedRef } from './feedback-log';

/** One served completion (one choice of a response), as written to <stateDir>/requests.jsonl. */
export interface ServedRecord {
  id: string;
  version: number;
  arm: Arm;
  /** sha256 of the prompt text (the key outcomes are matched by; the prompt itself is not kept on disk). */
  promptHash: string;
  /** Every version that produced a token of it (more than one when weights were swapped mid-generation). */
  versions: number[];
  /** The answer was blank: nothing for Continue to show. (Older logs have `shown` = not blank instead.) */
  blank: boolean;
  /** stop | length | abort (the client went away; the text is what it had received). */
  finishReason: string;
  /** The model ended the text with its own end token (not a stop string, the line rule, max_tokens or an abort). */
  endedByModel: boolean;
  promptTokens: number;
  completionTokens: number;
  time: string;
}

export interface Counts {
  requests: number;
  silent: number;
  shown: number;
  accepted: number;
  rejected: number;
}

export interface CountsWithRates extends Counts {
  no_outcome: number;
  suggestion_rate: number | null;
  acceptance_rate: number | null;
  /** Wilson score 95% interval of acceptance_rate; null without outcomes. */
  acceptance_ci95: [number, number] | null;
  accepted_per_request: number | null;
}

export const hashPrompt = (prompt: string): string => createHash('sha256').update(prompt, 'utf8').digest('hex');

const zero = (): Counts => ({ requests: 0, silent: 0, shown: 0, accepted: 0, rejected: 0 });
const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function withRates(c: Counts): CountsWithRates {
  return {
    ...c,
    no_outcome: Math.max(0, c.requests - c.silent - c.shown),
    suggestion_rate: ratio(c.shown, c.requests),
    acceptance_rate: ratio(c.accepted, c.shown),
    acceptance_ci95: wilson(c.accepted, c.shown),
    accepted_per_request: ratio(c.accepted, c.requests),
  };
}

/** What the matcher remembers of a served completion (in memory only: the prompt is the user's code). */
interface Remembered {
  ref: ServedRef;
  text: string;
  endedByModel: boolean;
  /** FIM prefix and the context key (repository header + suffix); null for a plain-text prompt. */
  prefix: string | null;
  context: string | null;
}

/** The prompt's FIM prefix and its context key, or nulls (plain text or malformed). */
function fimKey(prompt: string): { prefix: string | null; context: string | null } {
  try {
    const parts = parseFim(prompt);
    if (!parts) return { prefix: null, context: null };
    return { prefix: parts.prefix, context: (parts.repo ? formatRepoHeader(parts.repo) : '') + '\u0000' + parts.suffix };
  } catch {
    return { prefix: null, context: null };
  }
}

export class OnlineStats {
  private readonly byVersion = new Map<string, Counts>();
  private readonly byArm: Record<Arm, Counts> = { policy: zero(), start: zero() };
  private unmatched = 0;
  private readonly byPrompt = new Map<string, Remembered>();
  private readonly byContext = new Map<string, Remembered[]>();

  /** How many served completions are remembered for matching outcomes (oldest forgotten first). */
  constructor(private readonly maxRemembered = 5_000) {}

  private version(key: string): Counts {
    let c = this.byVersion.get(key);
    if (!c) this.byVersion.set(key, (c = zero()));
    return c;
  }

  private countsOf(arm: Arm, version: number | string): Counts[] {
    return arm === 'policy' ? [this.byArm.policy, this.version(String(version))] : [this.byArm.start];
  }

  /** Count a served completion (from requests.jsonl on a restart, or live). */
  recordServed(r: ServedRecord & { shown?: boolean }): void {
    const blank = r.blank ?? r.shown === false;
    for (const c of this.countsOf(r.arm, r.version)) {
      c.requests += 1;
      if (blank) c.silent += 1;
    }
  }

  /** Remember a live completion for matching its outcome: its prompt and text stay in memory only. */
  remember(r: ServedRecord, prompt: string, text: string): void {
    const entry: Remembered = { ref: { id: r.id, version: r.version, arm: r.arm }, text, endedByModel: r.endedByModel, ...fimKey(prompt) };
    this.byPrompt.delete(r.promptHash); // re-insert: Map order is the eviction order
    this.byPrompt.set(r.promptHash, entry);
    if (entry.context !== null) {
      const list = this.byContext.get(entry.context) ?? [];
      list.unshift(entry); // newest first
      this.byContext.set(entry.context, list.slice(0, 16));
    }
    if (this.byPrompt.size > this.maxRemembered) {
      const [oldestKey, oldest] = this.byPrompt.entries().next().value!;
      this.byPrompt.delete(oldestKey);
      if (oldest.context !== null) {
        const list = this.byContext.get(oldest.context)?.filter((e) => e !== oldest) ?? [];
        if (list.length > 0) this.byContext.set(oldest.context, list);
        else this.byContext.delete(oldest.context);
      }
    }
  }

  /**
   * The served completion an outcome is about, or null. `eos` says whether the displayed completion is all of the
   * rest of the served text and the model ended it itself (only then is its end token part of what the user judged).
   */
  match(prompt: string, displayed: string): ServedRef | null {
    const ref = (e: Remembered, typed: number): ServedRef => {
      const rest = e.text.slice(typed);
      return { ...e.ref, typed, eos: e.endedByModel && displayed.trimEnd() === rest.trimEnd() && (displayed !== '' || rest === '') };
    };
    const exact = this.byPrompt.get(hashPrompt(prompt));
    if (exact) return ref(exact, 0);
    const { prefix, context } = fimKey(prompt);
    if (prefix === null || context === null) return null;
    for (const e of this.byContext.get(context) ?? []) {
      if (e.prefix === null || !prefix.startsWith(e.prefix)) continue;
      const typed = prefix.slice(e.prefix.length);
      if (typed.length > 0 && e.text.startsWith(typed)) return ref(e, typed.length);
    }
    return null;
  }

  /** Count a client's outcome (server-recorded silent samples are not outcomes: they are counted as requests). */
  recordOutcome(e: LoggedEvent): void {
    if (e.source !== 'continue') return;
    if (!e.served) {
      this.unmatched += 1;
      return;
    }
    for (const c of this.countsOf(e.served.arm, e.served.version)) {
      c.shown += 1;
      if (e.outcome.accepted) c.accepted += 1;
      else c.rejected += 1;
    }
  }

  /** Outcomes that matched no served completion (not counted in any version or arm). */
  get unmatchedOutcomes(): number {
    return this.unmatched;
  }

  acceptanceByVersion(): Record<string, CountsWithRates> {
    const keys = [...this.byVersion.keys()].sort((a, b) => Number(a) - Number(b));
    return Object.fromEntries(keys.map((k) => [k, withRates(this.byVersion.get(k)!)]));
  }

  acceptanceByArm(): Record<Arm, CountsWithRates> {
    return { policy: withRates(this.byArm.policy), start: withRates(this.byArm.start) };
  }
}
