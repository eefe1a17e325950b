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
