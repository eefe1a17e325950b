// The service under load: training runs in a thread of its own, so an acknowledgement and a status call are answered
// while an update is in progress, however long it takes (a fake trainer that blocks its whole thread until released:
// no timing is measured). Outcomes that arrive while training is behind are acknowledged, durable, counted in the
// backlog, and replayed after a restart.
import * as path from 'path';
import { initBackend } from '@rlhf-code/backend';
import { tempDir } from '@rlhf-code/model/testing';
import { formatFim } from '@rlhf-code/tokenizer';
import { parseOnlineConfig } from '@rlhf-code/online-core';
import { jsonOf, makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { FeedbackLog } from '@rlhf-code/online-feedback';
import { startOnlineService, type OnlineService } from './service';

beforeAll(() => initBackend({ quiet: true }));

let modelDir: string;
beforeAll(async () => {
  modelDir = await makeTinyModelDir(5);
});

const auth = { 'Content-Type': 'application/json', Authorization: 'Bearer test-token', 'X-Project-ID': 'test-project' };

/** A service whose trainer blocks its thread on every update until `release()`. */
async function startBlocked(stateDir: string) {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const config = parseOnlineConfig({ model: modelDir, stateDir, abFraction: 0, completion: { port: 0 }, feedback: { port: 0 }, training: { objective: 'outcome', batchSize: 2 } });
  const service = await startOnlineService(config, { log: () => undefined, trainingWorker: { file: path.join(__dirname, 'testing/blocking-trainer.cjs'), data: flags } });
  /** Resolves once the fake trainer is blocked inside an update. */
  const blocked = async () => {
    while (Atomics.load(flags, 0) !== 1) await new Promise((r) => setTimeout(r, 5));
  };
  const release = () => {
    Atomics.store(flags, 1, 1);
    Atomics.notify(flags, 1);
  };
  return { service, flags, blocked, release };
}

async function post(s: OnlineService, completionId: string) {
  const res = await fetch(`${s.feedbackUrl}/api/training/submit`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ completionId, prompt: formatFim(`x_${completionId} = `, '\n'), completion: '1', accepted: true }),
  });
  return { status: res.status, body: await jsonOf(res) };
}

test('an outcome is acknowledged and the status answered while an update blocks the training thread', async () => {
  const stateDir = tempDir();
  const { service: s, flags, blocked, release } = await startBlocked(stateDir);
  try {
    // Unmatched outcomes are stored but never trained: a trainable event needs a served completion.
    // So serve two suggestions first, then report on them.
    const served: string[] = [];
    for (const prefix of ['a = ', 'b = ']) {
      const res = await fetch(`${s.completionUrl}/v1/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: formatFim(prefix, '\n'), max_tokens: 4 }) });
      const body = (await jsonOf(res)) as { choices: { text: string }[] };
      served.push(body.choices[0].text);
    }
    const report = (prefix: string, text: string, id: string) =>
      fetch(`${s.feedbackUrl}/api/training/submit`, { method: 'POST', headers: auth, body: JSON.stringify({ completionId: id, prompt: formatFim(prefix, '\n'), completion: text || 'x', accepted: true }) });
    expect((await report('a = ', served[0], 'one')).status).toBe(200);
    expect((await report('b = ', served[1], 'two')).status).toBe(200);
    await blocked(); // the update of those two is running, and its thread is stuck
    // Meanwhile this thread answers: an acknowledgement (on disk before its 200) and the status.
    const third = await post(s, 'three');
    expect(third).toMatchObject({ status: 200, body: { status: 'submitted' } });
    expect(Atomics.load(flags, 0)).toBe(1); // still blocked: the answers did not wait for it
    const status = (await jsonOf(await fetch(`${s.feedbackUrl}/api/training/status`))) as Record<string, unknown>;
    expect(status).toMatchObject({ training: true, events_received: expect.any(Number), completions_shed: 0 });
    expect((status.backlog as { events: number }).events).toBe(status.events_pending);
    const onDisk = await FeedbackLog.open(path.join(stateDir, 'feedback.jsonl'));
    expect(onDisk.counts().received).toBe(status.events_received); // every acknowledged outcome is in the log
    await onDisk.close();
    release();
    await s.idle();
    expect(s.status()).toMatchObject({ training: false, discarded_updates: 1, updates: 0 });
  } finally {
    release();
    await s.close();
  }
});

test('outcomes acknowledged while training is behind wait on disk and are replayed after a restart', async () => {
  const stateDir = tempDir();
  const first = await startBlocked(stateDir);
  const ids = Array.from({ length: 12 }, (_, i) => `late-${i}`);
  try {
    for (const id of ids) expect((await post(first.service, id)).status).toBe(200);
    expect(first.service.status()).toMatchObject({ events_received: 12 });
  } finally {
    first.release();
    await first.service.close();
  }
  // A new process on the same state dir: every acknowledged outcome is there again (unmatched ones: counted, skipped).
  const again = await startBlocked(stateDir);
  try {
    expect(again.service.status()).toMatchObject({ events_received: 12, events_skipped: 12, unmatched_outcomes: 12 });
    expect((await post(again.service, 'late-0')).body).toMatchObject({ status: 'duplicate' });
  } finally {
    again.release();
    await again.service.close();
  }
});
