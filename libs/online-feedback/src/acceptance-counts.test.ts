import type { LoggedEvent } from './feedback-log';
import { wilson } from '@rlhf-code/stats';
import { withRates } from '@rlhf-code/continue';
import { AcceptanceCounts } from './acceptance-counts';
import { servedRecord } from '@rlhf-code/online-core/testing';

const rec = servedRecord;

const outcome = (served: LoggedEvent['served'], accepted: boolean): LoggedEvent => ({
  type: 'event',
  seq: 1,
  received: 'now',
  source: 'continue',
  served,
  skip: null,
  outcome: { prompt: 'p', completion: 'c', accepted },
});

test('counts: silent answers, outcomes as shown, no-outcome and unmatched kept apart', () => {
  const s = new AcceptanceCounts();
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

test('upstream counts: autocomplete with code, no_code apart from unmatched, ignored events per name (bounded)', () => {
  const s = new AcceptanceCounts();
  s.recordOutcome({ ...outcome({ id: '1', version: 0, arm: 'policy' }, true), via: 'devData' });
  s.recordOutcome({ ...outcome(null, false), via: 'devData' }); // with code, matched nothing: unmatched
  s.recordOutcome({ ...outcome(null, true), via: 'devData', skip: 'noCode', outcome: { completionId: 'n', accepted: true } });
  s.recordOutcome(outcome(null, true)); // the fork's outcome: not an upstream count
  for (const name of ['chatInteraction', 'chatInteraction', 'toolUsage', 'constructor', '__proto__', 'x'.repeat(100)]) s.recordIgnoredEvent(name);
  expect(s.upstreamCounts()).toEqual({ autocomplete: 2, no_code: 1, ignored_events: { chatInteraction: 2, toolUsage: 1, constructor: 1, '(other)': 2 } });
  expect(s.unmatchedOutcomes).toBe(2);
  expect(s.acceptanceByArm().policy).toMatchObject({ shown: 1, accepted: 1 });
  for (let i = 0; i < 50; i++) s.recordIgnoredEvent(`event${i}`);
  expect(Object.keys(s.upstreamCounts().ignored_events).length).toBeLessThanOrEqual(33);
});
