// @rlhf-code/cli: the apps' command-line plumbing. Settings come from one zod schema per stage (settings.ts: flags,
// --help, --config, --print-config); flags.ts has the flag-level helpers, the --backend setting and the runner that
// prints errors without stack traces.
export { backendField, parseJsonFlag, printStageResult, runCli, UsageError } from './flags';
export { progressBar, stagedProgress } from './progress';
export { parseSettings, readSettingsFile, settingsCommand } from './settings';
