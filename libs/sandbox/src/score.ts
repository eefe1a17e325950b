// executionScore: what running a piece of code against its tests is worth. It is RL's default reward, the score the
// reward model regresses on (rm_data), and eval's exec_score.
//
//   score = 1                 every test passed (pass@1's criterion: no timeout, no crash, every assert held)
//         = -SYNTAX_PENALTY   the code has a statement and does not compile
//         = 0                 anything else: it compiles and some test failed, or it has no statement at all
//
// Why pass/fail and not the share of tests passed: a trivial program passes some asserts of many problems
// (`return False` passes `assert is_prime(4) == False`; `return 0` passes `assert f(x) == False` since False == 0 in
// Python), so partial credit pays stubs. A program passes *every* test only by computing the answers (or by problems
// whose tests a constant satisfies, which eval's stub rows expose). The share of tests passed is still measured
// (testsPassedShare, eval's tests_passed) as a diagnostic, never as the reward.
//
// The compile term is shaping, not a goal: it is a penalty (never a payment), so a stub that compiles earns exactly 0,
// and its size (0.1) is worth far less than passing. It keeps RL's samples valid Python while no sample of a prompt
// passes yet (a GRPO group that fails every test still learns "compile" from it instead of nothing).
import type { ExecResult } from './run';

/** What not compiling costs (a penalty; passing every test is worth 1). */
export const SYNTAX_PENALTY = 0.1;

/** True when `code` has a line that is neither blank nor a comment. */
export function hasStatements(code: string): boolean {
  return code.split('\n').some((line) => {
    const t = line.trim();
    return t !== '' && !t.startsWith('#');
  });
}

/** Every test ran and passed: at least one test, compiled, not timed out, the harness reached the end. */
export function passedAll(r: ExecResult): boolean {
  const finished = r.finished ?? r.exitCode === 0; // results from before `finished` existed
  return r.syntaxOk && finished && !r.timedOut && !r.memoryExceeded && !r.outputExceeded && r.total > 0 && r.passed === r.total;
}

/** Share of the tests that passed, in [0, 1] (0 without tests): a diagnostic that stubs can earn, not a reward. */
export function testsPassedShare(r: ExecResult): number {
  return r.total > 0 ? Math.min(1, Math.max(0, r.passed / r.total)) : 0;
}

export function executionScore(r: ExecResult, code: string): number {
  if (!hasStatements(code)) return 0;
  if (!r.syntaxOk) return -SYNTAX_PENALTY;
  return passedAll(r) ? 1 : 0;
}
