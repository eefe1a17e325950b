// How the evaluation runs generated code: syntax check for every response, then the problem's tests in the
// sandbox (a separate python3 -I process per run, limited in time, memory and output; see libs/sandbox).
import { checkSyntax, executionScore, SandboxPool, type SandboxOptions } from '@rlhf-code/sandbox';

export interface TestOutcome {
  /** Every test passed (no timeout, no crash). */
  passed: boolean;
  /** The sandbox's score in 0..1: syntax, share of tests passed, quality checks (executionScore, as rm_data's). */
  execScore: number;
}

export interface CodeExecutor {
  /** One boolean per snippet: does it compile as a Python module. */
  checkSyntax(codes: string[]): Promise<boolean[]>;
  /** Run the code, then `setup`, then each test. */
  runTests(code: string, tests: string[], setup?: string): Promise<TestOutcome>;
}

export function sandboxExecutor(opts: SandboxOptions & { concurrency?: number } = {}): CodeExecutor {
  const pool = new SandboxPool(opts);
  return {
    checkSyntax: (codes) => checkSyntax(codes, opts),
    runTests: async (code, tests, setup) => {
      const r = await pool.run(code, tests, setup);
      return {
        passed: r.syntaxOk && !r.timedOut && r.total === tests.length && r.passed === r.total,
        execScore: executionScore(r, code),
      };
    },
  };
}
