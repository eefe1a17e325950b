// How the evaluation runs generated code: syntax check for every response, then the problem's tests in the
// sandbox (a forked python3 -I process per run, limited in time, memory and output; see libs/sandbox).
import { checkSyntax, executionScore, passedAll, SandboxPool, testsPassedShare, type SandboxOptions } from '@rlhf-code/sandbox';

export interface TestOutcome {
  /** Every test passed (no timeout, no crash): pass@1's criterion. */
  passed: boolean;
  /** The sandbox's executionScore (RL's default reward): 1 when every test passes, -0.1 when the code does not compile, else 0. */
  execScore: number;
  /** Share of the tests that passed, in 0..1 (testsPassedShare): a diagnostic that trivial programs can earn. */
  testsPassed: number;
}

export interface CodeExecutor {
  /** One boolean per snippet: does it compile as a Python module. */
  checkSyntax(codes: string[]): Promise<boolean[]>;
  /** Run the code, then `setup`, then each test; `background`: only when no other run waits (see SandboxPool). */
  runTests(code: string, tests: string[], setup?: string, opts?: { background?: boolean }): Promise<TestOutcome>;
  /** Test runs made in python / answered from an earlier identical run (the sandbox pool's memo), so far. */
  runCounts?(): { executed: number; reused: number };
}

export function sandboxExecutor(opts: SandboxOptions & { concurrency?: number } = {}): CodeExecutor {
  const pool = new SandboxPool(opts);
  // The checker's time limit grows with the number of snippets it is given (checkSyntax's own default): the per-run
  // limit of the tests would fail a pass of thousands of answers.
  const { timeoutMs: _perRun, ...syntaxOpts } = opts;
  return {
    checkSyntax: (codes) => checkSyntax(codes, syntaxOpts),
    runTests: async (code, tests, setup, runOpts) => {
      const r = await pool.run(code, tests, setup, runOpts);
      return { passed: passedAll(r) && r.total === tests.length, execScore: executionScore(r, code), testsPassed: testsPassedShare(r) };
    },
    runCounts: () => ({ executed: pool.executed, reused: pool.reused }),
  };
}
