import * as path from 'path';
import type { AddressInfo } from 'net';
import type { FastifyInstance } from 'fastify';
import { FeedbackServerSchema } from './config';
import { FeedbackLog } from './feedback-log';
import { buildFeedbackServer } from './feedback-server';
import { jsonOf } from './testing/http';
import { tempDir } from '@rlhf-code/model/testing';

let app: FastifyInstance;
let log: FeedbackLog;
let url: string;

const outcome = {
  completionId: 'c-1',
  filepath: 'file:///w/a.py',
  prefix: '# a.py\nx = ',
  suffix: '\n',
  prompt: '<|fim_prefix|># a.py\nx = <|fim_suffix|>\n<|fim_middle|>',
  completion: '1',
  modelProvider: 'openai',
  modelName: 'Qwen2.5-Coder-1.5B',
  accepted: true,
  timestamp: '2025-01-01T00:00:00.000Z',
  time: 120,
  uniqueId: 'u',
  numLines: 1,
  cacheHit: false,
  completionOptions: { temperature: 0.01 },
  someFutureField: { nested: [1, 2] }, // unknown fields are allowed
};
const good = { authorization: 'Bearer test-token', 'x-project-id': 'test-project', 'content-type': 'application/json' };

beforeAll(async () => {
  log = await FeedbackLog.open(path.join(tempDir(), 'feedback.jsonl'));
  app = buildFeedbackServer({
    config: FeedbackServerSchema.parse({ bodyLimitBytes: 10_000 }),
    status: () => ({ ok: true }),
    submit: async (o) => {
      const r = await log.addEvent({ received: 'now', source: 'continue', served: null, skip: null, outcome: o });
      return { duplicate: r.duplicate, queuePosition: log.counts().pending };
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/training/submit`;
});
afterAll(async () => {
  await app.close();
  await log.close();
});

const post = (body: string | object, headers: Record<string, string> = good) =>
  fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

test('a Continue outcome is stored and answered like RLinf ({status, message, queue_position}); duplicates count once', async () => {
  const res = await post(outcome);
  expect(res.status).toBe(200);
  expect(await jsonOf(res)).toEqual({ status: 'submitted', message: 'Training data submitted successfully', queue_position: 1 });
  expect(log.all()[0].outcome).toEqual(outcome); // unknown fields kept as is
  const dup = await post({ ...outcome, accepted: false });
  expect(dup.status).toBe(200);
  expect((await jsonOf(dup)).status).toBe('duplicate');
  expect(log.counts()).toMatchObject({ received: 1, duplicates: 1 });
  const minimal = await post({ prompt: 'p', completion: 'c', accepted: false });
  expect((await jsonOf(minimal)).queue_position).toBe(2);
});

test('401 for a missing or wrong token, 403 for a missing or unknown project', async () => {
  const { authorization: _a, ...noToken } = good;
  expect((await post(outcome, noToken)).status).toBe(401);
  expect((await post(outcome, { ...good, authorization: 'Bearer wrong' })).status).toBe(401);
  const { 'x-project-id': _p, ...noProject } = good;
  const r403 = await post(outcome, noProject);
  expect(r403.status).toBe(403);
  const other = await post(outcome, { ...good, 'x-project-id': 'other' });
  expect(other.status).toBe(403);
  expect((await jsonOf(other)).error.message).toMatch(/project "other" is not allowed/);
});

test('400 names the field: wrong type, missing field, non-object body, malformed JSON', async () => {
  const cases: [object | string, string, RegExp][] = [
    [{ ...outcome, completionId: 'x2', accepted: 'yes' }, 'accepted', /expected boolean, received string/],
    [{ completion: 'c', accepted: true }, 'prompt', /missing/],
    [{ prompt: 'p', completion: 3, accepted: true }, 'completion', /expected string, received number/],
    [{ prompt: 'p', completion: 'c', accepted: true, time: 'slow' }, 'time', /expected number/],
    [[1, 2], '(body)', /expected a JSON object, received array/],
    ['{"prompt": "p", ', '(body)', /malformed JSON/],
  ];
  for (const [body, field, message] of cases) {
    const res = await post(body);
    expect(res.status).toBe(400);
    const err = (await jsonOf(res)).error;
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  }
});

test('413 over the body limit; other content types parse as JSON; the server keeps answering', async () => {
  const big = await post({ ...outcome, completionId: 'big', completion: 'x'.repeat(20_000) });
  expect(big.status).toBe(413);
  const plain = await post({ prompt: 'p', completion: 'c2', accepted: true, completionId: 'plain' }, { ...good, 'content-type': 'text/plain' });
  expect(plain.status).toBe(200);
  const empty = await fetch(url, { method: 'POST', headers: good });
  expect(empty.status).toBe(400);
  const status = await fetch(url.replace('submit', 'status'));
  expect(await jsonOf(status)).toEqual({ ok: true });
});
