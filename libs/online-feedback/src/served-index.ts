// Which served completion an outcome is about. Continue's outcomes carry Continue's own completionId, not ours, so
// the match is by prompt: the most recent completion served for exactly that prompt, or, when the user typed through
// part of a suggestion (Continue then reuses it without a request and reports the new prompt), a completion served
// for the same suffix (and repository header) whose prefix, extended by the start of its text, is the outcome's
// prefix. The served prompts and texts are kept in memory only: they are the user's code.
import { formatRepoHeader, parseFim } from '@rlhf-code/tokenizer';
import { hashPrompt, type ServedRecord } from '@rlhf-code/online-core';
import type { ServedRef } from './feedback-log';

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

export class ServedIndex {
  private readonly byPrompt = new Map<string, Remembered>();
  private readonly byContext = new Map<string, Remembered[]>();

  /** How many served completions are remembered (oldest forgotten first). */
  constructor(private readonly maxRemembered = 5_000) {}

  /** Remember a served completion: its prompt and text stay in memory only. */
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
}
