import type { ExecResult } from './run';
import { executionScore, qualityChecks } from './score';

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
  it('gives 1 to code that compiles, passes every test and is a short function', () => {
    expect(executionScore(base, FN)).toBe(1);
  });

  it('weights syntax 0.3, tests 0.5, quality 0.2', () => {
    // compiles, 1 of 3 tests, clean run, no def, short: 0.3 + 0.5/3 + 0.2 * 2/3 = 0.6
    expect(executionScore({ ...base, passed: 1 }, 'x = 1\n')).toBeCloseTo(0.6, 12);
    // syntax error in a function: 0 + 0 + 0.2 * (0 + 1 + 1) / 3
    expect(executionScore({ ...base, syntaxOk: false, passed: 0, finished: false, exitCode: 1 }, 'def f(x)\n  return x\n')).toBeCloseTo(0.4 / 3, 12);
    // compiles, times out before any test: 0.3 + 0 + 0.2 * 2/3
    expect(executionScore({ ...base, passed: 0, timedOut: true, finished: false, exitCode: null }, FN)).toBeCloseTo(0.3 + 0.4 / 3, 12);
    // all tests pass but the program is far too long: 0.3 + 0.5 + 0.2 * 2/3
    const long = FN + 'y = 0\n'.repeat(100);
    expect(executionScore(base, long)).toBeCloseTo(0.8 + 0.4 / 3, 12);
  });

  it('scores the test term 0 when there are no tests', () => {
    expect(executionScore({ ...base, passed: 0, total: 0 }, FN)).toBeCloseTo(0.5, 12);
  });

  it('does not call a run that ended early (os._exit(0)) clean', () => {
    const r = { ...base, passed: 0, finished: false, exitCode: 0 };
    expect(qualityChecks(r, FN)).toEqual({ ranCleanly: false, definesFunction: true, reasonableSize: true });
    expect(executionScore(r, FN)).toBeCloseTo(0.3 + 0.4 / 3, 12);
  });

  it('falls back to exitCode 0 when `finished` is absent', () => {
    const { finished: _f, ...r } = base;
    expect(qualityChecks(r, FN).ranCleanly).toBe(true);
    expect(qualityChecks({ ...r, exitCode: 1 }, FN).ranCleanly).toBe(false);
  });

  it('recognises function definitions, async and indented ones too', () => {
    expect(qualityChecks(base, 'class A:\n    def m(self): pass\n').definesFunction).toBe(true);
    expect(qualityChecks(base, 'async def g(): pass\n').definesFunction).toBe(true);
    expect(qualityChecks(base, '# def f(x): in a comment is not code\nundefined = 1\n').definesFunction).toBe(false);
  });

  it('scores 0 for a program with no statement: blank, or only comments (an unanswered prompt)', () => {
    expect(executionScore({ ...base, passed: 0 }, '')).toBe(0);
    expect(executionScore({ ...base, passed: 0 }, '# Write a function.\n# assert f(1) == 1\n\n   \n')).toBe(0);
    // one statement is enough to be scored as code: 0.3 + 0 + 0.2 * 2/3
    expect(executionScore({ ...base, passed: 0 }, '# Write a function.\npass\n')).toBeCloseTo(0.3 + 0.4 / 3, 12);
  });

  it('stays in [0, 1] for inconsistent inputs', () => {
    expect(executionScore({ ...base, passed: 5, total: 3 }, FN)).toBe(1);
    expect(executionScore({ ...base, passed: -1 }, 'x')).toBeGreaterThanOrEqual(0);
  });
});
