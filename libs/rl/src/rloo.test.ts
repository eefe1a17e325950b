import { leaveOneOutAdvantages } from './rloo';

describe('leaveOneOutAdvantages', () => {
  it('subtracts from each reward the mean of the other rewards of its group (hand-computed)', () => {
    // group 0, k 4: [1, 0, 0, 1]: 1 - (0 + 0 + 1) / 3 = 2/3, 0 - (1 + 0 + 1) / 3 = -2/3
    // group 1, k 4: [2, 4, 6, 8]: 2 - 18/3 = -4, 4 - 16/3 = -4/3, 6 - 14/3 = 4/3, 8 - 12/3 = 4
    const a = leaveOneOutAdvantages([1, 0, 0, 1, 2, 4, 6, 8], 4);
    [2 / 3, -2 / 3, -2 / 3, 2 / 3, -4, -4 / 3, 4 / 3, 4].forEach((x, i) => expect(a[i]).toBeCloseTo(x, 12));
    // k 3, a KL-penalised reward: [1, 0.2, -0.1]: 1 - 0.05 = 0.95, 0.2 - 0.45 = -0.25, -0.1 - 0.6 = -0.7
    const b = leaveOneOutAdvantages([1, 0.2, -0.1], 3);
    [0.95, -0.25, -0.7].forEach((x, i) => expect(b[i]).toBeCloseTo(x, 12));
    // k 2: each response against its sibling
    expect(leaveOneOutAdvantages([0.5, -0.1], 2).map((x) => +x.toFixed(12))).toEqual([0.6, -0.6]);
  });

  it('is k / (k - 1) times the mean-baseline advantage, sums to 0 per group, and is 0 in a uniform group', () => {
    const r = [0.3, 1, -0.1, 0.7, 1, 1, 1, 1];
    const a = leaveOneOutAdvantages(r, 4);
    const mean0 = (0.3 + 1 - 0.1 + 0.7) / 4;
    r.slice(0, 4).forEach((x, i) => expect(a[i]).toBeCloseTo((4 / 3) * (x - mean0), 12));
    expect(a.slice(0, 4).reduce((s, x) => s + x, 0)).toBeCloseTo(0, 12);
    expect(a.slice(4)).toEqual([0, 0, 0, 0]);
  });

  it('rejects ragged groups, groups of one and non-finite rewards', () => {
    expect(() => leaveOneOutAdvantages([1, 2, 3], 2)).toThrow('3 rewards do not split into groups of 2');
    expect(() => leaveOneOutAdvantages([1, 2], 1)).toThrow('k must be an integer >= 2');
    expect(() => leaveOneOutAdvantages([1, Infinity], 2)).toThrow('reward 1 is Infinity');
  });
});
