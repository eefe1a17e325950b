// The durable, append-only feedback log: no event is lost, none is trained on twice.
//
// One JSON object per line in <stateDir>/feedback.jsonl:
//   {"type":"event","seq":7,"received":"2025-...","source":"continue","via":"devData","project":"p","served":{...}|null,
//    "skip":null,"outcome":{...}}
//   {"type":"consumed","seqs":[3,4,5,7],"version":2}                  an update that produced policy version 2
//   {"type":"consumed","seqs":[8,9],"version":null,"discarded":"nan"}  an update thrown away (NaN/Inf, KL bound)
// Every append is written and fsynced before the caller goes on (the feedback server answers 200 only after),
// so a crash loses nothing that was acknowledged. Appends are written in order, grouped: the lines that arrive while
// one write and fsync are under way go to disk together in the next (one fsync for many acknowledgements under load).
//
// Memory is bounded whatever the backlog: the log keeps a few numbers per event (its place in the file, its state)
// and the full records of at most `memoryEvents` pending events; the others are read back from the file when an
// update reaches them (outcomes can arrive far faster than updates consume them: they wait on disk, none dropped).
//
// On open the log is replayed: events without a consumed line are pending again. Updates after the newest saved
// checkpoint died with the process, so a consumed line whose version is newer than the checkpoint the service
// restarts from does not count: its events are trained again. A torn last line (a crash in the middle of a write,
// never acknowledged) is dropped with a warning; a bad line anywhere else is an error naming file:line.
import * as fsSync from 'fs';
import { promises as fs } from 'fs';
import type { FileHandle } from 'fs/promises';
import * as path from 'path';
import type { AutocompleteOutcome, NoCodeOutcome } from '@rlhf-code/continue';
import type { Arm } from '@rlhf-code/online-core';

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

/** What the log keeps of an event: where its line is, and what became of it. */
interface EventPlace {
  offset: number;
  bytes: number;
  state: 'pending' | 'skipped' | 'trained' | 'discarded';
}

/** Full records of pending events kept in memory (the rest are read from the file when needed). */
const MEMORY_EVENTS = 1024;

export class FeedbackLog {
  /** Every event by seq, in order (seqs only grow). */
  private readonly places = new Map<number, EventPlace>();
  /** Pending seqs, oldest first. */
  private readonly pendingSeqs: number[] = [];
  /** Full records of some pending events (at most memoryEvents). */
  private readonly kept = new Map<number, TrainableEvent>();
  private readonly ids = new Set<string>();
  private readonly tally = { received: 0, trained: 0, discarded: 0, skipped: 0, pending: 0 };
  private nextSeq = 1;
  private duplicates = 0;
  /** Bytes in the file (the offset of the next line). */
  private size = 0;
  private queue: { line: string; resolve: () => void; reject: (e: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  private readFd: number | null = null;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly memoryEvents: number,
  ) {}

  /**
   * Open (creating if needed) and replay the log; `restartVersion` is the policy version the service resumes from.
   * `memoryEvents`: full records of pending events kept in memory (default 1024).
   */
  static async open(file: string, restartVersion = 0, opts: { memoryEvents?: number } = {}): Promise<FeedbackLog> {
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
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // after the last newline
    const handle = await fs.open(file, 'a');
    const log = new FeedbackLog(file, handle, opts.memoryEvents ?? MEMORY_EVENTS);
    lines.forEach((line, i) => {
      const bytes = Buffer.byteLength(line, 'utf8') + 1;
      if (line.trim() !== '') log.replay(line, i + 1, restartVersion, bytes);
      log.size += bytes;
    });
    return log;
  }

  private replay(line: string, lineNo: number, restartVersion: number, bytes: number): void {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`${this.file}:${lineNo}: not valid JSON (${(e as Error).message})`);
    }
    const entry = v as LoggedEvent | ConsumedLine;
    if (entry?.type === 'event' && Number.isInteger(entry.seq)) {
      this.place(entry, this.size, bytes);
      this.nextSeq = Math.max(this.nextSeq, entry.seq + 1);
    } else if (entry?.type === 'consumed' && Array.isArray(entry.seqs)) {
      if (entry.version !== null && entry.version > restartVersion) return; // trained into weights that were not saved
      this.consume(entry.seqs, entry.version === null ? 'discarded' : 'trained');
    } else {
      throw new Error(`${this.file}:${lineNo}: expected an "event" or "consumed" line`);
    }
  }

  /** Count a stored event and remember where it is (its full record too while few pending ones are kept). */
  private place(e: LoggedEvent, offset: number, bytes: number): void {
    const trainable = e.skip === null && hasCode(e);
    this.places.set(e.seq, { offset, bytes, state: trainable ? 'pending' : 'skipped' });
    if (e.outcome.completionId) this.ids.add(e.outcome.completionId);
    this.tally.received++;
    if (!trainable) {
      this.tally.skipped++;
      return;
    }
    this.tally.pending++;
    this.pendingSeqs.push(e.seq);
    if (this.kept.size < this.memoryEvents) this.kept.set(e.seq, e as TrainableEvent);
  }

  /** Events used by an update (a consumed line); a skipped event stays skipped in the counts unless trained. */
  private consume(seqs: readonly number[], how: 'trained' | 'discarded'): void {
    const done = new Set<number>();
    for (const s of seqs) {
      const p = this.places.get(s);
      if (!p || p.state === 'trained' || p.state === 'discarded') continue;
      this.tally[p.state]--;
      this.tally[how]++;
      if (p.state === 'pending') done.add(s);
      p.state = how;
      this.kept.delete(s);
    }
    if (done.size > 0) {
      let w = 0;
      for (const s of this.pendingSeqs) if (!done.has(s)) this.pendingSeqs[w++] = s;
      this.pendingSeqs.length = w;
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
    let at: { offset: number; bytes: number };
    try {
      at = await this.append(event);
    } catch (err) {
      if (id !== undefined) this.ids.delete(id);
      throw err;
    }
    this.place(event, at.offset, at.bytes);
    return { seq: event.seq, duplicate: false };
  }

  /** Record that an update used these events; `version` null = the update was discarded. */
  async markConsumed(seqs: number[], version: number | null, discarded?: string): Promise<void> {
    const line: ConsumedLine = { type: 'consumed', seqs, version, ...(discarded ? { discarded } : {}) };
    await this.append(line);
    this.consume(seqs, version === null ? 'discarded' : 'trained');
  }

  /** The oldest `limit` events to train on (default all), oldest first (never one without code, whatever its skip says). */
  pending(limit = Infinity): TrainableEvent[] {
    return this.pendingSeqs.slice(0, Math.min(limit, this.pendingSeqs.length)).map((s) => this.kept.get(s) ?? this.readEvent(s));
  }

  /** Every stored event, oldest first (for statistics; read from the file). */
  all(): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    for (const s of this.places.keys()) out.push(this.readEvent(s));
    return out;
  }

  counts(): LogCounts {
    return { ...this.tally, duplicates: this.duplicates };
  }

  /** Wait for every write, then close the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    if (this.readFd !== null) fsSync.closeSync(this.readFd);
    await this.handle.close();
  }

  /** An event's line, read back from the file. */
  private readEvent(seq: number): TrainableEvent {
    const p = this.places.get(seq)!;
    this.readFd ??= fsSync.openSync(this.file, 'r');
    const buf = Buffer.alloc(p.bytes);
    fsSync.readSync(this.readFd, buf, 0, p.bytes, p.offset);
    const e = JSON.parse(buf.toString('utf8')) as TrainableEvent;
    if (e.seq !== seq) throw new Error(`${this.file}: event ${seq} is not where the log put it (offset ${p.offset})`);
    return e;
  }

  /** Queue a line; resolves once it is written and fsynced, with where it is in the file. */
  private append(entry: object): Promise<{ offset: number; bytes: number }> {
    if (this.closed) return Promise.reject(new Error(`${this.file}: the feedback log is closed`));
    const line = JSON.stringify(entry) + '\n';
    const at = { offset: this.size, bytes: Buffer.byteLength(line, 'utf8') };
    this.size += at.bytes;
    const written = new Promise<void>((resolve, reject) => this.queue.push({ line, resolve, reject }));
    this.flushing ??= this.flush();
    return written.then(() => at);
  }

  /** Write and fsync what is queued, one group at a time, until nothing is. */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        await this.handle.appendFile(group.map((g) => g.line).join(''), 'utf8');
        await this.handle.sync();
        for (const g of group) g.resolve();
      } catch (e) {
        for (const g of group) g.reject(e as Error);
        // What reached the file is unknown: place the next lines after whatever is there.
        this.size = (await this.handle.stat().catch(() => null))?.size ?? this.size;
      }
    }
    this.flushing = null;
  }
}
