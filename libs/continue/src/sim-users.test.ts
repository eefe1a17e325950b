import { simUser, type Judged } from './sim-users';

const judged = (shown: string, middle = 'x = 1', prefix = 'a = 0\n', suffix = '\nb = 2\n'): Judged => ({ prefix, suffix, middle, shown });

test('the simulated users: exact first line, compiles on one line, no comments, long enough', async () => {
  const cases = [judged('x = 1'), judged('x = 2'), judged('x = (1'), judged('x = 1  # one'), judged('x = 1\ny = 2'), judged('   '), judged('x = compute(a, b) + 1'), judged('x = compute(a, b) + (')];
  expect(await simUser('exact').accepts(cases)).toEqual([true, false, false, false, true, false, false, false]);
  expect(await simUser('compiles').accepts(cases)).toEqual([true, true, false, true, false, false, true, false]);
  expect(await simUser('no-comment').accepts(cases)).toEqual([true, true, false, false, false, false, true, false]);
  expect(await simUser('long').accepts(cases)).toEqual([false, false, false, false, false, false, true, false]);
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
