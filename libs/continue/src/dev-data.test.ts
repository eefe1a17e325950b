import { isDevDataEvent, parseDevDataEvent } from './dev-data';
import { parseOutcome } from './outcome';

// An autocomplete event as upstream Continue posts it to a `data:` destination with schema 0.2.0, level all.
const data = {
  eventName: 'autocomplete',
  schema: '0.2.0',
  timestamp: '2026-06-18T10:00:00.000Z',
  userId: 'sk-continue-user-SECRET123',
  userAgent: 'Visual Studio Code/1.101.0 (Continue/1.2.0)',
  selectedProfileId: 'local',
  disable: false,
  maxPromptTokens: 1024,
  debounceDelay: 350,
  maxSuffixPercentage: 0.2,
  prefixPercentage: 0.3,
  multilineCompletions: 'auto',
  slidingWindowPrefixPercentage: 0.75,
  slidingWindowSize: 500,
  useCache: true,
  onlyMyCode: true,
  useRecentlyEdited: true,
  accepted: true,
  time: 180,
  prefix: 'x = ',
  suffix: '\n',
  prompt: '<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>',
  completion: '1',
  modelProvider: 'openai',
  modelName: 'Qwen2.5-Coder-1.5B',
  cacheHit: false,
  filepath: 'file:///w/a.py',
  gitRepo: 'https://github.com/me/w.git',
  completionId: 'c-0',
  uniqueId: 'machine-1',
};
const event = { name: 'autocomplete', data, schema: '0.2.0', level: 'all', profileId: 'local' };

test('an upstream autocomplete event becomes the fork outcome without the userId; its value is returned as a credential', () => {
  expect(isDevDataEvent(event)).toBe(true);
  const r = parseDevDataEvent(event);
  if (!r.ok || r.value.kind !== 'autocomplete') throw new Error(JSON.stringify(r));
  const { userId: _u, ...expected } = data;
  expect(r.value.outcome).toEqual(expected);
  expect(r.value.credentials).toEqual(['sk-continue-user-SECRET123']);
  expect(JSON.stringify(r.value.outcome)).not.toContain('SECRET123');
  // The same data is a valid fork outcome too: one record shape for both clients.
  expect(parseOutcome(r.value.outcome)).toMatchObject({ ok: true });
  // An empty userId (Continue's default) is no credential.
  const empty = parseDevDataEvent({ ...event, data: { ...data, userId: '' } });
  expect(empty.ok && empty.value.kind === 'autocomplete' && empty.value.credentials).toEqual([]);
});

test('schema 0.1.0 (nested completionOptions, no userId) and extra envelope keys parse too', () => {
  const { userId: _u, eventName: _e, schema: _s, userAgent: _a, selectedProfileId: _p, ...old } = data;
  const v010 = { ...old, useFileSuffix: true, completionOptions: { temperature: 0.01 }, disableInFiles: ['*.md'] };
  const r = parseDevDataEvent({ name: 'autocomplete', data: v010, schema: '0.1.0', level: 'all', profileId: 'p', extra: 1 });
  expect(r).toEqual({ ok: true, value: { kind: 'autocomplete', outcome: v010, credentials: [] } });
});

test('level noCode: an outcome without code, never an error; code sent anyway is dropped', () => {
  const { prompt: _p, completion: _c, prefix: _x, suffix: _s, ...noCode } = data;
  const r = parseDevDataEvent({ ...event, level: 'noCode', data: noCode });
  if (!r.ok || r.value.kind !== 'noCode') throw new Error(JSON.stringify(r));
  expect(r.value.outcome).toMatchObject({ completionId: 'c-0', accepted: true, modelName: 'Qwen2.5-Coder-1.5B' });
  expect(r.value.outcome).not.toHaveProperty('userId');
  const withCode = parseDevDataEvent({ ...event, level: 'noCode' });
  expect(withCode.ok && withCode.value.kind === 'noCode' && Object.keys(withCode.value.outcome).filter((k) => ['prompt', 'completion', 'prefix', 'suffix'].includes(k))).toEqual([]);
  // No level, no code: the same.
  expect(parseDevDataEvent({ name: 'autocomplete', data: noCode })).toMatchObject({ ok: true, value: { kind: 'noCode' } });
});

test('other event types are recognised and not parsed further', () => {
  for (const name of ['chatInteraction', 'editOutcome', 'nextEditOutcome', 'toolUsage', 'quickEdit']) {
    const body = { name, data: { prompt: 'not an outcome', userId: 'x' }, schema: '0.2.0', level: 'all' };
    expect(isDevDataEvent(body)).toBe(true);
    expect(parseDevDataEvent(body)).toEqual({ ok: true, value: { kind: 'other', name } });
  }
});

test('the fork outcome is not taken for an event: a top-level prompt, or no name / data', () => {
  expect(isDevDataEvent({ name: 'x', data: {}, prompt: 'p', completion: 'c', accepted: true })).toBe(false);
  expect(isDevDataEvent({ prompt: 'p', completion: 'c', accepted: true })).toBe(false);
  expect(isDevDataEvent({ name: 'autocomplete' })).toBe(false);
  expect(isDevDataEvent([{ name: 'a', data: {} }])).toBe(false);
});

test('errors name the field by its path in the body, without echoing values', () => {
  const cases: [object, string, RegExp][] = [
    [{ ...event, data: { ...data, accepted: 'yes' } }, 'data.accepted', /^expected boolean, received string$/],
    [{ ...event, data: { ...data, completion: undefined } }, 'data.completion', /^missing \(expected string\)$/],
    [{ ...event, data: { ...data, completionId: undefined } }, 'data.completionId', /^missing \(expected string\)$/],
    [{ ...event, data: { ...data, time: 'slow' } }, 'data.time', /^expected number, received string$/],
    [{ ...event, data: 'text' }, 'data', /^expected object, received string$/],
    [{ ...event, level: 'some' }, 'level', /all.*noCode/],
    [{ ...event, level: 'noCode', data: { completionId: 'c', accepted: 1 } }, 'data.accepted', /^expected boolean, received number$/],
  ];
  for (const [body, field, message] of cases) {
    const r = parseDevDataEvent(JSON.parse(JSON.stringify(body)));
    if (r.ok) throw new Error(`accepted: ${JSON.stringify(body)}`);
    expect(r.problem.field).toBe(field);
    expect(r.problem.message).toMatch(message);
    expect(r.problem.message).not.toContain('yes');
  }
});
