import * as fs from 'fs';
import * as path from 'path';
import { FeedbackLog, type LoggedEvent } from './feedback-log';
import { tempDir } from '@rlhf-code/model/testing';

const event = (completionId: string | undefined, accepted = true): Omit<LoggedEvent, 'type' | 'seq'> => ({
  received: '2025-01-01T00:00:00.000Z',
  source: 'continue',
  served: { id: 'cmpl-1', version: 0, arm: 'policy' },
  skip: null,
  outcome: { completionId, prompt: 'p', completion: 'c', accepted },
});

test('events are on disk when addEvent resolves, and a restart replays the untrained ones (none lost)', async () => {
  const file = path.join(tempDir(), 'state', 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  const seqs = [];
  for (const id of ['a', 'b', 'c', 'd', 'e']) seqs.push((await log.addEvent(event(id))).seq);
  expect(seqs).toEqual([1, 2, 3, 4, 5]);
  // Durable before close: another reader sees all five lines now.
  expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5);
  await log.markConsumed([1, 2], 1);
  await log.markConsumed([3], null, 'nan');
  expect(log.counts()).toMatchObject({ received: 5, trained: 2, discarded: 1, pending: 2 });
  // Crash: no close(). Restart from policy version 1.
  const again = await FeedbackLog.open(file, 1);
  expect(again.pending().map((e) => e.outcome.completionId)).toEqual(['d', 'e']);
  expect(again.counts()).toMatchObject({ received: 5, trained: 2, discarded: 1, pending: 2 });
  expect((await again.addEvent(event('f'))).seq).toBe(6); // numbering goes on
  await again.close();
  await log.close();
});

test('an update newer than the checkpoint the service restarts from is trained again', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  for (const id of ['a', 'b', 'c', 'd']) await log.addEvent(event(id));
  await log.markConsumed([1, 2], 1);
  await log.markConsumed([3, 4], 2); // version 2 was never checkpointed
  await log.close();
  const restarted = await FeedbackLog.open(file, 1);
  expect(restarted.pending().map((e) => e.seq)).toEqual([3, 4]);
  await restarted.close();
});

test('a duplicate completionId counts once, also across a restart and for concurrent posts', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  const [r1, r2] = await Promise.all([log.addEvent(event('same')), log.addEvent(event('same', false))]);
  expect([r1.duplicate, r2.duplicate]).toEqual([false, true]);
  expect((await log.addEvent(event(undefined))).duplicate).toBe(false); // no id: nothing to deduplicate by
  expect(log.counts()).toMatchObject({ received: 2, duplicates: 1 });
  await log.close();
  const again = await FeedbackLog.open(file);
  expect((await again.addEvent(event('same'))).duplicate).toBe(true);
  expect(again.counts().received).toBe(2);
  await again.close();
});

test('skipped events are stored and counted but never pending', async () => {
  const log = await FeedbackLog.open(path.join(tempDir(), 'feedback.jsonl'));
  await log.addEvent({ ...event('x'), skip: 'cacheHit' });
  await log.addEvent(event('y'));
  expect(log.counts()).toMatchObject({ received: 2, skipped: 1, pending: 1 });
  expect(log.pending().map((e) => e.outcome.completionId)).toEqual(['y']);
  await log.close();
});

test('a torn last line (crash mid-write) is dropped; a bad line elsewhere is an error naming file:line', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  await log.addEvent(event('a'));
  await log.close();
  fs.appendFileSync(file, '{"type":"event","seq":2,"rec');
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const again = await FeedbackLog.open(file);
  stderr.mockRestore();
  expect(again.counts().received).toBe(1);
  await again.addEvent(event('b'));
  await again.close();
  expect(fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).seq)).toEqual([1, 2]);

  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('\n', '\nnot json\n'));
  await expect(FeedbackLog.open(file)).rejects.toThrow(`${file}:2: not valid JSON`);
});

test('an outcome without code (upstream level noCode) is stored, counted as skipped across a restart, never pending', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  await log.addEvent({ ...event('n'), via: 'devData', served: null, skip: 'noCode', outcome: { completionId: 'n', accepted: true } });
  // Even with no skip reason, an event without prompt and completion is never handed to the trainer.
  await log.addEvent({ ...event('m'), served: null, outcome: { completionId: 'm', accepted: false } });
  await log.addEvent(event('y'));
  expect(log.counts()).toMatchObject({ received: 3, skipped: 2, pending: 1 });
  expect(log.pending().map((e) => e.outcome.completionId)).toEqual(['y']);
  await log.close();
  const again = await FeedbackLog.open(file);
  expect(again.counts()).toMatchObject({ received: 3, skipped: 2, pending: 1 });
  expect(again.all()[0]).toMatchObject({ via: 'devData', skip: 'noCode' });
  expect((await again.addEvent({ ...event('n'), skip: 'noCode', outcome: { completionId: 'n', accepted: true } })).duplicate).toBe(true);
  await again.close();
});

test('a backlog is bounded in memory: past memoryEvents, pending events are read back from the file, none dropped', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file, 0, { memoryEvents: 2 });
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (const id of ids) await log.addEvent(event(id, id !== 'c'));
  expect(log.pending().map((e) => [e.seq, e.outcome.completionId, e.outcome.accepted])).toEqual(ids.map((id, i) => [i + 1, id, id !== 'c']));
  await log.markConsumed([1, 2, 3], 1);
  expect(log.pending(2).map((e) => e.outcome.completionId)).toEqual(['d', 'e']); // from the file
  expect(log.counts()).toMatchObject({ received: 6, trained: 3, pending: 3 });
  await log.close();
  const again = await FeedbackLog.open(file, 1, { memoryEvents: 1 });
  expect(again.pending().map((e) => e.outcome.completionId)).toEqual(['d', 'e', 'f']);
  expect(again.all().map((e) => e.outcome.completionId)).toEqual(ids);
  await again.close();
});

test('concurrent appends go to disk in groups, in order, each durable before it resolves', async () => {
  const file = path.join(tempDir(), 'feedback.jsonl');
  const log = await FeedbackLog.open(file);
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => log.addEvent(event(`id-${i}`))));
  expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.map((l) => l.outcome.completionId)).toEqual(Array.from({ length: 50 }, (_, i) => `id-${i}`));
  expect(log.pending(3).map((e) => e.seq)).toEqual([1, 2, 3]);
  await log.close();
});
