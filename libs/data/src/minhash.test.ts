import { estimateJaccard, hashString, jaccard, lineSet, LshIndex, minHash, sharedCount } from './minhash';

/** A text of `n` distinct code lines numbered from `from`. */
const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `x_${from + i} = compute(${from + i})`).join('\n');

describe('line sets', () => {
  it('normalise spacing and leave out blank and comment-only lines', () => {
    const a = lineSet('def f(x):\n    return  x\n\n# a comment\n   \n');
    const b = lineSet('def f(x):\r\n\treturn x   # differs: a trailing comment stays\n');
    expect(a.length).toBe(2);
    expect(sharedCount(a, lineSet('def   f(x):\n return x'))).toBe(2);
    expect(sharedCount(a, b)).toBe(1);
    expect(lineSet('# only\n\n  # comments\n')).toHaveLength(0);
  });

  it('exact shared lines and Jaccard', () => {
    const a = lineSet(lines(0, 100));
    const b = lineSet(lines(50, 100)); // 50 shared of 150
    expect(sharedCount(a, b)).toBe(50);
    expect(jaccard(a, b)).toBeCloseTo(50 / 150, 10);
    expect(sharedCount(lineSet(lines(0, 10)), a)).toBe(10); // a part of a bigger file
    expect(jaccard(new Uint32Array(), new Uint32Array())).toBe(0);
  });
});

describe('MinHash', () => {
  it('estimates the Jaccard similarity of a known pair within tolerance', () => {
    // 600 shared lines of 1000 distinct: J = 0.6; 128 hashes give a standard error of sqrt(0.6 * 0.4 / 128) = 0.043.
    const a = lineSet(lines(0, 800));
    const b = lineSet(lines(200, 800));
    expect(jaccard(a, b)).toBeCloseTo(0.6, 10);
    expect(Math.abs(estimateJaccard(minHash(a), minHash(b)) - 0.6)).toBeLessThan(0.13);
    expect(estimateJaccard(minHash(a), minHash(a))).toBe(1);
    expect(estimateJaccard(minHash(a), minHash(lineSet(lines(5000, 800))))).toBeLessThan(0.05);
  });

  it('is the same on every run (fixed seeds) and refuses the empty set', () => {
    expect([...minHash(lineSet('a = 1\nb = 2')).slice(0, 3)]).toEqual([...minHash(lineSet('b = 2\na = 1')).slice(0, 3)]);
    expect(hashString('return x')).toBe(hashString('return x'));
    expect(() => minHash(new Uint32Array())).toThrow('empty set');
  });
});

describe('LSH banding', () => {
  it('makes near pairs candidates and leaves unrelated ones out', () => {
    const lsh = new LshIndex(25, 5);
    lsh.add(0, minHash(lineSet(lines(0, 200))));
    lsh.add(1, minHash(lineSet(lines(1000, 200))));
    expect(lsh.candidates(minHash(lineSet(lines(5, 200))))).toEqual([0]); // J = 195/205
    expect(lsh.candidates(minHash(lineSet(lines(9000, 200))))).toEqual([]);
    expect(lsh.candidateProbability(0.8)).toBeGreaterThan(0.999);
    expect(new LshIndex(64, 2).candidateProbability(0.3)).toBeGreaterThan(0.99);
  });

  it('checks its shape', () => {
    expect(() => new LshIndex(64, 3)).toThrow('at most 128');
  });
});
