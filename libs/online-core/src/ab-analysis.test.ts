// The A/B analysis against numbers worked out by hand.
import { signFlipTest } from '@rlhf-code/stats';
import { analyseArms, formatArmAnalysis, UTILITY } from './ab-analysis';
import { EXPERIMENT_ARMS } from './arms';

// Four positions in two files, served by `start` and by `x`:
//   position  file  start                 x
//   0         a     shown, rejected       shown, accepted
//   1         a     silent                shown, accepted
//   2         b     shown, accepted       shown, accepted
//   3         b     shown, rejected       silent
const r = (position: number, arm: string, shown: boolean, accepted: boolean) => ({ position, file: position < 2 ? 'a' : 'b', arm, shown, accepted });
const records = [
  r(0, 'start', true, false),
  r(1, 'start', false, false),
  r(2, 'start', true, true),
  r(3, 'start', true, false),
  r(0, 'x', true, true),
  r(1, 'x', true, true),
  r(2, 'x', true, true),
  r(3, 'x', false, false),
];

test('per arm: accepted per request, utility per request (+0.75 / -0.25 / 0), acceptance of shown', () => {
  expect(UTILITY).toEqual({ accepted: 0.75, rejected: -0.25 });
  const a = analyseArms(records, []);
  // start: 1 of 4 accepted; utility (-0.25 + 0 + 0.75 - 0.25) / 4 = 0.0625; 1 of 3 shown accepted.
  expect(a.arms.start).toMatchObject({ requests: 4, shown: 3, accepted: 1, rejected: 2, silent: 1, accepted_per_request: 0.25, acceptance_rate: 1 / 3 });
  expect(a.arms.start.utility_per_request).toBeCloseTo(0.0625, 12);
  // x: 3 of 4 accepted; utility 3 x 0.75 / 4 = 0.5625; 3 of 3 shown.
  expect(a.arms.x).toMatchObject({ requests: 4, shown: 3, accepted: 3, accepted_per_request: 0.75, acceptance_rate: 1 });
  expect(a.arms.x.utility_per_request).toBeCloseTo(0.5625, 12);
});

test('x - start: paired differences over positions, a bootstrap interval over files, a sign-flip p', () => {
  const [c] = analyseArms(records, [['x', 'start']], { seed: 1 }).contrasts;
  expect(c).toMatchObject({ arm: 'x', versus: 'start', positions: 4, files: 2 });
  // Accepted: differences 1, 1, 0, 0 (mean 0.5). File a's positions differ by 1, 1 and file b's by 0, 0, so a draw of
  // two files has mean 1 (a, a), 0.5 (a, b) or 0 (b, b): the interval is [0, 1], around the mean.
  expect(c.accepted_per_request).toMatchObject({ arm: 0.75, versus: 0.25, diff: 0.5, ci95: [0, 1] });
  // Two non-zero differences of 1: sums 2, 0, 0, -2; |sum| >= 2 in 2 of 4.
  expect(c.accepted_per_request.p).toBe(0.5);
  // Utility: differences 1, 0.75, 0, 0.25 (mean 0.5); files a: 1.75 over 2, b: 0.25 over 2.
  expect(c.utility_per_request.diff).toBeCloseTo(0.5, 12);
  expect(c.utility_per_request.ci95![0]).toBeCloseTo(0.125, 12); // (b, b): (0 + 0.25) / 2
  expect(c.utility_per_request.ci95![1]).toBeCloseTo(0.875, 12); // (a, a): (1 + 0.75) / 2
  expect(c.utility_per_request.ci95![0]).toBeLessThan(c.utility_per_request.diff!);
  // Signs of 1, 0.75 and 0.25 (the 0 left out): |sum| >= 2 only for all + or all -: 2 of 8.
  expect(c.utility_per_request.p).toBe(signFlipTest([1, 0.75, 0, 0.25]).p);
  expect(c.utility_per_request.p).toBe(0.25);
  // Acceptance of shown: 3/3 - 1/3 = 2/3, no per-position test. Draws: (a, a) x 2/2 - start 0/2 = 1; (b, b) x 2/2 -
  // start 2/4 = 0.5; (a, b) 1 - 1/3.
  expect(c.acceptance_rate.diff).toBeCloseTo(2 / 3, 12);
  expect(c.acceptance_rate.p).toBeNull();
  expect(c.acceptance_rate.ci95![0]).toBeCloseTo(0.5, 12);
  expect(c.acceptance_rate.ci95![1]).toBeCloseTo(1, 12);
});

test('seeded; a position served twice by one arm, or an arm with no records, is an error naming it; the tables', () => {
  const a = analyseArms(records, [['x', 'start']], { seed: 4, resamples: 300 });
  expect(analyseArms(records, [['x', 'start']], { seed: 4, resamples: 300 })).toEqual(a);
  expect(a.method).toMatchObject({ resamples: 300, seed: 4 });
  expect(() => analyseArms([...records, r(2, 'x', false, false)], [])).toThrow('position 2 was served twice by arm "x"');
  expect(() => analyseArms(records, [['rank', 'start']])).toThrow('contrast rank - start: no records of arm "rank" (arms: start, x)');
  const table = formatArmAnalysis(a, EXPERIMENT_ARMS).replace(/ +\|/g, ' |').replace(/\| +/g, '| '); // the cells without their padding
  expect(table).toContain('| start | start model, streamed | 4 | 3 | 1 | 33.3% [');
  expect(table).toContain('| x - start | 4 (2) | +50.0 pp [+0.0 pp, +100.0 pp], p 0.50 |');
});
