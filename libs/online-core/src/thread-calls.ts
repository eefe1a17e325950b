// Requests to a worker thread as promises, and the worker's side of it: the HTTP thread of the online service hands
// its computations (generation: libs/online-serving generation-thread.ts; an update: libs/online-learning
// training-thread.ts; a refit of the show gate: libs/online-gate gate-fit-thread.ts) to threads of their own, so that no acknowledgement or status call waits for them.
//   to the worker     {id, ...request}
//   from the worker   {id, ok: true, value} | {id, ok: false, error}; before any: {op: 'ready'} or {op: 'failed', error}
//                     while a call runs: {id, event} (what it streams: a generation's text), any number
// The worker answers one request at a time, in the order they came, or (serveCalls' `concurrent`) each as it comes,
// so that requests interleave (generations taking turns by decoding step, an abort reaching the one it stops). If the
// thread dies, every call after that fails with its error.
import * as path from 'path';
import { Worker, workerData, type MessagePort, type TransferListItem } from 'worker_threads';

/** The niceness of the threads that compute for the HTTP thread (training, gate refits): they get the cores it leaves. */
export const COMPUTE_NICENESS = 10;

/** Every thread starts here (it loads TypeScript, then `entry`). */
const ENTRY = path.join(__dirname, 'ts-thread.cjs');

type Reply =
  | { op: 'ready' }
  | { op: 'failed'; error: string }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  | { id: number; event: unknown };

export class ThreadCalls {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; onEvent?: (event: unknown) => void }>();
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly name: string,
  ) {
    worker.on('message', (m: Reply) => {
      if (!('id' in m)) return;
      const w = this.waiting.get(m.id);
      if ('event' in m) return w?.onEvent?.(m.event);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.value);
      else w?.reject(new Error(`${name}: ${m.error}`));
    });
    const die = (e: Error) => {
      this.dead ??= e;
      for (const w of this.waiting.values()) w.reject(this.dead);
      this.waiting.clear();
    };
    worker.on('error', (e) => die(new Error(`${name} failed: ${e.message}`)));
    worker.on('exit', (code) => die(new Error(`${name} exited (${code})`)));
  }

  /** Start `file` (TypeScript or JavaScript) as a worker thread given `data` (threadData); resolves once it says it is ready. */
  static start(file: string, data: unknown, name: string): Promise<ThreadCalls> {
    const worker = new Worker(ENTRY, { workerData: { entry: file, data } });
    return new Promise((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if ('id' in m) return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        if (m.op === 'ready') resolve(new ThreadCalls(worker, name));
        else void worker.terminate().then(() => reject(new Error(m.error)));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  }

  /** Whether the thread died (its error), or null. */
  get failure(): Error | null {
    return this.dead;
  }

  /** A thread that does not keep the process alive by itself (one that only ever waits for requests). */
  unref(): void {
    this.worker.unref();
  }

  /** Ask the thread; `onEvent` gets what it streams meanwhile; `transfer`: buffers moved to it, not copied. */
  call(request: object, opts: { onEvent?: (event: unknown) => void; transfer?: readonly TransferListItem[] } = {}): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, onEvent: opts.onEvent });
      this.worker.postMessage({ id, ...request }, opts.transfer);
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * The worker's side: answer each request with `handle` (which may `emit` events of it meanwhile), one at a time in
 * order, or with `concurrent` each as it comes; then say it is ready.
 */
export function serveCalls<R extends { id: number }>(
  port: MessagePort,
  handle: (request: R, emit: (event: unknown) => void) => Promise<unknown>,
  opts: { concurrent?: boolean } = {},
): void {
  let chain: Promise<void> = Promise.resolve();
  const answer = (m: R) =>
    handle(m, (event) => port.postMessage({ id: m.id, event })).then(
      (value) => port.postMessage({ id: m.id, ok: true, value }),
      (e) => port.postMessage({ id: m.id, ok: false, error: (e as Error).stack ?? String(e) }),
    );
  port.on('message', (m: R) => {
    if (opts.concurrent) void answer(m);
    else chain = chain.then(() => answer(m));
  });
  port.postMessage({ op: 'ready' });
}

/** In a thread ThreadCalls started: what it was given. */
export function threadData<T>(): T {
  return (workerData as { data: T }).data;
}
