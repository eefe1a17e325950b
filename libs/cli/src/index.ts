// @rlhf-code/cli: the apps' command-line plumbing. Settings come from one zod schema per stage (settings.ts: flags,
// --help, --config, --print-config); flags.ts has the flag-level helpers, the --backend option and the runner that
// prints errors without stack traces.
export { backendField, backendOption, backendSchema, parseFlags, parseJsonFlag, runCli, UsageError } from './flags';
export { progressBar, stagedProgress } from './progress';
export { readConfigFile, settingsCommand } from './settings';
