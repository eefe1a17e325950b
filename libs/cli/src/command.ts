// A command from its settings schema (settingsCommand: its flags, --help, --config and --print-config, with the
// runtime group every command shares) and the runner of a program (runCli: errors as one line each, no stack trace).
import { Command } from 'commander';
import { z } from 'zod';
import { describeZodError } from './flags';
import { exportRuntime, runtimeSettings, RuntimeGroup } from './runtime';
import { addSettingOptions, readConfigFile, resolveSettings } from './settings';

/**
 * A command run by its settings: options from the schema and the runtime group, then `run(settings)`; --print-config
 * prints them (the runtime group as `runtime`) instead. `schema` is the stage's settings schema, declared in the lib
 * that runs the stage. The runtime settings are exported to the environment before `run` (runtime.ts).
 */
export function settingsCommand<S extends z.ZodType>(cmd: Command, schema: S, run: (settings: z.output<S>) => Promise<void> | void): Command {
  addSettingOptions(cmd, schema, [RuntimeGroup]);
  return cmd.action(async (_opts: unknown, self: Command) => {
    const file = self.opts().config;
    const { runtime: fileRuntime, ...fileRest } = typeof file === 'string' ? readConfigFile(file) : {};
    const rt = resolveSettings(RuntimeGroup, self, fileRuntime === undefined ? {} : { runtime: fileRuntime });
    exportRuntime(rt.settings.runtime, Object.keys((rt.given.runtime ?? {}) as object));
    const { settings } = resolveSettings(schema, self, fileRest);
    if (self.opts().printConfig) {
      process.stdout.write(JSON.stringify({ ...(settings as object), runtime: rt.settings.runtime }, null, 2) + '\n');
      return;
    }
    await run(settings);
  });
}

/**
 * Run a commander program: errors print as `<app>: error: <message>` on stderr with exit code 1 (plus the stack trace
 * with the runtime setting debug, RLHF_DEBUG=1); `cleanup` always runs.
 */
export async function runCli(program: Command, cleanup?: () => void): Promise<void> {
  try {
    await program.parseAsync();
  } catch (err) {
    const msg = err instanceof z.ZodError ? describeZodError(err) : err instanceof Error ? err.message : String(err);
    process.stderr.write(msg.split('\n').map((line) => `${program.name()}: error: ${line}\n`).join(''));
    if (debugging() && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    process.exitCode = 1;
  } finally {
    cleanup?.();
  }
}

/** The runtime setting debug; false when the runtime settings are themselves the error being printed. */
function debugging(): boolean {
  try {
    return runtimeSettings().debug;
  } catch {
    return false;
  }
}
