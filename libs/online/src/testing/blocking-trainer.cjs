// A fake training thread for tests (speaks libs/online-learning training-worker.ts's messages): its update blocks the whole thread
// (Atomics.wait, as a long synchronous training step would) until the test releases it, then discards the update.
//   workerData.data.test  an Int32Array over a SharedArrayBuffer: [0] set to 1 while an update is blocked (notified),
//                    [1] the test sets to 1 to release it (and notifies)
'use strict';
const fs = require('fs');
const path = require('path');
const { parentPort, workerData } = require('worker_threads');

const flags = workerData.data.test;
const metrics = { events: 0, tokens: 0, accepted: 0, rejected: 0, silent: 0, reward_mean: 0, acceptance: null, baseline: 0, loss: 0, clipfrac: 0, kl: 0, kl_ref: null, grad_norm: 0, lr: 0, optimizer_steps: 0, discarded: 'empty', duration_s: 0 };

parentPort.on('message', (m) => {
  if (m.op === 'update') {
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    Atomics.wait(flags, 1, 0); // blocked: nothing else runs in this thread until the test lets it go
    Atomics.store(flags, 0, 0);
    parentPort.postMessage({ id: m.id, ok: true, value: { weights: null, metrics: { ...metrics, events: m.events.length } } });
  } else if (m.op === 'checkpoint') {
    const dir = path.join(workerData.data.config.stateDir, 'checkpoints', `v${String(m.state.policy_version).padStart(6, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    parentPort.postMessage({ id: m.id, ok: true, value: dir });
  } else parentPort.postMessage({ id: m.id, ok: true });
});
parentPort.postMessage({ op: 'ready' });
