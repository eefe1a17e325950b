import { RewardSchema } from '@rlhf-code/online-core';
import { reward, RewardScheme, type EventKind } from './rewards';

test('cursor scheme (default p = 0.25): accepted 0.75, rejected -0.25, silent 0; advantage = reward - batch mean', () => {
  const cfg = RewardSchema.parse({});
  expect(cfg).toMatchObject({ scheme: 'cursor', p: 0.25, cursorBaseline: 'batch_mean' });
  expect([reward('accepted', cfg), reward('rejected', cfg), reward('silent', cfg)]).toEqual([0.75, -0.25, 0]);
  const r = new RewardScheme(RewardSchema.parse({ p: 0.4 })).batch(['accepted', 'rejected', 'silent', 'rejected']);
  expect(r.rewards).toEqual([0.6, -0.4, 0, -0.4]);
  // mean -0.05: the silent sample beside two rejections is reinforced
  expect(r.baseline).toBeCloseTo(-0.05, 12);
  r.advantages.forEach((a, i) => expect(a).toBeCloseTo([0.65, -0.35, 0.05, -0.35][i], 12));
  // A batch of rejections and silences only: staying silent gets the positive advantage.
  const quiet = new RewardScheme(cfg).batch(['rejected', 'rejected', 'rejected', 'silent']);
  expect(quiet.advantages.map((a) => Math.sign(a))).toEqual([-1, -1, -1, 1]);
});

test('cursor scheme without a baseline: advantage = reward, silent samples carry no gradient', () => {
  const r = new RewardScheme(RewardSchema.parse({ p: 0.4, cursorBaseline: 'none' })).batch(['accepted', 'rejected', 'silent']);
  expect(r.advantages).toEqual([0.6, -0.4, 0]);
  expect(r.baseline).toBe(0);
});

test('binary scheme: 1 / 0 minus a running-mean baseline, silent samples neutral', () => {
  const s = new RewardScheme(RewardSchema.parse({ scheme: 'binary', baselineMomentum: 0.5 }));
  const kinds: EventKind[] = ['accepted', 'rejected', 'rejected', 'rejected', 'silent'];
  // First batch: baseline = its own mean over outcomes = 1/4.
  const a = s.batch(kinds);
  expect(a.rewards).toEqual([1, 0, 0, 0, 0]);
  expect(a.baseline).toBeCloseTo(0.25);
  expect(a.advantages.map((x) => +x.toFixed(6))).toEqual([0.75, -0.25, -0.25, -0.25, 0]);
  expect(s.baseline).toBeCloseTo(0.25); // 0.5 * 0.25 + 0.5 * 0.25
  // Second batch (mean 1): uses b = 0.25, then b <- 0.5 * 0.25 + 0.5 * 1 = 0.625.
  const b = s.batch(['accepted', 'accepted']);
  expect(b.advantages).toEqual([0.75, 0.75]);
  expect(s.baseline).toBeCloseTo(0.625);
});
