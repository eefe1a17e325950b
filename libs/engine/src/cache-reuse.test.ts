// cacheReusePlan (llamacpp.ts): which spans of a sequence's held tokens to remove so that what stays is the prompt's
// longest reachable prefix, against prompts cut the way Continue cuts them.
import { cacheReusePlan } from './llamacpp';

/** The held tokens once `erase` is applied (what the sequence holds after eraseContextTokenRanges). */
const apply = (held: number[], erase: { start: number; end: number }[]) => held.filter((_, i) => !erase.some((r) => i >= r.start && i < r.end));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('cacheReusePlan', () => {
  test('without reuse (minRun 0): the shared prefix, the rest removed', () => {
    const held = [...range(0, 50), 900, 901];
    const prompt = [...range(0, 50), 7, 8];
    expect(cacheReusePlan(held, prompt, 0)).toEqual({ erase: [{ start: 50, end: 52 }], kept: 50 });
  });

  test("a span lost near the front (the prefix window's first line): removed, and the rest kept", () => {
    // suffix | snippet | line 1 | lines 2-5 | generated  ->  suffix | snippet | lines 2-5 | new typing
    const held = [...range(0, 40), ...range(100, 110), ...range(200, 260), 990, 991];
    const prompt = [...range(0, 40), ...range(200, 260), 5, 6, 7];
    const plan = cacheReusePlan(held, prompt, 16);
    expect(plan.erase).toEqual([{ start: 40, end: 50 }, { start: 110, end: 112 }]);
    expect(plan.kept).toBe(100); // 40 shared + the 60 tokens of lines 2-5
    expect(apply(held, plan.erase)).toEqual(prompt.slice(0, plan.kept));
  });

  test('two spans lost (the snippet loses lines, the prefix its first line): both removed', () => {
    const held = [...range(0, 30), ...range(300, 320), ...range(400, 440), ...range(500, 505), ...range(600, 640)];
    const prompt = [...range(0, 30), ...range(300, 310), ...range(400, 440), ...range(600, 640), 1, 2];
    const plan = cacheReusePlan(held, prompt, 8);
    expect(apply(held, plan.erase)).toEqual(prompt.slice(0, plan.kept));
    expect(plan.kept).toBe(prompt.length - 2);
  });

  test('a run shorter than minRun is not reused (a chance match of a few tokens keeps nothing)', () => {
    const held = [...range(0, 20), 50, 51, 52, ...range(700, 730)];
    const prompt = [...range(0, 20), 51, 52, 9, 9, 9];
    const plan = cacheReusePlan(held, prompt, 4);
    expect(plan).toEqual({ erase: [{ start: 20, end: held.length }], kept: 20 });
  });

  test('an insertion cannot be kept by removing: from the insertion on, prefilled', () => {
    const held = range(0, 60);
    const prompt = [...range(0, 30), 999, ...range(30, 60)];
    const plan = cacheReusePlan(held, prompt, 8);
    expect(plan.kept).toBe(30);
    expect(apply(held, plan.erase)).toEqual(prompt.slice(0, 30));
  });

  test('the same prompt again keeps everything; an empty cache keeps nothing', () => {
    expect(cacheReusePlan(range(0, 10), range(0, 10), 4)).toEqual({ erase: [], kept: 10 });
    expect(cacheReusePlan([], range(0, 10), 4)).toEqual({ erase: [], kept: 0 });
  });
});
