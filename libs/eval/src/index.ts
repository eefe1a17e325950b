// @rlhf-code/eval: compare checkpoints on held-out coding problems (syntax-valid rate, pass@1 in the sandbox,
// reward-model score, distinct-n, length, KL to the SFT model) and write eval.json / eval.md / eval.svg; and the base
// model's own figures (held-out loss, FIM first-line exact match, FIM syntax-valid rate: base-eval.ts; function bodies written after a held-out signature + docstring:
// function-eval.ts).
export {
  evaluate,
  DEFAULT_EVAL_SAMPLES,
  DEFAULT_EVAL_TEMPERATURE,
  type EvalOptions,
  type EvalReport,
  type EvalResult,
  type ModelReport,
  type GreedyMetrics,
  type Sample,
  type ModelTiming,
  type Progress,
} from './evaluate';
export { sandboxExecutor, type CodeExecutor } from './executor';
export { readEvalProblems, EvalRecordSchema, DEFAULT_EVAL_DATA, type EvalProblem } from './data';
export { parseModelsFlag, checkModelDirs, resolveKlReference, ModelsFlagError, type NamedModel, type KlReference } from './models-flag';
export { summarize, compareModels, distinctN, mean, rate, sequenceLogRatio, METRIC_KEYS, type MetricKey, type ModelMetrics, type ProblemOutcome } from './metrics';
export { formatTable, formatMarkdown, METRIC_DESCRIPTIONS, type ReportSettings } from './report';
export { chartSpec, chartRows, heldOutRows, heldOutSpec, renderSvg, HELDOUT_CURVES, RATE_METRICS, type ChartRow, type HeldOutRow } from './chart';
export { writeEvalOutputs, OUTPUT_FILES } from './write';
export {
  evaluateBase,
  heldoutLoss,
  completeFim,
  scoreFim,
  selectFimCases,
  withFileContext,
  cursorInCode,
  defaultSeqLen,
  syntaxChecker,
  firstNonEmptyLine,
  firstLineExact,
  fimSamples,
  functionSamples,
  writeBaseEval,
  FIRST_LINE_RULE,
  SERVED_MIN_TOKENS,
  BASE_METRIC_DESCRIPTIONS,
  BASE_OUTPUT_FILES,
  type BaseEvalOptions,
  type BaseEvalReport,
  type LossFigures,
  type LossOptions,
  type FimCase,
  type FimCompletion,
  type FimOutcome,
  type FimFigures,
  type FimSample,
  type SyntaxChecker,
} from './base-eval';
export type { CompleteOptions } from './batched';
export {
  functionCases,
  selectFunctionCases,
  compilingCases,
  cutBody,
  functionSource,
  type FunctionCase,
  type FunctionFigures,
} from './function-eval';
export {
  syntaxTrainingData,
  judgeSamples,
  pickBest,
  maxLineRepeat,
  tokenF1,
  cutPrompt,
  cutSuffix,
  syntaxExample,
  judgeFimSamples,
  fimSyntaxTrainingData,
  type FimCandidate,
  type FimSyntaxOptions,
  type FimSyntaxStats,
  type SyntaxDataOptions,
  type SyntaxCandidate,
  type SyntaxExample,
  type SyntaxDataStats,
} from './syntax-data';
