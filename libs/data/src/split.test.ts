import { dataRandom, shuffle } from './random';
import { batches, groupByLength, splitHeldOut } from './split';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('seeded randomness', () => {
  test('matches seedrandom (ARC4) reference output', () => {
    // Value published in the seedrandom README for seed "hello.".
    expect(dataRandom('hello.')()).toBe(0.9282578795792454);
    expect(dataRandom(42)()).toBe(dataRandom('42')());
  });

  test('shuffle is a deterministic permutation and leaves its input alone', () => {
    const items = range(50);
    const a = shuffle(items, 7);
    expect(a).toEqual(shuffle(items, 7));
    expect([...a].sort((x, y) => x - y)).toEqual(items);
    expect(a).not.toEqual(items);
    expect(shuffle(items, 8)).not.toEqual(a);
    expect(items).toEqual(range(50));
  });

  test('shuffle puts each item at each position about equally often', () => {
    // 3 items, 6000 seeds: each of the 6 orders should appear ~1000 times.
    const counts = new Map<string, number>();
    for (let s = 0; s < 6000; s++) {
      const k = shuffle(['a', 'b', 'c'], s).join('');
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    for (const c of counts.values()) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });
});

describe('splitHeldOut', () => {
  // 40 prompts with 1..4 responses each.
  const records = range(40).flatMap((p) => range((p % 4) + 1).map((r) => ({ prompt: `prompt ${p}`, response: `r${r}` })));

  test('keeps every prompt group on one side, keeps input order, and is deterministic by seed', () => {
    const { train, heldOut } = splitHeldOut(records, { fraction: 0.2, seed: 'abc' });
    expect(train.length + heldOut.length).toBe(records.length);
    const heldPrompts = new Set(heldOut.map((r) => r.prompt));
    expect(train.filter((r) => heldPrompts.has(r.prompt))).toEqual([]);
    for (const p of heldPrompts) {
      expect(heldOut.filter((r) => r.prompt === p)).toEqual(records.filter((r) => r.prompt === p));
    }
    // Input order within each side.
    expect(train).toEqual(records.filter((r) => !heldPrompts.has(r.prompt)));
    expect(heldOut).toEqual(records.filter((r) => heldPrompts.has(r.prompt)));
    // 100 records, target 20: groups are added until >= 20, and the last group added has at most 4 records.
    expect(heldOut.length).toBeGreaterThanOrEqual(20);
    expect(heldOut.length).toBeLessThan(24);

    expect(splitHeldOut(records, { fraction: 0.2, seed: 'abc' })).toEqual({ train, heldOut });
    expect(splitHeldOut(records, { fraction: 0.2, seed: 'abd' }).heldOut).not.toEqual(heldOut);
  });

  test('with one record per key the held-out size is exactly round(fraction * n)', () => {
    const xs = range(100).map((i) => ({ id: i }));
    const { train, heldOut } = splitHeldOut(xs, { fraction: 0.1, seed: 1, key: (x) => String(x.id) });
    expect(heldOut).toHaveLength(10);
    expect(train).toHaveLength(90);
  });

  test('fraction 0 holds nothing out; a tiny fraction still holds out one group; one group is always kept for training', () => {
    expect(splitHeldOut(records, { fraction: 0, seed: 1 })).toEqual({ train: records, heldOut: [] });
    const tiny = splitHeldOut(range(10).map((i) => ({ prompt: `p${i}` })), { fraction: 0.01, seed: 1 });
    expect([tiny.train.length, tiny.heldOut.length]).toEqual([9, 1]);
    const two = splitHeldOut([{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'b' }], { fraction: 0.9, seed: 3 });
    expect(two.train.length).toBeGreaterThan(0);
    expect(two.heldOut.length).toBeGreaterThan(0);
  });

  test('bad input', () => {
    expect(() => splitHeldOut(records, { fraction: 1, seed: 1 })).toThrow('splitHeldOut: fraction must be in [0, 1), got 1');
    expect(() => splitHeldOut(records, { fraction: NaN, seed: 1 })).toThrow('got NaN');
    expect(() => splitHeldOut([{ prompt: 'a' }, { prompt: 'a' }], { fraction: 0.5, seed: 1 })).toThrow(
      'splitHeldOut: need at least 2 distinct keys to hold some out, got 1',
    );
    expect(() => splitHeldOut([{ text: 'a' }], { fraction: 0.5, seed: 1 })).toThrow(
      'splitHeldOut: record has no string "prompt"; pass options.key',
    );
  });
});

describe('batches', () => {
  test('consecutive batches, last one short unless dropLast', () => {
    expect(batches(range(7), 3)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(batches(range(7), 3, { dropLast: true })).toEqual([[0, 1, 2], [3, 4, 5]]);
    expect(batches(range(6), 3, { dropLast: true })).toEqual([[0, 1, 2], [3, 4, 5]]);
    expect(batches([], 3)).toEqual([]);
  });

  test('shuffled batches are the seeded shuffle cut into pieces', () => {
    const b = batches(range(10), 4, { shuffle: true, seed: 'e1' });
    expect(b.map((x) => x.length)).toEqual([4, 4, 2]);
    expect(b.flat()).toEqual(shuffle(range(10), 'e1'));
    expect(batches(range(10), 4, { shuffle: true, seed: 'e1' })).toEqual(b);
    expect(batches(range(10), 4, { shuffle: true, seed: 'e1', dropLast: true })).toEqual(b.slice(0, 2));
  });

  test('size must be a positive integer', () => {
    expect(() => batches(range(3), 0)).toThrow('batches: size must be a positive integer, got 0');
    expect(() => batches(range(3), 1.5)).toThrow('got 1.5');
  });
});

describe('groupByLength', () => {
  it('sorts each megabatch of batchSize x megabatch items by length, longest first, and keeps every item', () => {
    const items = [3, 9, 1, 7, 5, 2, 8, 4, 6, 0];
    // batchSize 2, megabatch 2: megabatches of 4 items
    expect(groupByLength(items, (x) => x, 2, 2)).toEqual([9, 7, 3, 1, 8, 5, 4, 2, 6, 0]);
    expect(groupByLength(items, (x) => x, 2, 2).sort()).toEqual([...items].sort());
  });

  it('makes batches that pad less than random ones', () => {
    const lengths = Array.from({ length: 400 }, (_, i) => (i * 7919) % 300);
    const padding = (xs: number[]) => batches(xs, 8).reduce((s, b) => s + b.reduce((t, x) => t + Math.max(...b) - x, 0), 0);
    expect(padding(groupByLength(lengths, (x) => x, 8))).toBeLessThan(padding(lengths) / 4);
  });
});
