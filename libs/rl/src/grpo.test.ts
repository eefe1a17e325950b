import { groupAdvantages } from './grpo';

describe('groupAdvantages', () => {
  it('normalises each group by its own mean and unbiased std', () => {
    // group 0: [1, 0, 0, 1]: mean 0.5, std sqrt(1/3); group 1: [2, 4, 6, 8]: mean 5, std sqrt(20/3)
    const g = groupAdvantages([1, 0, 0, 1, 2, 4, 6, 8], 4);
    const s0 = Math.sqrt(1 / 3) + 1e-4;
    const s1 = Math.sqrt(20 / 3) + 1e-4;
    const expected = [0.5 / s0, -0.5 / s0, -0.5 / s0, 0.5 / s0, -3 / s1, -1 / s1, 1 / s1, 3 / s1];
    expected.forEach((a, i) => expect(g.advantages[i]).toBeCloseTo(a, 10));
    expect([g.groups, g.zeroVarianceGroups]).toEqual([2, 0]);
  });

  it('gives zero-variance groups advantage 0 and reports how many', () => {
    const g = groupAdvantages([1, 1, 1, 0, 1, 0.5, 0.3, 0.3, 0.3], 3);
    expect(g.zeroVarianceGroups).toBe(2);
    expect(g.uniform).toEqual([true, false, true]);
    expect(g.advantages.slice(0, 3)).toEqual([0, 0, 0]);
    expect(g.advantages.slice(6)).toEqual([0, 0, 0]);
    expect(g.advantages[3]).toBeLessThan(0);
    expect(g.advantages[4]).toBeGreaterThan(0);
  });

  it('without std scaling keeps only the mean baseline', () => {
    expect(groupAdvantages([1, 3], 2, { scaleByStd: false }).advantages).toEqual([-1, 1]);
  });

  it('rejects ragged groups, groups of one and non-finite rewards', () => {
    expect(() => groupAdvantages([1, 2, 3], 2)).toThrow('3 rewards do not split into groups of 2');
    expect(() => groupAdvantages([1, 2], 1)).toThrow('groupSize must be an integer >= 2');
    expect(() => groupAdvantages([1, NaN], 2)).toThrow('reward 1 is NaN');
  });
});
