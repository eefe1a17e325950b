// SandboxPool: at most `concurrency` python runs at a time (test runs and interpreter calls alike) (the machine's cores are shared with
// training), queued first come, first served. Test runs that queue up are batched: when a slot frees and the next in
// line is a test run, the slot takes it and the test runs queued right behind it, up to `batchSize`, and runs them in
// one python process (runPythonBatch: a fork per run instead of a python start). A run that finds a slot free starts
// at once, alone. Callers see no difference: every run gets its own result, as runPython's.
// A run marked `background` (e.g. an evaluation's trivial baselines, known long before they are needed) waits in a
// queue of its own, taken only when no other run or caller waits: it fills idle slots without delaying anyone.
//
// Runs are memoised: the same code, tests and setup asked again (sampled answers repeat: an evaluation's 8 samples of
// one problem are often one program) share one run, in flight or done, so long as that run was clean (no timeout,
// memory or output limit hit: those depend on the machine's load, and are run again). The `memoSize` most recent
// runs are kept; 0 turns it off (a benchmark that times the same jobs again).
import { createHash } from 'crypto';
import type { SandboxOptions } from './options';
import { runPython, runPythonBatch, type ExecResult, type PythonJob } from './run';

interface QueuedRun {
  kind: 'run';
  /** Its memo key, when it has one. */
  key?: string;
  job: PythonJob;
  resolve: (r: ExecResult) => void;
  reject: (err: unknown) => void;
}
/** A withSlot caller waiting for its slot. */
interface QueuedSlot {
  kind: 'slot';
  start: () => void;
}

export class SandboxPool {
  readonly concurrency: number;
  /** Queued test runs one slot takes as one batch (1: a python process per run, as runPython). */
  readonly batchSize: number;
  private readonly opts: SandboxOptions;
  private active = 0;
  private readonly waiting: (QueuedRun | QueuedSlot)[] = [];
  private readonly background: QueuedRun[] = [];
  /** Memo keys of the runs in `background`. */
  private readonly backgroundKeys = new Set<string>();
  /** Runs kept for reuse, keyed by a hash of (code, tests, setup), oldest first. */
  readonly memoSize: number;
  private readonly memo = new Map<string, Promise<ExecResult>>();
  /** Runs answered from the memo / run in python, since the pool was made. */
  reused = 0;
  executed = 0;

  constructor(opts: SandboxOptions & { concurrency?: number; batchSize?: number; memoSize?: number } = {}) {
    const { concurrency = 2, batchSize = 16, memoSize = 10_000, ...rest } = opts;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`SandboxPool: concurrency must be a positive integer, got ${concurrency}`);
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`SandboxPool: batchSize must be a positive integer, got ${batchSize}`);
    if (!Number.isInteger(memoSize) || memoSize < 0) throw new Error(`SandboxPool: memoSize must be a non-negative integer, got ${memoSize}`);
    this.concurrency = concurrency;
    this.batchSize = batchSize;
    this.memoSize = memoSize;
    this.opts = rest;
  }

  /** Number of slots in use (a batch holds one) / runs and callers waiting for a slot. */
  get running(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length + this.background.length;
  }

  run(code: string, tests: readonly string[], setup?: string, opts: { background?: boolean } = {}): Promise<ExecResult> {
    const background = opts.background === true;
    if (this.memoSize === 0) return this.execute(code, tests, setup, background);
    const key = createHash('sha256').update(JSON.stringify([code, tests, setup ?? null])).digest('hex');
    const known = this.memo.get(key);
    if (known) {
      this.reused++;
      if (!background) this.promote(key);
      this.memo.delete(key); // most recently used goes last
      this.memo.set(key, known);
      return known;
    }
    const run = this.execute(code, tests, setup, background, key);
    this.memo.set(key, run);
    if (this.memo.size > this.memoSize) this.memo.delete(this.memo.keys().next().value as string);
    const forget = () => {
      if (this.memo.get(key) === run) this.memo.delete(key);
    };
    run.then((r) => {
      if (r.timedOut || r.memoryExceeded || r.outputExceeded) forget();
    }, forget);
    return run;
  }

  /** One run in python (queued for a slot). */
  private execute(code: string, tests: readonly string[], setup: string | undefined, background: boolean, key?: string): Promise<ExecResult> {
    this.executed++;
    return new Promise<ExecResult>((resolve, reject) => {
      const queued: QueuedRun = { kind: 'run', key, job: { code, tests, setup }, resolve, reject };
      if (this.active < this.concurrency) {
        this.active++;
        void this.runBatch([queued]);
      } else {
        (background ? this.background : this.waiting).push(queued);
        if (background && key !== undefined) this.backgroundKeys.add(key);
      }
    });
  }

  /** A foreground caller wants a run still waiting in the background queue: it moves to the end of the main queue. */
  private promote(key: string): void {
    if (!this.backgroundKeys.delete(key)) return;
    this.waiting.push(...this.background.splice(this.background.findIndex((q) => q.key === key), 1));
  }

  /** Run `fn` (e.g. an interpreter call) once one of the pool's slots is free. */
  async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Runs `batch` in the slot it was handed, then hands the slot on. */
  private async runBatch(batch: QueuedRun[]): Promise<void> {
    try {
      const { code, tests, setup } = batch[0].job;
      const results = this.batchSize === 1 ? [await runPython(code, tests, { ...this.opts, setup })] : await runPythonBatch(batch.map((q) => q.job), this.opts);
      batch.forEach((q, i) => q.resolve(results[i]));
    } catch (err) {
      batch.forEach((q) => q.reject(err));
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    // The slot is handed over directly by release(), so `active` never drops and rises again in between.
    return new Promise((resolve) => this.waiting.push({ kind: 'slot', start: resolve }));
  }

  private release(): void {
    const next = this.waiting[0];
    if (!next && this.background.length > 0) {
      const batch = this.background.splice(0, this.batchSize);
      for (const q of batch) if (q.key !== undefined) this.backgroundKeys.delete(q.key);
      void this.runBatch(batch);
    } else if (!next) {
      this.active--;
    } else if (next.kind === 'slot') {
      this.waiting.shift();
      next.start();
    } else {
      const batch: QueuedRun[] = [];
      while (batch.length < this.batchSize && this.waiting[0]?.kind === 'run') batch.push(this.waiting.shift() as QueuedRun);
      void this.runBatch(batch);
    }
  }
}
