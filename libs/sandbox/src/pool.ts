// SandboxPool: at most `concurrency` python runs at a time (test runs and interpreter calls alike) (the machine's cores are shared with
// training), queued first come, first served.
import type { SandboxOptions } from './options';
import { runPython, type ExecResult } from './run';

export class SandboxPool {
  readonly concurrency: number;
  private readonly opts: SandboxOptions;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(opts: SandboxOptions & { concurrency?: number } = {}) {
    const { concurrency = 2, ...rest } = opts;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`SandboxPool: concurrency must be a positive integer, got ${concurrency}`);
    this.concurrency = concurrency;
    this.opts = rest;
  }

  /** Number of runs in progress / waiting for a slot. */
  get running(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length;
  }

  async run(code: string, tests: readonly string[], setup?: string): Promise<ExecResult> {
    return this.withSlot(() => runPython(code, tests, { ...this.opts, setup }));
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

  private acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    // The slot is handed over directly by release(), so `active` never drops and rises again in between.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
