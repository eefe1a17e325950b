// The time series of an online run, for the live page (live-page.ts) and GET /api/training/history: built from what
// the service records anyway, in memory and bounded.
//
//   requests   one row per served completion (requests.jsonl, replayed on a restart, then live): its arm, policy
//              version, blank or hidden by the gate, answer time (`durationMs`; older records have none), and the
//              outcomes Continue posted about it (the feedback log's events, joined by the served completion's id)
//   gate       per row of a policy arm, the show gate's verdict (judged and shown, explored, hidden) and whether it
//              was active with which threshold; verdicts other than `hidden` (which requests.jsonl keeps as `gated`)
//              are known only since the process started, like the status' gate counts
//   updates    one entry per update (metrics.jsonl, replayed, then live)
//
// `series(n)` cuts the rows into windows of n consecutive requests: per A/B arm (each arm's own requests) the
// acceptance of shown suggestions with its Wilson 95% interval, Cursor's utility per request with a normal 95%
// interval, and the answer time p50 / p95; over the policy arms' requests, the gate's verdicts; the points where a new
// policy version was first served; the updates. Memory: the newest MAX_ROWS rows and MAX_UPDATES updates (older ones
// are dropped; request numbers stay those of requests.jsonl, counted from the first line).
import { meanSe, quantile, wilson } from '@rlhf-code/stats';
import { UTILITY, type Arm, type ServedRecord } from '@rlhf-code/online-core';
import type { LoggedEvent } from '@rlhf-code/online-feedback';
import type { GateDecision } from '@rlhf-code/online-gate';

/** Rows (served completions) kept in memory. */
export const MAX_ROWS = 20_000;
/** Updates kept in memory. */
export const MAX_UPDATES = 2_000;
/** Windows per series at most: a smaller window asked for is widened to this many. */
export const MAX_WINDOWS = 200;

/** The gate's verdict on a suggestion: judged and shown (above the threshold), shown although below it, hidden. */
export type GateVerdict = 'shown' | 'explored' | 'hidden';

interface Row {
  /** Request number: its line in requests.jsonl, from 1. */
  at: number;
  time: number;
  arm: Arm;
  version: number;
  blank: boolean;
  /** Answer time in ms (null: not recorded, or the client aborted). */
  ms: number | null;
  accepted: number;
  rejected: number;
  gate: GateVerdict | null;
  gateActive: boolean | null;
  threshold: number | null;
}

/** An update as metrics.jsonl has it (the fields the page uses). */
export interface UpdatePoint {
  step: number;
  policy_version: number;
  time: string | null;
  loss: number | null;
  kl: number | null;
  reward_mean: number | null;
  clipfrac: number | null;
  grad_norm: number | null;
  events: number | null;
  accepted: number | null;
  rejected: number | null;
  silent: number | null;
  /** Why the update was thrown away (nan, kl, ...), or null: it produced `policy_version`. */
  discarded: string | null;
}

/** One window of an arm's consecutive requests. */
export interface ArmWindow {
  /** Request numbers of its first and last request. */
  from: number;
  to: number;
  /** Time of its last request (ISO). */
  time: string;
  requests: number;
  silent: number;
  shown: number;
  accepted: number;
  rejected: number;
  /** accepted / shown and its Wilson 95% interval (null without outcomes). */
  acceptance_rate: number | null;
  acceptance_ci95: [number, number] | null;
  /** Cursor's utility per request (+0.75 accepted, -0.25 shown and rejected, 0 otherwise), mean +- 1.96 SE. */
  utility_per_request: number;
  utility_ci95: [number, number] | null;
  /** Answer times in ms of its requests that have one: how many, median, 95th percentile. */
  latency_n: number;
  latency_ms_p50: number | null;
  latency_ms_p95: number | null;
}

/** One window of the policy arms' consecutive requests, as the show gate saw them. */
export interface GateWindow {
  from: number;
  to: number;
  time: string;
  requests: number;
  /** Suggestions the gate judged: shown (above the threshold) + explored + hidden. */
  judged: number;
  hidden: number;
  explored: number;
  /** Active at the window's last request, and its threshold then (null: not known, e.g. replayed rows). */
  active: boolean | null;
  threshold: number | null;
}

export interface HistorySeries {
  /** Requests per window (the one asked for, widened so that no series has more than MAX_WINDOWS windows). */
  window: number;
  /** Requests served in all (requests.jsonl's lines) and the first one still in memory. */
  requests_total: number;
  first_request: number;
  arms: Record<Arm, ArmWindow[]>;
  gate: GateWindow[];
  /** Where each policy version was first served (request number and time), the first one in memory included. */
  versions: { version: number; at: number; time: string }[];
  updates: UpdatePoint[];
}

const iso = (t: number) => (Number.isFinite(t) ? new Date(t).toISOString() : '');
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** A latency percentile as the page shows answer times: whole milliseconds. */
const wholeMs = (x: number | null) => (x === null ? null : Math.round(x));

const utilityOf = (r: Row) => UTILITY.accepted * r.accepted + UTILITY.rejected * r.rejected;

function armWindow(rows: readonly Row[]): ArmWindow {
  const last = rows[rows.length - 1];
  let silent = 0;
  let accepted = 0;
  let rejected = 0;
  for (const r of rows) {
    if (r.blank) silent += 1;
    accepted += r.accepted;
    rejected += r.rejected;
  }
  const shown = accepted + rejected;
  const u = meanSe(rows.map(utilityOf));
  const ms = rows.flatMap((r) => (r.ms === null ? [] : [r.ms]));
  return {
    from: rows[0].at,
    to: last.at,
    time: iso(last.time),
    requests: rows.length,
    silent,
    shown,
    accepted,
    rejected,
    acceptance_rate: shown > 0 ? accepted / shown : null,
    acceptance_ci95: wilson(accepted, shown),
    utility_per_request: u.mean,
    utility_ci95: u.se === null ? null : [u.mean - 1.96 * u.se, u.mean + 1.96 * u.se],
    latency_n: ms.length,
    latency_ms_p50: wholeMs(quantile(ms, 0.5)),
    latency_ms_p95: wholeMs(quantile(ms, 0.95)),
  };
}

function gateWindow(rows: readonly Row[]): GateWindow {
  const last = rows[rows.length - 1];
  const count = (v: GateVerdict) => rows.filter((r) => r.gate === v).length;
  const hidden = count('hidden');
  const explored = count('explored');
  return {
    from: rows[0].at,
    to: last.at,
    time: iso(last.time),
    requests: rows.length,
    judged: count('shown') + explored + hidden,
    hidden,
    explored,
    active: last.gateActive,
    threshold: last.threshold,
  };
}

/** Consecutive chunks of `n` (the last one may be shorter). */
function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

export class RunHistory {
  private rows: Row[] = [];
  private readonly byId = new Map<string, Row>();
  private readonly ids: string[] = [];
  /** Gate verdicts of suggestions about to be recorded as served (their record follows the verdict). */
  private readonly verdicts = new Map<string, GateVerdict>();
  private updates: UpdatePoint[] = [];
  private served = 0;
  /** Bumped by every change: the live page renders its charts again only when it moved. */
  revision = 0;

  /**
   * `modelOf`: which model serves an arm (the gate and the policy versions concern the policy's arms only).
   * `maxRows` / `maxUpdates`: what is kept in memory.
   */
  constructor(
    private readonly modelOf: (arm: Arm) => 'policy' | 'start',
    private readonly maxRows = MAX_ROWS,
    private readonly maxUpdates = MAX_UPDATES,
  ) {}

  /** The gate's decision on a suggestion about to be served (libs/online service.ts choose()). */
  noteGate(id: string, d: Pick<GateDecision, 'show' | 'explored'>): void {
    this.verdicts.set(id, d.explored ? 'explored' : d.show ? 'shown' : 'hidden');
    if (this.verdicts.size > 1000) this.verdicts.delete(this.verdicts.keys().next().value!);
  }

  /** A served completion (replayed from requests.jsonl, or live with the gate's state at that moment). */
  recordServed(rec: ServedRecord & { shown?: boolean }, gate: { active: boolean; threshold: number | null } | null = null): void {
    const verdict = this.verdicts.get(rec.id) ?? (rec.gated ? 'hidden' : null);
    this.verdicts.delete(rec.id);
    const row: Row = {
      at: ++this.served,
      time: Date.parse(rec.time),
      arm: rec.arm,
      version: rec.version,
      blank: rec.blank ?? rec.shown === false,
      ms: rec.finishReason === 'abort' ? null : num(rec.durationMs),
      accepted: 0,
      rejected: 0,
      gate: verdict,
      gateActive: gate?.active ?? null,
      threshold: gate?.threshold ?? null,
    };
    this.rows.push(row);
    this.byId.set(rec.id, row);
    this.ids.push(rec.id);
    if (this.rows.length > this.maxRows + this.maxRows / 10) {
      // Drop the oldest in one go (amortised: not one shift per request).
      const drop = this.rows.length - this.maxRows;
      this.rows = this.rows.slice(drop);
      for (const id of this.ids.splice(0, drop)) this.byId.delete(id);
    }
    this.revision += 1;
  }

  /** A client's outcome, counted for the completion it is about (as the status counts it: libs/online-feedback acceptance-counts.ts). */
  recordOutcome(e: LoggedEvent): void {
    if (e.source !== 'continue' || e.skip === 'noCode' || !e.served) return;
    const row = this.byId.get(e.served.id);
    if (!row) return; // served before the rows in memory
    if (e.outcome.accepted) row.accepted += 1;
    else row.rejected += 1;
    this.revision += 1;
  }

  /** An update: a line of metrics.jsonl. */
  recordUpdate(m: Record<string, unknown>): void {
    const step = num(m.step);
    if (step === null) return;
    this.updates.push({
      step,
      policy_version: num(m.policy_version) ?? 0,
      time: typeof m.time === 'string' ? m.time : null,
      loss: num(m.loss),
      kl: num(m.kl),
      reward_mean: num(m.reward_mean),
      clipfrac: num(m.clipfrac),
      grad_norm: num(m.grad_norm),
      events: num(m.events),
      accepted: num(m.accepted),
      rejected: num(m.rejected),
      silent: num(m.silent),
      discarded: typeof m.discarded === 'string' ? m.discarded : null,
    });
    if (this.updates.length > this.maxUpdates) this.updates = this.updates.slice(-this.maxUpdates);
    this.revision += 1;
  }

  /** Requests per window when none is asked for: about 30 windows for the busiest arm, at least 10 requests each. */
  defaultWindow(): number {
    const perArm = new Map<Arm, number>();
    for (const r of this.rows) perArm.set(r.arm, (perArm.get(r.arm) ?? 0) + 1);
    return Math.max(10, Math.ceil(Math.max(0, ...perArm.values()) / 30));
  }

  /** The series in windows of `window` requests (default: defaultWindow()). */
  series(window?: number): HistorySeries {
    const n = Math.max(1, Math.floor(window ?? this.defaultWindow()), Math.ceil(this.rows.length / MAX_WINDOWS));
    const byArm = new Map<Arm, Row[]>();
    for (const r of this.rows) {
      let list = byArm.get(r.arm);
      if (!list) byArm.set(r.arm, (list = []));
      list.push(r);
    }
    const policyRows = this.rows.filter((r) => this.modelOf(r.arm) === 'policy');
    const versions: HistorySeries['versions'] = [];
    let newest = -1;
    for (const r of policyRows) {
      if (r.version <= newest) continue;
      versions.push({ version: r.version, at: r.at, time: iso(r.time) });
      newest = r.version;
    }
    return {
      window: n,
      requests_total: this.served,
      first_request: this.rows[0]?.at ?? this.served + 1,
      arms: Object.fromEntries([...byArm].map(([arm, rows]) => [arm, chunks(rows, n).map(armWindow)])),
      gate: chunks(policyRows, n).map(gateWindow),
      versions,
      updates: this.updates.slice(),
    };
  }
}
