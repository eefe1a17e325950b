// One sandboxed child process: fresh temp dir as cwd (removed afterwards), minimal environment, its own
// process group (so timeouts kill everything it started), wall-clock timeout, and a cap on the bytes it may
// write. The caller supplies the program (args) and its stdin; fd 3 is an extra pipe for a private report.
import { spawn } from 'child_process';
import { promises as fs, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PythonNotFoundError } from './python';

export interface ChildSpec {
  /** Absolute path of the interpreter (see resolvePython). */
  python: string;
  args: string[];
  stdin: string;
  timeoutMs: number;
  /** Bytes the child may write on stdout + stderr + fd 3 together before it is killed. */
  outputCapBytes: number;
  /** Keep stdout (for trusted helper programs); untrusted output is only counted. */
  keepStdout?: boolean;
  /** Called with each chunk of stdout as it arrives (a trusted helper's progress, e.g. the batch driver's lines). */
  onStdout?: (chunk: Buffer) => void;
}

export interface ChildOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  outputExceeded: boolean;
  stdout: string;
  /** Text written on fd 3. */
  report: string;
  stderrTail: string;
  durationMs: number;
}

export const STDERR_TAIL_CHARS = 2000;
/** After the child exits, how long to wait for pipes held open by an escaped grandchild. */
export const CLOSE_GRACE_MS = 500;

// Process groups still running and their temp dirs. Children are detached (own group), so a Ctrl-C in the
// terminal does not reach them, and process.exit() skips our `finally` blocks: clean both up on exit.
const liveGroups = new Set<number>();
const liveDirs = new Set<string>();
process.on('exit', () => {
  liveGroups.forEach(killGroup);
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort while exiting
    }
  }
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL'); // negative pid = the whole process group
  } catch {
    // ESRCH: the group is already gone
  }
}

/**
 * A process group started by one of our children in its own session (a batch driver's job): killed when this
 * process exits, until released; `kill` kills it now (its parent died before reaping it).
 */
export function adoptGroup(pid: number): void {
  liveGroups.add(pid);
}
export function releaseGroup(pid: number, kill: boolean): void {
  if (kill) killGroup(pid);
  liveGroups.delete(pid);
}

/** PATH with the interpreter's own directory first, a UTF-8 locale, HOME/TMPDIR inside the sandbox; nothing else. */
export function minimalEnv(python: string, dir: string): NodeJS.ProcessEnv {
  return { PATH: `${path.dirname(python)}:/usr/local/bin:/usr/bin:/bin`, LANG: 'C.UTF-8', HOME: dir, TMPDIR: dir };
}

/**
 * A long-lived sandboxed child for a program that writes no files (the syntax checker): the minimal environment and own
 * process group of runChild's children; its temp dir (cwd, HOME, TMPDIR) is removed as soon as it has started, so
 * nothing is left behind however this process ends, and any file it tried to write would fail. It is killed when
 * this process exits (and sees end-of-input on stdin if this process dies); it does not keep this process alive.
 */
export async function spawnLongLived(python: string, args: string[]): Promise<{ child: ReturnType<typeof spawn>; close: () => void }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rlhf-sandbox-'));
  let child;
  try {
    child = spawn(python, args, { cwd: dir, env: minimalEnv(python, dir), detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
  } finally {
    await removeDir(dir);
  }
  const pid = child.pid;
  if (pid) liveGroups.add(pid);
  child.unref();
  for (const s of [child.stdin, child.stdout]) (s as unknown as { unref?: () => void }).unref?.();
  child.stdin!.on('error', () => undefined); // EPIPE after the child died
  const close = () => {
    if (!pid) return;
    killGroup(pid);
    liveGroups.delete(pid);
  };
  child.on('exit', () => pid && liveGroups.delete(pid));
  return { child, close };
}

/** A fresh temporary directory `<tmpdir>/<prefix>XXXXXX`, removed when this process exits unless removeTempDir was called. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  liveDirs.add(dir);
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await removeDir(dir);
  liveDirs.delete(dir);
}

export async function runChild(spec: ChildSpec): Promise<ChildOutcome> {
  const dir = await makeTempDir('rlhf-sandbox-');
  try {
    return await runIn(dir, spec);
  } finally {
    await removeTempDir(dir);
  }
}

function runIn(dir: string, spec: ChildSpec): Promise<ChildOutcome> {
  return new Promise<ChildOutcome>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(spec.python, spec.args, {
      cwd: dir,
      env: minimalEnv(spec.python, dir),
      detached: true, // setsid(): the child leads a new process group
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    let timedOut = false;
    let outputExceeded = false;
    let written = 0;
    let exitCode: number | null = null;
    let signal: NodeJS.Signals | null = null;
    let exited = false;
    let settled = false;
    const stdout: Buffer[] = [];
    const report: Buffer[] = [];
    let stderr = Buffer.alloc(0);

    const timer = setTimeout(() => {
      timedOut = true;
      if (pid) killGroup(pid);
    }, spec.timeoutMs);
    let graceTimer: NodeJS.Timeout | undefined;

    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (pid) liveGroups.delete(pid);
      if (err) return reject(err);
      resolve({
        exitCode,
        signal,
        timedOut,
        outputExceeded,
        stdout: Buffer.concat(stdout).toString('utf8'),
        report: Buffer.concat(report).toString('utf8'),
        stderrTail: stderr.toString('utf8').slice(-STDERR_TAIL_CHARS),
        durationMs: Math.round(performance.now() - started),
      });
    };

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (pid) killGroup(pid);
      finish(err.code === 'ENOENT' ? new PythonNotFoundError(`${spec.python} not found: install Python 3 or set --python / RLHF_PYTHON`) : err);
    });
    if (!pid) return; // spawn failed; 'error' follows
    liveGroups.add(pid);

    /** Counts every byte; past the cap the whole group is killed and further data dropped. */
    const take = (chunk: Buffer): boolean => {
      written += chunk.length;
      if (written > spec.outputCapBytes && !outputExceeded) {
        outputExceeded = true;
        killGroup(pid);
      }
      return !outputExceeded;
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!take(chunk)) return;
      if (spec.keepStdout) stdout.push(chunk);
      spec.onStdout?.(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      // Keep only a tail (in bytes, a little more than needed so the character cut is clean).
      if (take(chunk)) stderr = Buffer.concat([stderr, chunk]).subarray(-4 * STDERR_TAIL_CHARS);
    });
    const reportPipe = child.stdio[3] as NodeJS.ReadableStream;
    reportPipe.on('data', (chunk: Buffer) => {
      if (take(chunk)) report.push(chunk);
    });

    child.stdin!.on('error', () => undefined); // EPIPE when the child exits without reading everything
    child.stdin!.end(spec.stdin);

    child.on('exit', (code, sig) => {
      exited = true;
      exitCode = code;
      signal = sig;
      // Reap whatever the program left running (background processes, forks) before reading the last bytes.
      killGroup(pid);
      graceTimer = setTimeout(() => {
        for (const s of [child.stdout, child.stderr, reportPipe]) (s as unknown as { destroy(): void }).destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', () => {
      if (exited) finish();
    });
  });
}

/** rm -rf, first making directories writable again in case the program chmod-ed them. */
async function removeDir(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true });
    return;
  } catch {
    // fall through
  }
  const makeWritable = async (d: string): Promise<void> => {
    await fs.chmod(d, 0o700).catch(() => undefined);
    const entries = await fs.readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) await makeWritable(path.join(d, e.name));
  };
  await makeWritable(dir);
  await fs.rm(dir, { recursive: true, force: true }).catch((err: Error) => process.emitWarning(`sandbox: could not remove ${dir}: ${err.message}`));
}
