// The HTTP thread's handle on the generation thread (generation-worker.ts), which holds the served models and decodes
// the completions: a decoding step is milliseconds to tens of milliseconds of compute, and on the HTTP thread every
// feedback acknowledgement and status call arriving meanwhile would wait for it. Here a generation is a call whose
// text streams back as events; the client going away aborts it between decoding steps; published weights move to the
// thread (their buffers transferred, not copied) and are swapped in there between decoding steps (policy.ts).
// The versions: `latestVersion` counts what was published; `version` is what the thread last reported decoding with.
import * as path from 'path';
import type { BackendChoice } from '@rlhf-code/backend';
import type { HostTensor } from '@rlhf-code/model';
import { ThreadCalls, type OnlineConfig } from '@rlhf-code/online-core';
import { Aborted, type Generator, type GenerationRequest, type GenerationResult, type ServedModelSnapshot, type TextEvent } from './generation';

/** What the generation thread starts from. */
export interface GenerationWorkerData {
  config: OnlineConfig;
  /** The policy's folder (a checkpoint), or null: the start model (or a new LoRA adapter). */
  policyDir: string | null;
  /** The version of the policy in `policyDir`. */
  version: number;
  /** The HTTP thread's backend: the generation thread computes on the same one. */
  backend: BackendChoice;
}

export type GenerationCall =
  | { op: 'info' }
  | { op: 'generate'; call: number; request: GenerationRequest }
  | { op: 'abort'; call: number }
  | { op: 'publish'; weights: [string, HostTensor][] }
  | { op: 'served' }
  | { op: 'close' };

/** What the thread answers `generate` with: the result, or that it stopped on an abort. */
export type GenerateReply = GenerationResult | { aborted: true };

export class GenerationThread implements Generator {
  private current: number;
  private latest: number;
  private calls = 0;

  private constructor(
    private readonly thread: ThreadCalls,
    readonly modelWindow: number,
    version: number,
  ) {
    this.current = version;
    this.latest = version;
  }

  /** Start the thread and wait until its models are loaded. */
  static async start(data: GenerationWorkerData): Promise<GenerationThread> {
    const thread = await ThreadCalls.start(path.join(__dirname, 'generation-worker.ts'), data, 'generation thread');
    const info = (await thread.call({ op: 'info' })) as { modelWindow: number; version: number };
    return new GenerationThread(thread, info.modelWindow, info.version);
  }

  get version(): number {
    return this.current;
  }

  get latestVersion(): number {
    return this.latest;
  }

  publish(weights: Map<string, HostTensor>): number {
    this.latest += 1;
    // Every buffer once (tensors may be views of one); after this the HTTP thread no longer holds them.
    const buffers = new Set<ArrayBuffer>();
    for (const t of weights.values()) if (t.data.buffer instanceof ArrayBuffer) buffers.add(t.data.buffer);
    this.thread.call({ op: 'publish', weights: [...weights] }, { transfer: [...buffers] }).then(
      (v) => (this.current = Math.max(this.current, v as number)),
      () => undefined, // a dead thread: every generation fails with its error, and the status shows it
    );
    return this.latest;
  }

  async generate(request: GenerationRequest, onText?: (e: TextEvent) => void, signal?: AbortSignal): Promise<GenerationResult> {
    if (signal?.aborted) throw new Aborted();
    const call = this.calls++;
    const abort = () => void this.thread.call({ op: 'abort', call }).catch(() => undefined);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const reply = (await this.thread.call(
        { op: 'generate', call, request },
        {
          onEvent: (e) => {
            const t = e as TextEvent;
            this.current = Math.max(this.current, t.version);
            onText?.(t);
          },
        },
      )) as GenerateReply;
      if ('aborted' in reply) throw new Aborted();
      if (reply.versions.length > 0) this.current = Math.max(this.current, reply.versions[reply.versions.length - 1]);
      return reply;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  async servedModel(): Promise<ServedModelSnapshot> {
    const s = (await this.thread.call({ op: 'served' })) as ServedModelSnapshot;
    // Maps of this realm (see libs/online-learning training-thread.ts: a message's Map is another realm's under jest).
    return { ...s, host: new Map(s.host), trainable: new Map(s.trainable) };
  }

  async close(): Promise<void> {
    if (!this.thread.failure) await this.thread.call({ op: 'close' }).catch(() => undefined);
    await this.thread.terminate();
  }
}
