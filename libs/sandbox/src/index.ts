// @rlhf-code/sandbox: run untrusted Python solutions against assert tests, score the outcome (the execution reward),
// write the trivial programs (stubs) every evaluation shows as baselines, check that code compiles, and scan Python
// source into code, strings and comments (pyscan.ts).
//
// What the sandbox guards against: code that loops, eats memory, floods output, spawns processes, reads the
// parent's environment variables, exits early or prints fake results (see run.test.ts). What it does not:
// the code runs as your user with your file system and network, and could read files or
// /proc/<parent>/environ. It is meant for model-written solutions to small problems, not for hostile code;
// run the whole pipeline in a container (or nsjail/bubblewrap) when that matters.
export { type SandboxOptions } from './options';
export { SandboxPool } from './pool';
export { scoreAll } from './batch';
export { checkSyntax } from './syntax-check';
export { scanPython, CODE, QUOTE, COMMENT, allCode, endsOnSameLine, endsWithColon, followsHeader, lastCodeCharOf, PY_KEYWORDS, startsStatement, type PyScan } from './pyscan';
export { executionScore, passedAll, testsPassedShare } from './score';
export { stubPrograms, calledFunctions, STUB_NAMES } from './stubs';
export { resolvePython } from './python';
export { PythonInterpreter, type InterpreterOptions, type ToolResult } from './interpreter';
export { closeForkServers } from './forkserver';
