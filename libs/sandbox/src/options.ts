// Sandbox limits, validated in one place with their defaults.
import { z } from 'zod';

export interface SandboxOptions {
  /** Wall-clock limit for the whole run (solution + all tests), default 5000 ms. */
  timeoutMs?: number;
  /** Address-space limit (RLIMIT_AS) in MiB, default 512; 0 = no limit. */
  memoryMb?: number;
  /** Bytes the program may write on stdout + stderr together before it is killed, default 1 MiB. */
  outputCapBytes?: number;
  /** Interpreter name or path, default $RLHF_PYTHON or `python3` on PATH. */
  python?: string;
}

export const SandboxOptionsSchema = z.object({
  timeoutMs: z.number().int().positive().default(5000),
  memoryMb: z.number().int().nonnegative().default(512),
  outputCapBytes: z.number().int().positive().default(1 << 20),
  python: z.string().min(1).optional(),
});

export type ResolvedSandboxOptions = z.output<typeof SandboxOptionsSchema>;

export function resolveOptions(opts: SandboxOptions = {}): ResolvedSandboxOptions {
  const { timeoutMs, memoryMb, outputCapBytes, python } = opts; // ignore unrelated keys (setup, concurrency)
  const r = SandboxOptionsSchema.safeParse({ timeoutMs, memoryMb, outputCapBytes, python });
  if (!r.success) throw new Error('sandbox options: ' + r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data;
}
