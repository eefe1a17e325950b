// Test support for the apps' end-to-end CLI tests (imported as @rlhf-code/cli/testing, never by app code): run an app
// as a child process, and read the settings an app command resolves (--print-config). The tiny checkpoints those tests
// run are @rlhf-code/model/testing's (saveTinyAppModel).
import { spawnSync } from 'child_process';
import * as path from 'path';
import { RUNTIME_ENV } from './runtime';

export const REPO_ROOT = path.join(__dirname, '../../..');
/** The shipped base model. */
export const BASE_MODEL = path.join(REPO_ROOT, 'models/base');

export interface AppRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `tsx apps/<app>/src/main.ts ...args` from the repo root, one wasm thread (several test files may run at once). */
export function runApp(app: string, args: string[], timeoutMs = 120_000, env: NodeJS.ProcessEnv = process.env): AppRun {
  const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
  const r = spawnSync(tsx, [`apps/${app}/src/main.ts`, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...env, RLHF_THREADS: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An app command's --print-config, run with `env` over the test's environment less its runtime variables. */
function printed(app: string, args: string[], env: NodeJS.ProcessEnv): { runtime: unknown } & Record<string, unknown> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(Object.values(RUNTIME_ENV) as string[]).includes(k)));
  const r = runApp(app, [...args, '--print-config'], 120_000, { ...base, ...env });
  if (r.code !== 0) throw new Error(`${app} ${args.join(' ')} --print-config: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * The settings an app command would run with (its --print-config, less the runtime group every command has), with no
 * runtime variable from the test's own environment: the check that an app wires the schema its lib declares.
 */
export function printedConfig(app: string, args: string[], env: NodeJS.ProcessEnv = {}): unknown {
  const { runtime: _runtime, ...settings } = printed(app, args, env);
  return settings;
}

/** The runtime group of an app command's --print-config (runtime.ts), as printedConfig runs it. */
export function printedRuntime(app: string, args: string[], env: NodeJS.ProcessEnv = {}): unknown {
  return printed(app, args, env).runtime;
}
