// Who served what, and how it was received: per policy version and per A/B arm,
//   requests   completions served                        silent      blank answers (nothing to show)
//   shown      outcomes Continue posted (it posts one only for a suggestion it displayed): accepted + rejected
//   no_outcome served, not blank, no outcome (yet): Continue dropped it (aborted, filtered, superseded) or its
//              outcome is still to come (rejections arrive after 10 s)
// and the rates Cursor reported for its Tab model: suggestion rate = shown / requests, acceptance rate of shown
// suggestions = accepted / shown (with its Wilson 95% interval), accepted per request = accepted / requests.
//
// An outcome is matched to the completion it is about by ServedIndex (served-index.ts); one that matches nothing
// counts as `unmatched`, never as the policy's. Upstream Continue's dev-data events are counted apart too (see
// UpstreamCounts): an outcome posted at level noCode has no prompt, so it is matched to nothing and is not `unmatched`.
// Versions count the completions of arms the policy serves; the start model's arms are always the frozen starting model.
import { withRates, zeroCounts, type Counts, type CountsWithRates } from '@rlhf-code/continue';
import { defaultArms, modelOfArm, type Arm, type ArmSpec, type ServedRecord, type UpstreamCounts } from '@rlhf-code/online-core';
import type { LoggedEvent } from './feedback-log';

/** Distinct ignored event names kept apart; later names (and odd ones) count under OTHER_EVENTS. */
const MAX_EVENT_NAMES = 32;
const OTHER_EVENTS = '(other)';
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export class AcceptanceCounts {
  private readonly byVersion = new Map<string, Counts>();
  private readonly byArm = new Map<Arm, Counts>();
  private unmatched = 0;
  private readonly upstream = { autocomplete: 0, no_code: 0 };
  private readonly ignoredEvents = new Map<string, number>();

  private version(key: string): Counts {
    let c = this.byVersion.get(key);
    if (!c) this.byVersion.set(key, (c = zeroCounts()));
    return c;
  }

  /**
   * `arms`: the configured arms, listed (with zeros) from the start, and which model serves each; an arm of another
   * configuration (an older log) counts under its own name, by version unless it is named "start".
   */
  constructor(private readonly arms: readonly Pick<ArmSpec, 'name' | 'model'>[] = defaultArms(0)) {
    for (const a of arms) this.byArm.set(a.name, zeroCounts());
  }

  private countsOf(arm: Arm, version: number | string): Counts[] {
    let c = this.byArm.get(arm);
    if (!c) this.byArm.set(arm, (c = zeroCounts()));
    return modelOfArm(this.arms, arm) === 'policy' ? [c, this.version(String(version))] : [c];
  }

  /** Count a served completion (from requests.jsonl on a restart, or live). */
  recordServed(r: ServedRecord & { shown?: boolean }): void {
    const blank = r.blank ?? r.shown === false;
    for (const c of this.countsOf(r.arm, r.version)) {
      c.requests += 1;
      if (blank) c.silent += 1;
    }
  }

  /** Count a client's outcome (server-recorded silent samples are not outcomes: they are counted as requests). */
  recordOutcome(e: LoggedEvent): void {
    if (e.source !== 'continue') return;
    if (e.via === 'devData') this.upstream[e.skip === 'noCode' ? 'no_code' : 'autocomplete'] += 1;
    if (e.skip === 'noCode') return; // no prompt: about no known completion, and no accept rate to credit
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

  /** Count a dev-data event of another type than autocomplete (not stored). */
  recordIgnoredEvent(name: string): void {
    const known = this.ignoredEvents;
    const key = EVENT_NAME.test(name) && (known.has(name) || known.size < MAX_EVENT_NAMES) ? name : OTHER_EVENTS;
    known.set(key, (known.get(key) ?? 0) + 1);
  }

  upstreamCounts(): UpstreamCounts {
    return { ...this.upstream, ignored_events: Object.fromEntries(this.ignoredEvents) };
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
    return Object.fromEntries([...this.byArm].map(([arm, c]) => [arm, withRates(c)]));
  }
}
