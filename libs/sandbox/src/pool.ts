// SandboxPool: at most `concurrency` python runs at a time (test runs and interpreter calls alike) (the machine's cores are shared with
// training), queued first come, first served. Test runs that queue up are batched: when a slot frees and the next in
// line is a test run, the slot takes it and the test runs queued right behind it, up to `batchSize`, and runs them in
// one python process (runPythonBatch: a fork per run instead of a python start). A run that finds a slot free starts
// at once, alone. Callers see no difference: every run gets its own result, as runPython's.
import type { SandboxOptions } from './options';
import { runPython, runPythonBatch, type ExecResult, type PythonJob } from './run';

interface QueuedRun {
  kind: 'run';
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

  constructor(opts: SandboxOptions & { concurrency?: number; batchSize?: number } = {}) {
    const { concurrency = 2, batchSize = 16, ...rest } = opts;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`SandboxPool: concurrency must be a positive integer, got ${concurrency}`);
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`SandboxPool: batchSize must be a positive integer, got ${batchSize}`);
    this.concurrency = concurrency;
    this.batchSize = batchSize;
    this.opts = rest;
  }

  /** Number of slots in use (a batch holds one) / runs and callers waiting for a slot. */
  get running(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length;
  }

  run(code: string, tests: readonly string[], setup?: string): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      const queued: QueuedRun = { kind: 'run', job: { code, tests, setup }, resolve, reject };
      if (this.active < this.concurrency) {
        this.active++;
        void this.runBatch([queued]);
      } else {
        this.waiting.push(queued);
      }
    });
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
    if (!next) {
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
