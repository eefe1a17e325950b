import * as path from 'path';
import type { AddressInfo } from 'net';
import type { FastifyInstance } from 'fastify';
import { FeedbackServerSchema } from '@rlhf-code/online-core';
import { jsonOf } from '@rlhf-code/online-core/testing';
import { FeedbackLog } from './feedback-log';
import { buildFeedbackServer, type PostedOutcome } from './feedback-server';
import { tempDir } from '@rlhf-code/model/testing';

let app: FastifyInstance;
let log: FeedbackLog;
let url: string;
const ignored: string[] = [];
let lastPosted: PostedOutcome | null = null;

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
    submit: async (p) => {
      lastPosted = p;
      const { via, project } = p;
      const r = await log.addEvent({ received: 'now', source: 'continue', via, project, served: null, skip: p.noCode ? 'noCode' : null, outcome: p.outcome });
      return { duplicate: r.duplicate, queuePosition: log.counts().pending };
    },
    ignored: (name) => ignored.push(name),
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

test('401 for a missing or wrong token, 403 for a project not allowed; no X-Project-ID = the default project', async () => {
  const { authorization: _a, ...noToken } = good;
  expect((await post(outcome, noToken)).status).toBe(401);
  expect((await post(outcome, { ...good, authorization: 'Bearer wrong' })).status).toBe(401);
  const { 'x-project-id': _p, ...noProject } = good;
  expect((await post({ ...outcome, completionId: 'no-project' }, noProject)).status).toBe(200);
  expect(log.all().at(-1)).toMatchObject({ project: 'test-project', via: 'completionTracking', outcome: { completionId: 'no-project' } });
  expect((await post({ ...outcome, completionId: 'no-project-2' }, noToken)).status).toBe(401); // the token is still needed
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

// Upstream Continue's body for a `data:` destination: {name, data, schema, level, profileId}, bearer token only.
const upstreamData = {
  ...outcome,
  completionId: 'up-1',
  eventName: 'autocomplete',
  schema: '0.2.0',
  userId: 'sk-continue-user-SECRET123',
  userAgent: 'Visual Studio Code/1.101.0 (Continue/1.2.0)',
  selectedProfileId: 'local',
  gitRepo: 'https://example.com/w.git',
  debounceDelay: 350,
};
const upstream = (data: object, name = 'autocomplete', level = 'all') => ({ name, data, schema: '0.2.0', level, profileId: 'local' });
const tokenOnly = { authorization: 'Bearer test-token', 'content-type': 'application/json', 'x-api-key': 'custom-header-SECRET456' };

test('upstream autocomplete event: stored as the outcome without userId; the request credentials are handed on', async () => {
  const res = await post(upstream(upstreamData), tokenOnly);
  expect(res.status).toBe(200);
  expect(await jsonOf(res)).toMatchObject({ status: 'submitted', message: 'Training data submitted successfully' });
  const stored = log.all().at(-1)!;
  const { userId: _u, ...expected } = upstreamData;
  expect(stored).toMatchObject({ via: 'devData', project: 'test-project', skip: null });
  expect(stored.outcome).toEqual(expected);
  expect([...lastPosted!.secrets].sort()).toEqual(['custom-header-SECRET456', 'sk-continue-user-SECRET123', 'test-token']);
  // The same completionId again (Continue posts to each destination once; a retry or a second destination): duplicate.
  const dup = await post(upstream(upstreamData), tokenOnly);
  expect((await jsonOf(dup)).status).toBe('duplicate');
});

test('upstream noCode: 200 no_code, stored without code as skip noCode; other events: 200 ignored, nothing stored', async () => {
  const { prompt: _p, completion: _c, prefix: _x, suffix: _s, ...noCode } = { ...upstreamData, completionId: 'nc-1' };
  const res = await post(upstream(noCode, 'autocomplete', 'noCode'), tokenOnly);
  expect(res.status).toBe(200);
  expect(await jsonOf(res)).toMatchObject({ status: 'no_code' });
  const stored = log.all().at(-1)!;
  expect(stored).toMatchObject({ via: 'devData', skip: 'noCode', outcome: { completionId: 'nc-1', accepted: true } });
  expect(stored.outcome).not.toHaveProperty('prompt');
  expect(stored.outcome).not.toHaveProperty('userId');
  const before = log.all().length;
  for (const name of ['chatInteraction', 'editOutcome', 'toolUsage']) {
    const r = await post(upstream({ prompt: 'chat text', userId: 'x' }, name), tokenOnly);
    expect(r.status).toBe(200);
    const body = await jsonOf(r);
    expect(body.status).toBe('ignored');
    expect(body.message).toContain(name);
  }
  expect(log.all()).toHaveLength(before);
  expect(ignored).toEqual(['chatInteraction', 'editOutcome', 'toolUsage']);
});

test('upstream event errors name the field by its path (data.accepted, level, data)', async () => {
  const cases: [object, string, RegExp][] = [
    [upstream({ ...upstreamData, completionId: 'bad-1', accepted: 'yes' }), 'data.accepted', /data\.accepted: expected boolean, received string/],
    [upstream({ ...upstreamData, completionId: 'bad-2', completion: undefined }), 'data.completion', /missing \(expected string\)/],
    [{ ...upstream(upstreamData), level: 'some' }, 'level', /level: /],
    [{ name: 'autocomplete', data: [1] }, 'data', /expected object, received array/],
  ];
  for (const [body, field, message] of cases) {
    const res = await post(body, tokenOnly);
    expect(res.status).toBe(400);
    const err = (await jsonOf(res)).error;
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
    expect(JSON.stringify(err)).not.toContain('SECRET');
  }
});
