// The HTTP thread's handle on the gate-fit thread (gate-fit-worker.ts): a refit of the show gate is dozens of
// synchronous logistic-regression fits (up to ~45 ms each on 2,000 outcomes), and under a flood of outcomes one runs
// after another; on the HTTP thread every acknowledgement and status call would wait for the fit in progress. The
// thread starts with the first refit, and does not keep the process alive by itself.
import * as path from 'path';
import { ThreadCalls } from '@rlhf-code/online-core';
import type { GateFitter, GateModel, RefitInput } from './gate';

export class GateFitThread implements GateFitter {
  private calls: Promise<ThreadCalls> | null = null;

  async refit(input: RefitInput): Promise<{ l2: number; model: GateModel }> {
    this.calls ??= ThreadCalls.start(path.join(__dirname, 'gate-fit-worker.ts'), null, 'gate-fit thread').then((c) => {
      c.unref();
      return c;
    });
    return (await (await this.calls).call({ input })) as { l2: number; model: GateModel };
  }

  async close(): Promise<void> {
    if (this.calls) await (await this.calls.catch(() => null))?.terminate();
  }
}
