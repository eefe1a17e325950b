import { formatFim, formatRepoHeader } from '@rlhf-code/tokenizer';
import type { LoggedEvent } from './feedback-log';
import { wilson } from '@rlhf-code/stats';
import { hashPrompt, OnlineStats, withRates, type ServedRecord } from './stats';

const rec = (id: string, prompt: string, o: Partial<ServedRecord> = {}): ServedRecord => ({
  id,
  version: 0,
  arm: 'policy',
  promptHash: hashPrompt(prompt),
  versions: [0],
  blank: false,
  finishReason: 'stop',
  endedByModel: true,
  promptTokens: 10,
  completionTokens: 3,
  time: 'now',
  ...o,
});

const outcome = (served: LoggedEvent['served'], accepted: boolean): LoggedEvent => ({
  type: 'event',
  seq: 1,
  received: 'now',
  source: 'continue',
  served,
  skip: null,
  outcome: { prompt: 'p', completion: 'c', accepted },
});

describe('matching an outcome to the completion it is about', () => {
  const prompt = formatFim('def f(x):\n    return ', '\n\nprint(f(1))\n');
  const stats = new OnlineStats();
  stats.remember(rec('a', prompt), prompt, 'x + 1');

  test('the same prompt: the whole suggestion, and the model ended it itself -> eos', () => {
    expect(stats.match(prompt, 'x + 1')).toEqual({ id: 'a', version: 0, arm: 'policy', typed: 0, eos: true });
    expect(stats.match(prompt, 'x')).toMatchObject({ id: 'a', eos: false }); // Continue showed part of it
  });

  test('typed through: the prefix grew by the start of the suggestion, same suffix', () => {
    const typed = formatFim('def f(x):\n    return x', '\n\nprint(f(1))\n');
    expect(stats.match(typed, ' + 1')).toEqual({ id: 'a', version: 0, arm: 'policy', typed: 1, eos: true });
    expect(stats.match(formatFim('def f(x):\n    return y', '\n\nprint(f(1))\n'), ' + 1')).toBeNull(); // not what was suggested
    expect(stats.match(formatFim('def f(x):\n    return x', '\n'), ' + 1')).toBeNull(); // another suffix
    expect(stats.match('plain text', 'x')).toBeNull();
  });

  test('a repository header is part of the context: another header is another context', () => {
    const repo = { name: 'r', files: [{ path: 'a.py', content: 'A = 1' }], path: 'b.py' };
    const withHeader = formatRepoHeader(repo) + formatFim('y = ', '\n');
    const s = new OnlineStats();
    s.remember(rec('h', withHeader, { endedByModel: false }), withHeader, 'A + 1');
    expect(s.match(formatRepoHeader(repo) + formatFim('y = A', '\n'), ' + 1')).toEqual({ id: 'h', version: 0, arm: 'policy', typed: 1, eos: false });
    expect(s.match(formatRepoHeader({ ...repo, path: 'c.py' }) + formatFim('y = A', '\n'), ' + 1')).toBeNull();
  });
});

test('counts: silent answers, outcomes as shown, no-outcome and unmatched kept apart', () => {
  const s = new OnlineStats();
  s.recordServed(rec('1', 'p1'));
  s.recordServed(rec('2', 'p2'));
  s.recordServed(rec('3', 'p3', { blank: true }));
  s.recordServed({ ...rec('4', 'p4'), blank: undefined as unknown as boolean, shown: false }); // a requests.jsonl line from before `blank`
  s.recordServed(rec('5', 'p5', { arm: 'start' }));
  s.recordOutcome(outcome({ id: '1', version: 0, arm: 'policy' }, true));
  s.recordOutcome(outcome(null, true)); // matched nothing: never the policy's
  s.recordOutcome(outcome({ id: '5', version: 0, arm: 'start' }, false));
  const v0 = s.acceptanceByVersion()['0'];
  expect(v0).toMatchObject({ requests: 4, silent: 2, shown: 1, accepted: 1, rejected: 0, no_outcome: 1, suggestion_rate: 0.25, acceptance_rate: 1 });
  expect(v0.acceptance_ci95).toEqual(wilson(1, 1));
  expect(s.acceptanceByArm().start).toMatchObject({ requests: 1, shown: 1, rejected: 1, no_outcome: 0 });
  expect(s.unmatchedOutcomes).toBe(1);
  expect(withRates({ requests: 0, silent: 0, shown: 0, accepted: 0, rejected: 0 })).toMatchObject({ acceptance_rate: null, acceptance_ci95: null });
});
