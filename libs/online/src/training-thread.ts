// The HTTP thread's handle on the training thread (training-worker.ts): updates and checkpoints as promises. The
// service never trains on its own thread, so an update (seconds of compute) cannot delay a feedback acknowledgement,
// a status call or the decoding steps of the completions in flight; the new weights come back as a host copy that
// the PolicyHolder swaps into the served model between decoding steps, as before.
// If the thread dies, every call after that fails with its error (the events stay pending; the status shows it).
import * as path from 'path';
import { Worker } from 'worker_threads';
import type { BackendChoice } from '@rlhf-code/backend';
import type { OnlineConfig } from './config';
import type { TrainableEvent } from './feedback-log';
import type { UpdateResult } from './online-trainer';
import type { OnlineTrainerState } from './policy-checkpoints';

/** What the training thread starts from. */
export interface TrainingWorkerData {
  config: OnlineConfig;
  /** The policy's folder (a checkpoint), or null: the start model (or a new LoRA adapter). */
  policyDir: string | null;
  /** Resume the optimizer and reward baseline saved with `policyDir` (the state dir's own checkpoint). */
  resume: boolean;
  /** The HTTP thread's backend: the training thread computes on the same one. */
  backend: BackendChoice;
  /** What a test's fake trainer is given (see TrainingWorker). */
  test?: unknown;
}

/** The script a training thread runs, and (tests) what it is given as workerData.test. */
export interface TrainingWorker {
  file: string;
  data?: unknown;
}

/** The state a checkpoint saves besides what the trainer knows (its reward baseline). */
export type CheckpointState = Omit<OnlineTrainerState, 'baseline'>;

export type TrainingRequest = { id: number } & ({ op: 'update'; events: TrainableEvent[] } | { op: 'checkpoint'; state: CheckpointState } | { op: 'close' });

type Reply = { op: 'ready' } | { op: 'failed'; error: string } | { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export class TrainingThread {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: Reply) => {
      if (!('id' in m)) return;
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.value);
      else w?.reject(new Error(`training thread: ${m.error}`));
    });
    const die = (e: Error) => {
      this.dead ??= e;
      for (const w of this.waiting.values()) w.reject(this.dead);
      this.waiting.clear();
    };
    worker.on('error', (e) => die(new Error(`training thread failed: ${e.message}`)));
    worker.on('exit', (code) => die(new Error(`training thread exited (${code})`)));
  }

  /**
   * Start the thread and wait until its models are loaded. `script`: what it runs (default the real trainer,
   * training-worker.cjs; tests give a fake that speaks the same messages).
   */
  static start(data: TrainingWorkerData, script: TrainingWorker = { file: path.join(__dirname, 'training-worker.cjs') }): Promise<TrainingThread> {
    const worker = new Worker(script.file, { workerData: { ...data, test: script.data } });
    return new Promise((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if ('id' in m) return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        if (m.op === 'ready') resolve(new TrainingThread(worker));
        else void worker.terminate().then(() => reject(new Error(m.error)));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  }

  /** One update on `events` (the trainer's rule: weights to publish, or null when discarded). */
  async update(events: TrainableEvent[]): Promise<UpdateResult> {
    const r = (await this.call({ op: 'update', events })) as UpdateResult;
    // A Map of this realm: a message's Map is built by the runtime's own constructor, which is another one than this
    // code's Map under a sandboxing runner (jest), and `instanceof Map` (assignWeights) would not know it.
    return { ...r, weights: r.weights && new Map(r.weights) };
  }

  /** Save a checkpoint (the last good weights and the optimizer) in the state dir; resolves to its folder. */
  checkpoint(state: CheckpointState): Promise<string> {
    return this.call({ op: 'checkpoint', state }) as Promise<string>;
  }

  /** Dispose the thread's models and stop it. */
  async close(): Promise<void> {
    if (!this.dead) await this.call({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private call(request: { op: 'update'; events: TrainableEvent[] } | { op: 'checkpoint'; state: CheckpointState } | { op: 'close' }): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...request });
    });
  }
}
