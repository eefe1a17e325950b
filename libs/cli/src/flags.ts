// Flag-level helpers: flag names, JSON-valued flags with errors that name the flag, the names of the compute backends,
// a stage's result line.
import { z } from 'zod';

/** maxNewTokens -> --max-new-tokens */
export function flagName(key: string): string {
  return '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

/** One line per problem, each naming the flag. */
export function describeZodError(err: z.ZodError, name: (path: PropertyKey[]) => string = (p) => flagName(String(p[0] ?? 'flags'))): string {
  return err.issues.map((i) => `${name(i.path)}: ${i.message}`).join('\n');
}

/** Parse a JSON-valued flag with a zod schema; errors name the flag. */
export function parseJsonFlag<S extends z.ZodType>(flag: string, text: string, schema: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${flag}: not valid JSON: ${text.length > 80 ? text.slice(0, 80) + '...' : text}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(describeZodError(r.error, (p) => `${flag}${p.map((k) => `[${String(k)}]`).join('')}`));
  return r.data;
}

/** An error caused by the user's input: printed as one message, no stack trace. */
export class UsageError extends Error {}

/** The compute backends (the runtime setting `backend`, --backend). */
export const BACKENDS = ['auto', 'node-gpu', 'node', 'wasm', 'cpu'] as const;

/**
 * A stage's result as its command prints it: one JSON line on stdout, and exit code 130 when the run was stopped
 * (Ctrl-C / SIGTERM: a checkpoint was saved, not a finished run).
 */
export function printStageResult(result: { [key: string]: unknown; interrupted?: boolean }): void {
  console.log(JSON.stringify(result));
  if (result.interrupted) process.exitCode = 130;
}
