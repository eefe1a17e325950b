// @rlhf-code/datagen: the training data the pipeline builds, their settings and the prep commands (prep-commands.ts;
// apps/prep and `online prep-fim` are their command lines):
//   the task suite (suite/: small problems in MBPP's schema, split sft / rl / dev / test), MBPP files (mbpp-data.ts),
//   reward-model data: references, mutants (mutate.ts) and SFT samples (sample.ts) scored in the sandbox (rm-data.ts),
//   syntax rounds: model-written code kept when it compiles (syntax-prep.ts, syntax-data.ts), fill-in-the-middle cases
//   cut from Python files (fim-dataset.ts), tool-use tasks (tool-tasks.ts), and the pretraining corpus as a token cache
//   (corpus-prep.ts).
export { PrepCorpusSettings, PrepDataSettings, PrepFimSettings, PrepRmSettings, PrepSuiteSettings, PrepSyntaxSettings, PrepToolsSettings } from './settings';
export { runPrepData, runPrepRm, runPrepSuite, runPrepSyntax, runPrepTools } from './prep-commands';
export { fimExamplesFromText, runPrepFim } from './fim-dataset';
export { runPrepCorpus } from './corpus-prep';
