// The Python interpreter a policy calls as a tool (multi-turn RL): run a piece of code, return what it printed.
//
//   stateless  a fresh `python3 -I` per call, as SandboxFusion runs code: nothing survives between calls
//   stateful   one Python process per episode: variables, imports and functions persist between calls, until close()
//
// Both run interpreter.py in its own process group, in a fresh temporary directory, with a minimal environment (no
// variable of ours, so no secret, is inherited), an address-space and a file-size limit, a cap on the output kept, a
// wall-clock limit per call (the process is killed on it; a stateful interpreter then starts afresh and says its
// variables are lost) and, where unprivileged user namespaces exist (`unshare -rn`), an empty network namespace: no
// network at all. Calls of every interpreter sharing a SandboxPool wait for one of its slots (concurrency limit).
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { z } from 'zod';
import { resolvePython } from './python';
import type { SandboxPool } from './pool';

const WORKER = path.join(__dirname, 'interpreter.py');

export const InterpreterOptionsSchema = z.strictObject({
  stateful: z.boolean().default(false),
  /** Wall-clock limit of one call (SandboxFusion's default: 30 s). */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Address-space limit of the process in MiB (0 = none). */
  memoryMb: z.number().int().nonnegative().default(512),
  /** Characters of output kept per call; the rest is cut and the result says so. */
  outputChars: z.number().int().positive().default(4096),
  /** Interpreter name or path (default $RLHF_PYTHON or python3). */
  python: z.string().min(1).optional(),
});
export type InterpreterOptions = z.input<typeof InterpreterOptionsSchema>;

export interface ToolResult {
  /** What the code printed (stdout and stderr in order, a traceback on an exception, a last expression's repr). */
  output: string;
  /** Output beyond the cap was dropped. */
  truncated: boolean;
  /** The call hit the time limit (its process was killed). */
  timedOut: boolean;
  /** The process died otherwise (e.g. killed by the memory limit's consequences); its state is gone. */
  crashed: boolean;
  durationMs: number;
}

/** Whether `unshare -rn` works here (an empty network namespace without privileges); checked once. */
let netns: boolean | null = null;
export function networkIsolated(): boolean {
  if (netns === null) netns = spawnSync('unshare', ['-rn', 'true'], { stdio: 'ignore' }).status === 0;
  return netns;
}

interface Worker {
  child: ChildProcess;
  dir: string;
  /** Answers (JSON lines on fd 3) not yet read. */
  lines: string[];
  buffer: string;
  waiting: ((line: string | null) => void) | null;
  exited: boolean;
}

export class PythonInterpreter {
  readonly options: z.output<typeof InterpreterOptionsSchema>;
  private readonly python: string;
  private worker: Worker | null = null;
  private lostState = false;
  /** Calls made, and calls that ended in a timeout or a crash. */
  calls = 0;

  constructor(options: InterpreterOptions = {}, private readonly pool?: SandboxPool) {
    const r = InterpreterOptionsSchema.safeParse(options);
    if (!r.success) throw new Error('interpreter options: ' + r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    this.options = r.data;
    this.python = resolvePython(r.data.python);
  }

  get kind(): 'stateful' | 'stateless' {
    return this.options.stateful ? 'stateful' : 'stateless';
  }

  /** Run `code`; never throws for what the code does (errors come back as its output). */
  async run(code: string): Promise<ToolResult> {
    return this.pool ? this.pool.withSlot(() => this.call(code)) : this.call(code);
  }

  private async call(code: string): Promise<ToolResult> {
    this.calls++;
    const started = performance.now();
    const worker = this.worker ?? (await this.start());
    if (this.options.stateful) this.worker = worker;
    const note = this.lostState ? 'interpreter: restarted after the previous call failed; earlier variables are gone\n' : '';
    this.lostState = false;
    worker.child.stdin!.write(JSON.stringify({ code }) + '\n');
    const line = await this.next(worker, this.options.timeoutMs);
    const durationMs = Math.round(performance.now() - started);
    if (line === null || line === 'timeout') {
      const timedOut = line === 'timeout';
      await this.kill(worker);
      if (this.options.stateful) this.lostState = true;
      const why = timedOut ? `timed out after ${this.options.timeoutMs / 1000} s` : 'the interpreter process died (out of memory?)';
      return { output: `${note}interpreter: ${why}`, truncated: false, timedOut, crashed: !timedOut, durationMs };
    }
    if (!this.options.stateful) await this.kill(worker);
    const answer = JSON.parse(line) as { output: string; truncated: boolean };
    return { output: note + answer.output, truncated: answer.truncated, timedOut: false, crashed: false, durationMs };
  }

  /** End the episode: the stateful process is killed and its directory removed. */
  async close(): Promise<void> {
    if (this.worker) await this.kill(this.worker);
    this.worker = null;
  }

  private async start(): Promise<Worker> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rlhf-interpreter-'));
    const args = ['-I', '-u', WORKER, '--memory-bytes', String(this.options.memoryMb * 1024 * 1024), '--output-cap', String(this.options.outputChars)];
    if (!this.options.stateful) args.push('--once');
    const [cmd, cmdArgs] = networkIsolated() ? ['unshare', ['-rn', this.python, ...args]] : [this.python, args];
    const child = spawn(cmd, cmdArgs, {
      cwd: dir,
      env: { PATH: `${path.dirname(this.python)}:/usr/bin:/bin`, LANG: 'C.UTF-8', HOME: dir, TMPDIR: dir },
      detached: true, // its own process group: a kill takes whatever it started
      stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
    });
    const worker: Worker = { child, dir, lines: [], buffer: '', waiting: null, exited: false };
    const wake = (line: string | null) => {
      const w = worker.waiting;
      worker.waiting = null;
      w?.(line);
    };
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      worker.buffer += chunk.toString('utf8');
      let i: number;
      while ((i = worker.buffer.indexOf('\n')) >= 0) {
        worker.lines.push(worker.buffer.slice(0, i));
        worker.buffer = worker.buffer.slice(i + 1);
      }
      if (worker.lines.length > 0) wake(worker.lines.shift()!);
    });
    child.stdin!.on('error', () => undefined); // EPIPE after a crash
    child.on('exit', () => {
      worker.exited = true;
      wake(null);
    });
    child.on('error', () => {
      worker.exited = true;
      wake(null);
    });
    return worker;
  }

  /** The next answer line, null when the process died, 'timeout' after `ms`. */
  private next(worker: Worker, ms: number): Promise<string | null> {
    if (worker.lines.length > 0) return Promise.resolve(worker.lines.shift()!);
    if (worker.exited) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.waiting = null;
        resolve('timeout');
      }, ms);
      worker.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }

  private async kill(worker: Worker): Promise<void> {
    if (this.worker === worker) this.worker = null;
    if (!worker.exited && worker.child.pid) {
      const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
      try {
        process.kill(-worker.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    }
    await fs.rm(worker.dir, { recursive: true, force: true });
  }
}
