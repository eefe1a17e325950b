// How the evaluation runs generated code: syntax check for every response, then the problem's tests in the
// sandbox (a separate python3 -I process per run, limited in time, memory and output; see libs/sandbox).
import { checkSyntax, SandboxPool, type SandboxOptions } from '@rlhf-code/sandbox';

export interface CodeExecutor {
  /** One boolean per snippet: does it compile as a Python module. */
  checkSyntax(codes: string[]): Promise<boolean[]>;
  /** Run the code, then `setup`, then each test; true only when every test passed (no timeout, no crash). */
  passesTests(code: string, tests: string[], setup?: string): Promise<boolean>;
}

export function sandboxExecutor(opts: SandboxOptions & { concurrency?: number } = {}): CodeExecutor {
  const pool = new SandboxPool(opts);
  return {
    checkSyntax: (codes) => checkSyntax(codes, opts),
    passesTests: async (code, tests, setup) => {
      const r = await pool.run(code, tests, setup);
      return r.syntaxOk && !r.timedOut && r.total === tests.length && r.passed === r.total;
    },
  };
}
