import { ArmRouter } from './arms';

test('a fraction of requests goes to the frozen start arm, reproducibly by seed', () => {
  const n = 4000;
  const count = (r: ArmRouter) => Array.from({ length: n }, () => r.route()).filter((a) => a === 'start').length;
  const share = count(new ArmRouter(0.2, 7)) / n;
  // Binomial(4000, 0.2): sd = 0.0063; 4 sd bounds.
  expect(share).toBeGreaterThan(0.2 - 0.026);
  expect(share).toBeLessThan(0.2 + 0.026);
  expect(count(new ArmRouter(0.2, 7))).toBe(count(new ArmRouter(0.2, 7)));
  expect(count(new ArmRouter(0, 1))).toBe(0);
  expect(count(new ArmRouter(1, 1))).toBe(n);
  expect(() => new ArmRouter(1.5)).toThrow(/startFraction must be in \[0, 1\]/);
});
