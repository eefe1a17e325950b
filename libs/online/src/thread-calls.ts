// Requests to a worker thread as promises, and the worker's side of it: the HTTP thread of the online service hands
// its long computations (an update: training-thread.ts; a refit of the show gate: gate-fit-thread.ts) to threads of
// their own, so that no acknowledgement, status call or decoding step waits for them.
//   to the worker     {id, ...request}
//   from the worker   {id, ok: true, value} | {id, ok: false, error}; before any: {op: 'ready'} or {op: 'failed', error}
// The worker answers one request at a time, in the order they came. If it dies, every call after that fails with its
// error.
import { Worker, type MessagePort } from 'worker_threads';

type Reply = { op: 'ready' } | { op: 'failed'; error: string } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export class ThreadCalls {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly name: string,
  ) {
    worker.on('message', (m: Reply) => {
      if (!('id' in m)) return;
      const w = this.waiting.get(m.id);
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

  /** Start `file` as a worker thread with `workerData`; resolves once it says it is ready. */
  static start(file: string, workerData: unknown, name: string): Promise<ThreadCalls> {
    const worker = new Worker(file, { workerData });
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

  call(request: object): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...request });
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/** The worker's side: answer each request with `handle`, one at a time, in order; then say it is ready. */
export function serveCalls<R extends { id: number }>(port: MessagePort, handle: (request: R) => Promise<unknown>): void {
  let chain: Promise<void> = Promise.resolve();
  port.on('message', (m: R) => {
    chain = chain.then(() =>
      handle(m).then(
        (value) => port.postMessage({ id: m.id, ok: true, value }),
        (e) => port.postMessage({ id: m.id, ok: false, error: (e as Error).stack ?? String(e) }),
      ),
    );
  });
  port.postMessage({ op: 'ready' });
}
