import type { ExecResult } from './run';
import { executionScore, passedAll, SYNTAX_PENALTY, testsPassedShare } from './score';
import { SandboxPool } from './pool';
import { scoreAll } from './batch';
import { stubPrograms } from './stubs';

const base: ExecResult = {
  syntaxOk: true,
  passed: 3,
  total: 3,
  timedOut: false,
  memoryExceeded: false,
  exitCode: 0,
  stderrTail: '',
  durationMs: 10,
  finished: true,
  outputExceeded: false,
};
const FN = 'def f(x):\n    return x\n';

describe('executionScore', () => {
  it('is 1 when every test passes, 0 when any fails, -0.1 when the code does not compile', () => {
    expect(executionScore(base, FN)).toBe(1);
    expect(executionScore({ ...base, passed: 2 }, FN)).toBe(0);
    expect(executionScore({ ...base, syntaxOk: false, passed: 0, finished: false, exitCode: 1 }, 'def f(x)\n  return x\n')).toBe(-SYNTAX_PENALTY);
    expect(SYNTAX_PENALTY).toBeLessThan(1); // shaping is worth less than passing
  });

  it('is 0 for a run that did not reach the end of its tests, however many passed', () => {
    expect(executionScore({ ...base, timedOut: true, finished: false, exitCode: null }, FN)).toBe(0);
    expect(executionScore({ ...base, finished: false, exitCode: 0 }, FN)).toBe(0); // os._exit(0) after the tests
    expect(executionScore({ ...base, outputExceeded: true }, FN)).toBe(0);
    expect(executionScore({ ...base, passed: 0, total: 0 }, FN)).toBe(0); // nothing was shown to work
  });

  it('falls back to exitCode 0 when `finished` is absent', () => {
    const { finished: _f, ...r } = base;
    expect(passedAll(r)).toBe(true);
    expect(passedAll({ ...r, exitCode: 1 })).toBe(false);
  });

  it('is 0 for a program with no statement: blank, or only comments (an unanswered prompt)', () => {
    expect(executionScore({ ...base, passed: 0 }, '')).toBe(0);
    expect(executionScore({ ...base, syntaxOk: false }, '# Write a function.\n# assert f(1) == 1\n\n   \n')).toBe(0);
  });

  it('keeps the share of tests passed as a diagnostic in [0, 1]', () => {
    expect(testsPassedShare({ ...base, passed: 1 })).toBeCloseTo(1 / 3, 12);
    expect(testsPassedShare({ ...base, passed: 5 })).toBe(1);
    expect(testsPassedShare({ ...base, passed: 0, total: 0 })).toBe(0);
  });
});

describe('no stub earns anything', () => {
  // Problems whose tests a trivial answer partly satisfies: False == 0 in Python, an echo passes a fixed point,
  // `return []` passes the empty case. The old score paid 0.5-0.7 for these.
  const problems = [
    { prompt: '# Write a function is_even(n).\n# assert is_even(4) == True\n', tests: ['assert is_even(4) == True', 'assert is_even(3) == False', 'assert is_even(0) == True'] },
    { prompt: '# Write a function evens(xs).\n# assert evens([1, 2]) == [2]\n', tests: ['assert evens([1, 2]) == [2]', 'assert evens([]) == []', 'assert evens([2, 4]) == [2, 4]'] },
    { prompt: '# Write a function count_a(s).\n# assert count_a("banana") == 3\n', tests: ['assert count_a("banana") == 3', 'assert count_a("xyz") == 0', 'assert count_a("a") == 1'] },
  ];
  const solutions = ['def is_even(n):\n    return n % 2 == 0\n', 'def evens(xs):\n    return [x for x in xs if x % 2 == 0]\n', "def count_a(s):\n    return s.count('a')\n"];

  it('scores 0 in the sandbox for every stub of every problem, where some pass a share of the tests; the solutions score 1', async () => {
    const pool = new SandboxPool({ concurrency: 2 });
    const jobs = problems.flatMap((p, i) => [
      ...stubPrograms(p).map((s) => ({ name: s.name, job: { code: p.prompt + s.response, tests: p.tests } })),
      { name: 'solution', job: { code: p.prompt + solutions[i], tests: p.tests } },
    ]);
    const runs = await scoreAll(pool, jobs.map((j) => j.job));
    const stubs = runs.filter((_, k) => jobs[k].name !== 'solution');
    expect(stubs.map((r) => r.score)).toEqual(stubs.map(() => 0));
    expect(runs.filter((_, k) => jobs[k].name === 'solution').map((r) => r.score)).toEqual([1, 1, 1]);
    // the share of tests passed is not stub-proof, which is why it is not the reward
    expect(Math.max(...stubs.map((r) => testsPassedShare(r.result)))).toBeGreaterThanOrEqual(1 / 3);
  });
});
