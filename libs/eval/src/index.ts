// @rlhf-code/eval: compare checkpoints on held-out coding problems (pass@1 and pass@k in the sandbox, each model at a
// temperature chosen on dev problems, syntax-valid rate, share of tests passed, reward-model score, distinct-n, length,
// KL to the SFT model, trivial programs as stub rows, per-group tables, problems up and down against SFT) and write
// eval.json / eval.md / eval.svg / per_problem.json; average the runs of several seeds (seeds.ts); and the base
// model's own figures (held-out loss, FIM first-line exact match, FIM syntax-valid rate: base-eval.ts; function bodies written after a held-out signature + docstring:
// function-eval.ts), and two base models' figures paired (base-compare.ts). The commands `eval run | seeds | base |
// base-compare` are commands.ts.
export { runBaseCompare, runBaseEval, runEval, runSeeds } from './commands';
export { METRIC_DESCRIPTIONS } from './report';
export { heldOutSpec, renderSvg } from './chart';
export { completeFim, selectFimCases, withFileContext, cursorInCode, syntaxChecker, BASE_METRIC_DESCRIPTIONS, type FimCase } from './base-eval';
export { completeBatched } from './batched';
export { functionCases, selectFunctionCases, compilingCases, cutBody, functionSource, bodyLines, maxLineRepeat, REPEATED_LINE_LIMIT, type FunctionCase } from './function-eval';
export { EvalBaseCompareSettings, EvalBaseSettings, EvalRunSettings, EvalSeedsSettings } from './settings';
