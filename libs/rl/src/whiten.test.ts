import { maskedMoments, whiten } from './whiten';

describe('whiten', () => {
  const x = [[1, 2, 50], [3, 4, 60]];
  const mask = [[1, 1, 0], [1, 1, 0]];

  it('uses the masked mean and the unbiased masked variance', () => {
    // real values 1, 2, 3, 4: mean 2.5, unbiased variance (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3
    const m = maskedMoments(x, mask);
    expect(m.mean).toBe(2.5);
    expect(m.variance).toBeCloseTo(5 / 3, 12);
    expect(m.count).toBe(4);
    const w = whiten(x, mask);
    const s = 1 / Math.sqrt(5 / 3 + 1e-8);
    expect(w[0][0]).toBeCloseTo(-1.5 * s, 10);
    expect(w[1][1]).toBeCloseTo(1.5 * s, 10);
    expect([w[0][2], w[1][2]]).toEqual([0, 0]); // padding stays 0
    const after = maskedMoments(w, mask);
    expect(after.mean).toBeCloseTo(0, 12);
    expect(after.variance).toBeCloseTo(1, 6);
  });

  it('keeps the mean with shiftMean false', () => {
    const w = whiten(x, mask, { shiftMean: false });
    expect(maskedMoments(w, mask).mean).toBeCloseTo(2.5, 12);
    expect(maskedMoments(w, mask).variance).toBeCloseTo(1, 6);
  });

  it('is finite for a single value and an empty mask', () => {
    expect(whiten([[7]], [[1]])).toEqual([[0]]);
    expect(whiten([[7]], [[0]])).toEqual([[0]]);
  });
});
