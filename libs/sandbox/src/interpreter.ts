// The Python interpreter a policy calls as a tool (multi-turn RL): run a piece of code, return what it printed.
//
//   stateless  a fresh interpreter process per call, as SandboxFusion runs code: nothing survives between calls
//   stateful   one interpreter process per episode: variables, imports and functions persist between calls, until close()
//
// An interpreter process is started one of two ways (startMode):
//   fork   a child forked from the fork server (forkserver.ts: one long-lived python per process with interpreter.py
//          imported; ~2 ms instead of a python start), talking over a Unix socket (the default)
//   spawn  `python3 -I -u interpreter.py` of its own, talking over stdin and fd 3
// Either way it runs in its own session and process group, in a fresh temporary directory, with a minimal environment
// (no variable of ours, so no secret, is inherited), an address-space and a file-size limit, a cap on the output kept,
// a wall-clock limit per call (its process group is killed on it; a stateful interpreter then starts afresh and says
// its variables are lost) and, where unprivileged user namespaces exist (`unshare -rn`), an empty network namespace:
// no network at all (fork: the server's, which all its children share). Should the fork server not start, every
// interpreter spawns from then on (with a warning). Calls of every interpreter sharing a SandboxPool wait for one of
// its slots (concurrency limit).
import { spawn } from 'child_process';
import { createInterface, type Interface } from 'readline';
import { z } from 'zod';
import { adoptGroup, makeTempDir, minimalEnv, releaseGroup, removeTempDir } from './child';
import { forkInterpreter, ForkServerError, INTERPRETER_PY, isolatedCommand } from './forkserver';
import { resolvePython } from './python';
import type { SandboxPool } from './pool';

export { networkIsolated } from './forkserver';

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
  /** How an interpreter process starts: forked from the fork server, or a python process of its own. */
  startMode: z.enum(['fork', 'spawn']).default('fork'),
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

/** What interpreter.py answers to a request. */
interface Answer {
  output: string;
  truncated: boolean;
}

/** An interpreter process, however started. */
interface Worker {
  dir: string;
  send(line: string): void;
  /** Kill its process group; resolves once it is gone. */
  kill(): Promise<void>;
  /** Answers not yet read. */
  answers: Answer[];
  waiting: ((answer: Answer | null) => void) | null;
  /** It has exited: no answer will come. */
  exited: boolean;
}

/** Set once the fork server failed to start: from then on every interpreter process is spawned. */
let forkBroken = false;

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
    worker.send(JSON.stringify({ code }) + '\n');
    const answer = await this.next(worker, this.options.timeoutMs);
    const durationMs = Math.round(performance.now() - started);
    if (answer === null || answer === 'timeout') {
      const timedOut = answer === 'timeout';
      await this.kill(worker);
      if (this.options.stateful) this.lostState = true;
      const why = timedOut ? `timed out after ${this.options.timeoutMs / 1000} s` : 'the interpreter process died (out of memory?)';
      return { output: `${note}interpreter: ${why}`, truncated: false, timedOut, crashed: !timedOut, durationMs };
    }
    if (!this.options.stateful) await this.kill(worker);
    return { output: note + answer.output, truncated: answer.truncated, timedOut: false, crashed: false, durationMs };
  }

  /** End the episode: the stateful process is killed and its directory removed. */
  async close(): Promise<void> {
    if (this.worker) await this.kill(this.worker);
    this.worker = null;
  }

  private async start(): Promise<Worker> {
    const dir = await makeTempDir('rlhf-interpreter-');
    const env = minimalEnv(this.python, dir);
    if (this.options.startMode === 'fork' && !forkBroken) {
      try {
        return await this.fork(dir, env);
      } catch (err) {
        if (!(err instanceof ForkServerError)) {
          // Its server died during the fork, and the one started in its place too: as a process that died at once.
          const worker = newWorker(dir, () => undefined, async () => undefined);
          exit(worker);
          return worker;
        }
        forkBroken = true;
        process.emitWarning(`sandbox: ${err.message}; every interpreter process is spawned from now on`);
      }
    }
    return this.spawn(dir, env);
  }

  private async fork(dir: string, env: NodeJS.ProcessEnv): Promise<Worker> {
    const { memoryMb, outputChars, stateful } = this.options;
    const child = await forkInterpreter(this.python, { dir, env, memoryBytes: memoryMb * 1024 * 1024, outputChars, once: !stateful });
    const worker = newWorker(dir, (line) => child.send(line), () => child.kill());
    listen(worker, child.lines);
    void child.gone.then(() => exit(worker));
    return worker;
  }

  private spawn(dir: string, env: NodeJS.ProcessEnv): Worker {
    const args = ['-I', '-u', INTERPRETER_PY, '--memory-bytes', String(this.options.memoryMb * 1024 * 1024), '--output-cap', String(this.options.outputChars)];
    if (!this.options.stateful) args.push('--once');
    const [cmd, cmdArgs] = isolatedCommand(this.python, args);
    const child = spawn(cmd, cmdArgs, {
      cwd: dir,
      env,
      detached: true, // its own process group: a kill takes whatever it started
      stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
    });
    const pid = child.pid;
    if (pid) adoptGroup(pid);
    let exited = false;
    const gone = new Promise<void>((resolve) => {
      const done = () => {
        exited = true;
        if (pid) releaseGroup(pid, true); // with whatever it left running
        exit(worker);
        resolve();
      };
      child.once('exit', done);
      child.once('error', done);
    });
    const worker = newWorker(
      dir,
      (line) => child.stdin!.write(line),
      async () => {
        if (exited || !pid) return;
        releaseGroup(pid, true);
        await gone;
      },
    );
    child.stdin!.on('error', () => undefined); // EPIPE after a crash
    listen(worker, createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }));
    return worker;
  }

  /** The next answer, null when the process died, 'timeout' after `ms`. */
  private next(worker: Worker, ms: number): Promise<Answer | 'timeout' | null> {
    if (worker.answers.length > 0) return Promise.resolve(worker.answers.shift()!);
    if (worker.exited) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.waiting = null;
        resolve('timeout');
      }, ms);
      worker.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
    });
  }

  private async kill(worker: Worker): Promise<void> {
    if (this.worker === worker) this.worker = null;
    await worker.kill();
    await removeTempDir(worker.dir);
  }
}

function newWorker(dir: string, send: (line: string) => void, kill: () => Promise<void>): Worker {
  return { dir, send, kill, answers: [], waiting: null, exited: false };
}

/** Hands the next answer to the call waiting for it, or keeps it; null: the process is gone. */
function wake(worker: Worker, answer: Answer | null): void {
  const w = worker.waiting;
  worker.waiting = null;
  if (w) w(answer);
  else if (answer !== null) worker.answers.push(answer);
}

/** Takes the worker's answer lines; a torn one (its process killed mid-write) is not an answer. */
function listen(worker: Worker, lines: Interface | null): void {
  lines?.on('line', (line) => {
    let answer: Answer;
    try {
      answer = JSON.parse(line) as Answer;
    } catch {
      return;
    }
    wake(worker, answer);
  });
}

function exit(worker: Worker): void {
  worker.exited = true;
  wake(worker, null);
}
