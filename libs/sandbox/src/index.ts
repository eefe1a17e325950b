// @rlhf-code/sandbox: run untrusted Python solutions against assert tests, score the outcome, and make
// broken variants of code for reward-model data.
//
// What the sandbox guards against: code that loops, eats memory, floods output, spawns processes, reads the
// parent's environment variables, exits early or prints fake results (see run.test.ts). What it does not:
// the code runs as your user with your file system and network, and could read files or
// /proc/<parent>/environ. It is meant for model-written solutions to small problems, not for hostile code;
// run the whole pipeline in a container (or nsjail/bubblewrap) when that matters.
export { runPython, type ExecResult } from './run';
export { SandboxOptionsSchema, type SandboxOptions } from './options';
export { SandboxPool } from './pool';
export { scoreAll, type ScoreJob, type ScoredRun } from './batch';
export { checkSyntax, SandboxError } from './syntax';
export { scanPython, CODE, QUOTE, STRING, COMMENT, type PyScan } from './pyscan';
export { executionScore, qualityChecks, SCORE_WEIGHTS, MAX_CHARS, MAX_LINES, type QualityChecks } from './score';
export { PythonNotFoundError, resolvePython } from './python';
export {
  mutate,
  mutants,
  MUTATIONS,
  SYNTAX_MUTATIONS,
  LOGIC_MUTATIONS,
  type Mutant,
  type MutationKind,
  type SyntaxMutation,
  type LogicMutation,
} from './mutate';
