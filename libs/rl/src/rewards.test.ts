import { applyMissingEosPenalty, clipScores, perTokenRewards } from './rewards';

describe('perTokenRewards', () => {
  it('puts -klCoef * (logp - ref) on every response token and the score on the last real one', () => {
    const r = perTokenRewards({
      logprobs: [[-1, -2, -0.5], [-0.3, -0.7, 0]],
      refLogprobs: [[-1.5, -1, -0.5], [-0.1, -9, -9]],
      mask: [[1, 1, 1], [1, 0, 0]],
      scores: [2, -1],
      klCoef: 0.1,
    });
    // kl: row 0: 0.5, -1, 0; row 1: -0.2 then padding
    expect(r.kl[0]).toEqual([0.5, -1, 0]);
    expect(r.kl[1][0]).toBeCloseTo(-0.2, 12);
    expect(r.kl[1].slice(1)).toEqual([0, 0]);
    expect(r.rewards[0][0]).toBeCloseTo(-0.05, 12);
    expect(r.rewards[0][1]).toBeCloseTo(0.1, 12);
    expect(r.rewards[0][2]).toBeCloseTo(2, 12); // kl 0 + score 2
    expect(r.rewards[1][0]).toBeCloseTo(0.02 - 1, 12);
    expect(r.rewards[1].slice(1)).toEqual([0, 0]);
    expect(r.nonScoreReward[0]).toBeCloseTo(-0.1 * -0.5, 12);
    expect(r.nonScoreReward[1]).toBeCloseTo(0.02, 12);
  });

  it('rejects masks that are not right padded, empty responses and mismatched shapes', () => {
    const base = { logprobs: [[0, 0]], refLogprobs: [[0, 0]], scores: [1], klCoef: 0.1 };
    expect(() => perTokenRewards({ ...base, mask: [[0, 1]] })).toThrow('mask row 0 is not right padded');
    expect(() => perTokenRewards({ ...base, mask: [[0, 0]] })).toThrow('response 0 has no tokens');
    expect(() => perTokenRewards({ ...base, mask: [[1, 1]], scores: [1, 2] })).toThrow('2 scores for 1 responses');
    expect(() => perTokenRewards({ ...base, mask: [[1, 1, 0]] })).toThrow('logprobs row 0 has 2 values, the mask row has 3');
  });
});

describe('missing-EOS penalty and score clipping', () => {
  it('subtracts from or replaces the scores of responses without EOS only', () => {
    expect(applyMissingEosPenalty([1, 2, 3], [true, false, false], { mode: 'subtract', value: 1.5 })).toEqual([1, 0.5, 1.5]);
    expect(applyMissingEosPenalty([1, 2, 3], [true, false, true], { mode: 'replace', value: -1 })).toEqual([1, -1, 3]);
    expect(() => applyMissingEosPenalty([1], [true, false], { mode: 'subtract', value: 1 })).toThrow('1 scores but 2 EOS flags');
  });

  it('clips to [-limit, limit], keeps the boundaries, and 0 means off', () => {
    expect(clipScores([-7, -5, -4.9, 0, 5, 5.1], 5)).toEqual([-5, -5, -4.9, 0, 5, 5]);
    expect(clipScores([-70, 70], 0)).toEqual([-70, 70]);
    expect(() => clipScores([1], -1)).toThrow('limit must be >= 0');
  });
});
