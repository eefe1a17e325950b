// The show gate's refits in a worker thread of their own (gate-fit-thread.ts starts it): {id, input: RefitInput} ->
// {id, ok: true, value: {l2, model}} (gate.ts refitGate, a pure function of its input).
import * as os from 'os';
import { parentPort } from 'worker_threads';
import { COMPUTE_NICENESS, serveCalls } from '@rlhf-code/online-core';
import { refitGate, type RefitInput } from './gate';

if (parentPort) {
  os.setPriority(COMPUTE_NICENESS); // the HTTP thread first (as the training thread)
  serveCalls(parentPort, (m: { id: number; input: RefitInput }) => refitGate(m.input));
}
