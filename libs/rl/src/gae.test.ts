import { computeGae } from './gae';

/** Independent definition: A_t = sum_l (gamma * lambda)^l delta_{t+l}, with V = 0 after the last token. */
function naiveGae(r: number[], v: number[], gamma: number, lam: number): number[] {
  const n = r.length;
  const delta = r.map((rt, t) => rt + gamma * (t + 1 < n ? v[t + 1] : 0) - v[t]);
  return delta.map((_, t) => {
    let a = 0;
    for (let l = 0; t + l < n; l++) a += (gamma * lam) ** l * delta[t + l];
    return a;
  });
}

describe('computeGae', () => {
  it('matches a 4-token example worked out by hand', () => {
    // gamma 0.9, lambda 0.5; rewards [0, 0, 0, 1], values [0.5, 0.4, 0.6, 0.8]
    // delta3 = 1 - 0.8 = 0.2
    // delta2 = 0 + 0.9*0.8 - 0.6 = 0.12
    // delta1 = 0 + 0.9*0.6 - 0.4 = 0.14
    // delta0 = 0 + 0.9*0.4 - 0.5 = -0.14
    // A3 = 0.2; A2 = 0.12 + 0.45*0.2 = 0.21; A1 = 0.14 + 0.45*0.21 = 0.2345; A0 = -0.14 + 0.45*0.2345 = -0.034475
    const { advantages, returns } = computeGae([[0, 0, 0, 1]], [[0.5, 0.4, 0.6, 0.8]], [[1, 1, 1, 1]], 0.9, 0.5);
    const expected = [-0.034475, 0.2345, 0.21, 0.2];
    expected.forEach((a, t) => expect(advantages[0][t]).toBeCloseTo(a, 12));
    [0.465525, 0.6345, 0.81, 1.0].forEach((x, t) => expect(returns[0][t]).toBeCloseTo(x, 12));
  });

  it('agrees with the naive sum on right-padded rows and ignores what is under the padding', () => {
    const rewards = [[0.1, -0.2, 0.3, 1.5, 99], [0.5, 2, 99, 99, 99]];
    const values = [[0.3, 0.1, -0.4, 0.2, 99], [1, -1, 99, 99, 99]];
    const mask = [[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]];
    const { advantages, returns } = computeGae(rewards, values, mask, 0.95, 0.9);
    [4, 2].forEach((n, b) => {
      const ref = naiveGae(rewards[b].slice(0, n), values[b].slice(0, n), 0.95, 0.9);
      ref.forEach((a, t) => {
        expect(advantages[b][t]).toBeCloseTo(a, 10);
        expect(returns[b][t]).toBeCloseTo(a + values[b][t], 10);
      });
      for (let t = n; t < 5; t++) expect([advantages[b][t], returns[b][t]]).toEqual([0, 0]);
    });
  });

  it('with gamma = lambda = 1 gives reward-to-go minus value', () => {
    const { advantages } = computeGae([[1, 2, 3]], [[0.5, 0.5, 0.5]], [[1, 1, 1]], 1, 1);
    expect(advantages[0]).toEqual([5.5, 4.5, 2.5]);
  });

  it('rejects bad gamma / lambda and left-padded masks', () => {
    expect(() => computeGae([[1]], [[0]], [[1]], 1.1, 0.9)).toThrow('gamma must be in [0, 1]');
    expect(() => computeGae([[1, 1]], [[0, 0]], [[0, 1]], 1, 0.9)).toThrow('not right padded');
  });
});
