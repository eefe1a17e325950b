// @rlhf-code/datagen: the training data the pipeline builds, and their settings (apps/prep and `online prep-fim`
// are its command lines):
//   the task suite (suite/: small problems in MBPP's schema, split sft / rl / dev / test), MBPP files (mbpp-data.ts), reward-model data: references, mutants and SFT samples scored in the sandbox
//   (rm-data.ts), syntax rounds: model-written code kept when it compiles (syntax.ts, syntax-data.ts), and
//   fill-in-the-middle cases cut from Python files (fim-dataset.ts), and tool-use tasks (tool-tasks.ts).
export { PrepDataSettings, PrepFimSettings, PrepRmSettings, PrepSuiteSettings, PrepSyntaxSettings, PrepToolsSettings } from './settings';
export { writeMbppData } from './mbpp-data';
export { buildRmData } from './rm-data';
export { runFimSyntaxData, runSyntaxData } from './syntax';
export { buildFimDataset, fimExamplesFromText, fimSftRecords } from './fim-dataset';
export { maxLineRepeat } from './syntax-data';
export { writeToolTasks } from './tool-tasks';
export { writeSuite } from './suite/generate';
