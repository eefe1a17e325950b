// The HTTP thread's handle on the training thread (training-worker.ts): updates and checkpoints as promises. The
// service never trains on its own thread, so an update (seconds of compute) cannot delay a feedback acknowledgement,
// a status call or the decoding steps of the completions in flight; the new weights come back as a host copy that the
// service passes on to the generation thread (libs/online-serving generation-thread.ts), which swaps them in between decoding steps.
// If the thread dies, every call after that fails with its error (the events stay pending; the status shows it).
// The messages are libs/online-core thread-calls.ts's; TrainingRequest says what is asked.
import * as path from 'path';
import type { BackendChoice } from '@rlhf-code/backend';
import { ThreadCalls, type OnlineConfig } from '@rlhf-code/online-core';
import type { TrainableEvent } from '@rlhf-code/online-feedback';
import type { OnlineTrainerState } from './policy-checkpoints';
import type { UpdateResult } from './update-metrics';

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

/** The script a training thread runs, and (tests) what it is given as its data's `test`. */
export interface TrainingWorker {
  file: string;
  data?: unknown;
}

/** The run state the service hands to a checkpoint, to resume from (the trainer adds what it knows: its reward baseline). */
export type ServiceRunState = Omit<OnlineTrainerState, 'baseline'>;

/**
 * An update: the events to train on, and (objective user-rm / both) the prompts of recent requests, the cursor positions
 * the RL steps draw from (at most training.userRm.recentPositions; in memory only: they are the user's code).
 */
export type UpdateRequest = { op: 'update'; events: TrainableEvent[]; positions?: string[] };

export type TrainingRequest = { id: number } & (UpdateRequest | { op: 'checkpoint'; state: ServiceRunState } | { op: 'close' });

export class TrainingThread {
  private constructor(private readonly calls: ThreadCalls) {}

  /**
   * Start the thread and wait until its models are loaded. `script`: what it runs (default the real trainer,
   * training-worker.ts; tests give a fake that speaks the same messages).
   */
  static async start(data: TrainingWorkerData, script: TrainingWorker = { file: path.join(__dirname, 'training-worker.ts') }): Promise<TrainingThread> {
    return new TrainingThread(await ThreadCalls.start(script.file, { ...data, test: script.data }, 'training thread'));
  }

  /** One update on `events` (the trainer's rule: weights to publish, or null when discarded); `positions`: see UpdateRequest. */
  async update(events: TrainableEvent[], positions?: string[]): Promise<UpdateResult> {
    const r = (await this.call({ op: 'update', events, ...(positions ? { positions } : {}) })) as UpdateResult;
    // A Map of this realm: a message's Map is built by the runtime's own constructor, which is another one than this
    // code's Map under a sandboxing runner (jest), and `instanceof Map` (assignWeights) would not know it.
    return { ...r, weights: r.weights && new Map(r.weights) };
  }

  /** Save a checkpoint (the last good weights and the optimizer) in the state dir; resolves to its folder. */
  checkpoint(state: ServiceRunState): Promise<string> {
    return this.call({ op: 'checkpoint', state }) as Promise<string>;
  }

  /** Dispose the thread's models and stop it. */
  async close(): Promise<void> {
    if (!this.calls.failure) await this.call({ op: 'close' }).catch(() => undefined);
    await this.calls.terminate();
  }

  private call(request: UpdateRequest | { op: 'checkpoint'; state: ServiceRunState } | { op: 'close' }): Promise<unknown> {
    return this.calls.call(request);
  }
}
