import { simUser, type Judged } from './sim-users';

const judged = (shown: string, middle = 'x = 1', prefix = 'a = 0\n', suffix = '\nb = 2\n'): Judged => ({ prefix, suffix, middle, shown });

test('the simulated users: exact first line, compiles on one line, no comments, long enough', async () => {
  const cases = [judged('x = 1'), judged('x = 2'), judged('x = (1'), judged('x = 1  # one'), judged('x = 1\ny = 2'), judged('   '), judged('x = compute(a, b) + 1'), judged('x = compute(a, b) + (')];
  expect(await simUser('exact').accepts(cases)).toEqual([true, false, false, false, true, false, false, false]);
  expect(await simUser('compiles').accepts(cases)).toEqual([true, true, false, true, false, false, true, false]);
  expect(await simUser('no-comment').accepts(cases)).toEqual([true, true, false, false, false, false, true, false]);
  expect(await simUser('long').accepts(cases)).toEqual([false, false, false, false, false, false, true, false]);
});

test('the close user: the first non-blank line within 30% edits of the line they meant', async () => {
  const meant = 'total = compute(a, b)'; // 21 characters
  // Edits / longer length: 0, 1/21, 3/21 (after the blank line), 6/25, 7/21, 11/32, blank.
  const cases = [meant, 'total = compute(a, c)', '\ntotal = comp(a, b)', 'total = compute(x, y, zz)', 'total = f(a, b)', 'total = compute(a, b)  # the sum', '  '];
  expect(await simUser('close').accepts(cases.map((shown) => judged(shown, meant)))).toEqual([true, true, true, true, false, false, false]);
});

test('the coin user (negative control): 40% of suggestions whatever they are, the same answer for the same case', async () => {
  const cases = Array.from({ length: 2000 }, (_, i) => judged(`x = ${i % 2 === 0 ? '(' : ''}${i}`));
  const answers = await simUser('coin').accepts(cases);
  const rate = (pick: (i: number) => boolean) => answers.filter((a, i) => pick(i) && a).length / answers.filter((_, i) => pick(i)).length;
  // Binomial SE at n = 1000: 0.0155; broken code (even i) is accepted as often as working code.
  expect(Math.abs(rate((i) => i % 2 === 0) - 0.4)).toBeLessThan(0.05);
  expect(Math.abs(rate((i) => i % 2 === 1) - 0.4)).toBeLessThan(0.05);
  expect(await simUser('coin').accepts(cases)).toEqual(answers);
  expect(await simUser('coin').accepts([judged('  ')])).toEqual([false]);
});

/** Acceptance rate over many positions that share the suggestion's distance to the meant line. */
async function rateAt(user: 'graded' | 'lenient' | 'terse' | 'whole', make: (i: number) => Judged, n = 2000): Promise<number> {
  const cases = Array.from({ length: n }, (_, i) => make(i));
  return (await simUser(user).accepts(cases)).filter(Boolean).length / n;
}

test('graded, lenient and terse accept with the probability their edit distance gives, up to binomial noise', async () => {
  // Each position i is a different file (prefix), so the hash draws are independent; binomial SE at n = 2000 <= 0.011.
  const at = (shown: string, meant: string, extra = '') => (i: number) => judged(shown + extra, meant, `f${i} = 0\n`);
  const meant = 'total = compute(a, b)'; // 21 characters; 'total = compute(a, c)' is 1 edit: d = 1/21
  expect(await rateAt('graded', at(meant, meant))).toBeCloseTo(0.9, 1);
  expect(Math.abs((await rateAt('graded', at('total = compute(a, c)', meant))) - 0.9 * Math.exp(-1 / 21 / 0.15))).toBeLessThan(0.035);
  expect(await rateAt('graded', at('print(x)', meant))).toBeLessThan(0.01);
  expect(Math.abs((await rateAt('lenient', at(meant, meant))) - 0.85)).toBeLessThan(0.035);
  expect(Math.abs((await rateAt('lenient', at('total = f(a, b)', meant))) - 0.3)).toBeLessThan(0.035); // d = 7/21
  expect(Math.abs((await rateAt('lenient', at('print(x)', meant))) - 0.05)).toBeLessThan(0.02);
  // terse: the right first line followed by a second line is accepted 0.3 times as often as alone
  expect(Math.abs((await rateAt('terse', at(meant, meant, '\ny = 2'))) - 0.27)).toBeLessThan(0.035);
});

test('the whole user weighs every shown line against the meant text', async () => {
  const { wholeProbability } = await import('./sim-users');
  expect(wholeProbability('x = 1', 'x = 1')).toBeCloseTo(0.9);
  expect(wholeProbability('x = 1\ny = 2', 'x = 1\ny = 2\n')).toBeCloseTo(0.9);
  expect(wholeProbability('x = 1\nzz', 'x = 1\ny = 2')).toBeCloseTo((0.9 * 6) / 8); // 'x = 1\n' agrees, 'zz' does not
  expect(wholeProbability('x = 2', 'x = 1')).toBe(0);
  expect(wholeProbability('   ', 'x = 1')).toBe(0);
});

test('the intent users decide on what the user meant: the same suggestion in the same file gets different answers', async () => {
  // What the gate sees (file, suggestion) is identical in both halves; only the meant line differs.
  for (const user of ['exact', 'close', 'graded', 'lenient', 'whole', 'terse'] as const) {
    const right = Array.from({ length: 400 }, (_, i) => judged('total = compute(a, b)', 'total = compute(a, b)', `f${i} = 0\n`));
    const wrong = right.map((c) => ({ ...c, middle: 'return None' }));
    const rate = async (cases: Judged[]) => (await simUser(user).accepts(cases)).filter(Boolean).length / cases.length;
    expect((await rate(right)) - (await rate(wrong))).toBeGreaterThan(0.5);
    expect(await simUser(user).accepts(right)).toEqual(await simUser(user).accepts(right)); // a repeat gets the same answers
  }
});
