// @rlhf-code/cli: the apps' command-line plumbing. Settings come from one zod schema per stage (settings.ts: flags,
// --help, --config, --print-config; command.ts: the command and the runner that prints errors without stack traces);
// runtime.ts declares the runtime settings every command has (backend, threads, native kernels, Python, debug), the
// only environment variables the code reads; flags.ts has the flag-level helpers; markdown.ts the one markdown-table
// writer of every report.
export { parseJsonFlag, printStageResult, UsageError } from './flags';
export { runCli, settingsCommand } from './command';
export { markdownTable } from './markdown';
export { progressBar, stagedProgress } from './progress';
export { NATIVE_GEMMS, BF16_GEMMS, RUNTIME_ENV, runtimeSettings } from './runtime';
export { parseSettings, readSettingsFile } from './settings';
