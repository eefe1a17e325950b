// The durable, append-only feedback log: no event is lost, none is trained on twice.
//
// One JSON object per line in <stateDir>/feedback.jsonl:
//   {"type":"event","seq":7,"received":"2025-...","source":"continue","via":"devData","project":"p","served":{...}|null,
//    "skip":null,"outcome":{...}}
//   {"type":"consumed","seqs":[3,4,5,7],"version":2}                  an update that produced policy version 2
//   {"type":"consumed","seqs":[8,9],"version":null,"discarded":"nan"}  an update thrown away (NaN/Inf, KL bound)
// Every append is written and fsynced before the caller goes on (the feedback server answers 200 only after),
// so a crash loses nothing that was acknowledged. Appends are serialised through one promise chain.
//
// On open the log is replayed: events without a consumed line are pending again. Updates after the newest saved
// checkpoint died with the process, so a consumed line whose version is newer than the checkpoint the service
// restarts from does not count: its events are trained again. A torn last line (a crash in the middle of a write,
// never acknowledged) is dropped with a warning; a bad line anywhere else is an error naming file:line.
import { promises as fs } from 'fs';
import type { FileHandle } from 'fs/promises';
import * as path from 'path';
import type { AutocompleteOutcome, NoCodeOutcome } from '@rlhf-code/continue';

/** Which served completion an event is about (looked up by its prompt). */
export interface ServedRef {
  id: string;
  version: number;
  arm: Arm;
  /** Characters of the served text the user had typed before the outcome (Continue reused the suggestion). */
  typed?: number;
  /** The displayed completion is the whole rest of the served text and the model ended it with its end token. */
  eos?: boolean;
}

/** An A/B arm's name (config `arms`; by default "policy" or "start"). */
export type Arm = string;

/**
 * Why an event is never trained on: a cached suggestion, the start arm's, one that matches no served completion, or
 * one posted without its code (upstream Continue's `level: noCode`: no prompt or completion).
 */
export type SkipReason = 'cacheHit' | 'startArm' | 'unmatched' | 'noCode';

export interface LoggedEvent<O extends AutocompleteOutcome | NoCodeOutcome = AutocompleteOutcome | NoCodeOutcome> {
  type: 'event';
  seq: number;
  received: string;
  /** continue: posted by a client; server: a completion the server returned empty (stayed silent). */
  source: 'continue' | 'server';
  /**
   * How a client posted it: completionTracking = the fork's bare outcome, devData = upstream Continue's dev-data
   * event. Absent on server events and in logs written before 2026-12.
   */
  via?: 'completionTracking' | 'devData';
  /** The project it counts for (its X-Project-ID, or feedback.defaultProject); absent on server events. */
  project?: string;
  served: ServedRef | null;
  skip: SkipReason | null;
  /** The outcome; one posted at level noCode has no prompt, completion, prefix or suffix (and skip 'noCode'). */
  outcome: O;
}

/** An event with its code: the only kind an update trains on. */
export type TrainableEvent = LoggedEvent<AutocompleteOutcome>;

const hasCode = (e: LoggedEvent): e is TrainableEvent => typeof e.outcome.prompt === 'string' && typeof e.outcome.completion === 'string';

interface ConsumedLine {
  type: 'consumed';
  seqs: number[];
  version: number | null;
  discarded?: string;
}

export interface LogCounts {
  /** Events stored (duplicates excluded). */
  received: number;
  /** Events used by an update that was kept. */
  trained: number;
  /** Events used by an update that was discarded (NaN/Inf, KL bound). */
  discarded: number;
  /** Events that are never trained on (cacheHit, start arm, unmatched, noCode). */
  skipped: number;
  /** Events waiting for an update. */
  pending: number;
  /** Posts answered as duplicates of an earlier completionId. */
  duplicates: number;
}

export class FeedbackLog {
  private readonly events: LoggedEvent[] = [];
  private readonly consumed = new Map<number, 'trained' | 'discarded'>();
  private readonly ids = new Set<string>();
  private nextSeq = 1;
  private duplicates = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
  ) {}

  /** Open (creating if needed) and replay the log; `restartVersion` is the policy version the service resumes from. */
  static async open(file: string, restartVersion = 0): Promise<FeedbackLog> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    let text = '';
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const lines = text.split('\n');
    const torn = text.length > 0 && !text.endsWith('\n');
    if (torn) {
      process.stderr.write(`[online] ${file}: dropping an unfinished last line (a write interrupted by a crash)\n`);
      const good = text.slice(0, text.lastIndexOf('\n') + 1);
      await fs.writeFile(file, good); // so the next append starts on a fresh line
      lines.pop();
    }
    const handle = await fs.open(file, 'a');
    const log = new FeedbackLog(file, handle);
    lines.forEach((line, i) => {
      if (line.trim() !== '') log.replay(line, i + 1, restartVersion);
    });
    return log;
  }

  private replay(line: string, lineNo: number, restartVersion: number): void {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`${this.file}:${lineNo}: not valid JSON (${(e as Error).message})`);
    }
    const entry = v as LoggedEvent | ConsumedLine;
    if (entry?.type === 'event' && Number.isInteger(entry.seq)) {
      this.events.push(entry);
      if (entry.outcome.completionId) this.ids.add(entry.outcome.completionId);
      this.nextSeq = Math.max(this.nextSeq, entry.seq + 1);
    } else if (entry?.type === 'consumed' && Array.isArray(entry.seqs)) {
      if (entry.version !== null && entry.version > restartVersion) return; // trained into weights that were not saved
      for (const s of entry.seqs) this.consumed.set(s, entry.version === null ? 'discarded' : 'trained');
    } else {
      throw new Error(`${this.file}:${lineNo}: expected an "event" or "consumed" line`);
    }
  }

  /**
   * Store an event durably. A completionId seen before is not stored again: the answer says duplicate.
   * Resolves after the line is on disk.
   */
  async addEvent(e: Omit<LoggedEvent, 'type' | 'seq'>): Promise<{ seq: number; duplicate: boolean }> {
    const id = e.outcome.completionId;
    if (id !== undefined && this.ids.has(id)) {
      this.duplicates += 1;
      return { seq: -1, duplicate: true };
    }
    if (id !== undefined) this.ids.add(id); // before the await: a concurrent duplicate is caught too
    const event: LoggedEvent = { type: 'event', seq: this.nextSeq++, ...e };
    try {
      await this.append(event);
    } catch (err) {
      if (id !== undefined) this.ids.delete(id);
      throw err;
    }
    this.events.push(event);
    return { seq: event.seq, duplicate: false };
  }

  /** Record that an update used these events; `version` null = the update was discarded. */
  async markConsumed(seqs: number[], version: number | null, discarded?: string): Promise<void> {
    const line: ConsumedLine = { type: 'consumed', seqs, version, ...(discarded ? { discarded } : {}) };
    await this.append(line);
    for (const s of seqs) this.consumed.set(s, version === null ? 'discarded' : 'trained');
  }

  /** Events to train on, oldest first (never one without code, whatever its skip says). */
  pending(): TrainableEvent[] {
    return this.events.filter((e): e is TrainableEvent => e.skip === null && hasCode(e) && !this.consumed.has(e.seq));
  }

  /** Every stored event, oldest first (for statistics). */
  all(): readonly LoggedEvent[] {
    return this.events;
  }

  counts(): LogCounts {
    let trained = 0;
    let discarded = 0;
    let skipped = 0;
    for (const e of this.events) {
      const c = this.consumed.get(e.seq);
      if (c === 'trained') trained++;
      else if (c === 'discarded') discarded++;
      else if (e.skip !== null || !hasCode(e)) skipped++;
    }
    const received = this.events.length;
    return { received, trained, discarded, skipped, pending: received - trained - discarded - skipped, duplicates: this.duplicates };
  }

  /** Wait for every write, then close the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain.catch(() => undefined);
    await this.handle.close();
  }

  private append(entry: object): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.file}: the feedback log is closed`));
    const line = JSON.stringify(entry) + '\n';
    const write = this.chain.then(async () => {
      await this.handle.appendFile(line, 'utf8');
      await this.handle.sync();
    });
    this.chain = write.catch(() => undefined); // one failed write must not block later ones
    return write;
  }
}
