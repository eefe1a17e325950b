// executionScore: a number in [0, 1] for how well a piece of code did in the sandbox, used as the reward
// model's regression target and as PPO's optional execution reward.
//
//   score = 0.3 * syntaxOk  +  0.5 * passed / total  +  0.2 * quality
//
// quality is the mean of three checks (each 0 or 1):
//   ranCleanly      the harness ran every test to the end: no timeout, memory blow-up, output flood, crash at
//                   import time, sys.exit/os._exit (test failures are fine: they are counted above)
//   definesFunction there is a `def name(` (MBPP asks for functions; a bare script cannot be called by tests)
//   reasonableSize  at most MAX_LINES non-blank lines and MAX_CHARS characters (MBPP references have at most
//                   50 lines / 1331 chars; far longer output is usually a model rambling or repeating itself)
// So: reference solutions score 1.0; a syntax error scores at most 0.2 * 2/3 ≈ 0.13; code that compiles and
// runs but fails every test scores 0.5. No tests (total = 0) gives 0 for the test term: nothing was shown to work.
// A program with no statement at all (blank, or only the prompt's comments: the model answered nothing) scores 0:
// an empty module compiles and runs cleanly, and paying 0.43 for silence taught RL to stay silent.
import type { ExecResult } from './run';

export const MAX_LINES = 80;
export const MAX_CHARS = 4000;

export const SCORE_WEIGHTS = { syntax: 0.3, tests: 0.5, quality: 0.2 } as const;

export interface QualityChecks {
  ranCleanly: boolean;
  definesFunction: boolean;
  reasonableSize: boolean;
}

export function qualityChecks(r: ExecResult, code: string): QualityChecks {
  const finished = r.finished ?? r.exitCode === 0; // results from before `finished` existed
  return {
    ranCleanly: r.syntaxOk && finished && !r.timedOut && !r.memoryExceeded && !r.outputExceeded,
    definesFunction: /^[ \t]*(async[ \t]+)?def[ \t]+\w+[ \t]*\(/m.test(code),
    reasonableSize: code.length <= MAX_CHARS && code.split('\n').filter((l) => l.trim() !== '').length <= MAX_LINES,
  };
}

/** True when `code` has a line that is neither blank nor a comment. */
export function hasStatements(code: string): boolean {
  return code.split('\n').some((line) => {
    const t = line.trim();
    return t !== '' && !t.startsWith('#');
  });
}

export function executionScore(r: ExecResult, code: string): number {
  if (!hasStatements(code)) return 0;
  const q = qualityChecks(r, code);
  const quality = (Number(q.ranCleanly) + Number(q.definesFunction) + Number(q.reasonableSize)) / 3;
  const testFraction = r.total > 0 ? Math.min(1, Math.max(0, r.passed / r.total)) : 0;
  const score = SCORE_WEIGHTS.syntax * Number(r.syntaxOk) + SCORE_WEIGHTS.tests * testFraction + SCORE_WEIGHTS.quality * quality;
  return Math.min(1, Math.max(0, score));
}
