// The show gate's refits in a worker thread of their own (gate-fit-thread.ts starts it): {id, input: RefitInput} ->
// {id, ok: true, value: {l2, model}} (gate.ts refitGate, a pure function of its input).
import * as os from 'os';
import { parentPort } from 'worker_threads';
import { refitGate, type RefitInput } from './gate';
import { serveCalls } from './thread-calls';
import { TRAINING_NICENESS } from './training-thread';

if (parentPort) {
  os.setPriority(TRAINING_NICENESS); // the HTTP thread first (as the training thread)
  serveCalls(parentPort, (m: { id: number; input: RefitInput }) => refitGate(m.input));
}
