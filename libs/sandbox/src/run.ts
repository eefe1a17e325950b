// runPython: run an untrusted solution and its assert tests in the sandbox (see child.ts for the process
// limits and harness.py for what happens inside) and turn the harness's private report into an ExecResult.
import { randomBytes } from 'crypto';
import { readFileSync } from 'fs';
import * as path from 'path';
import { runChild, type ChildOutcome } from './child';
import { resolveOptions, type SandboxOptions } from './options';
import { resolvePython } from './python';

export interface ExecResult {
  /** The solution compiled. */
  syntaxOk: boolean;
  /** Tests that ran without raising, out of `total` (= tests given). */
  passed: number;
  total: number;
  timedOut: boolean;
  /** A MemoryError was raised (RLIMIT_AS hit), or the process was SIGKILLed by someone other than us (the OOM killer). */
  memoryExceeded: boolean;
  /**
   * Exit status of the python process: 0 when the harness ran every test (passed or not), 1 when the solution
   * failed to compile or raised / called sys.exit at top level, whatever os._exit was given, null when killed.
   */
  exitCode: number | null;
  stderrTail: string;
  durationMs: number;
  /** The harness reached the end of the test list (no timeout, crash or early exit). */
  finished?: boolean;
  /** The output cap was hit and the process killed. */
  outputExceeded?: boolean;
  /** One line saying what went wrong first, if anything. */
  error?: string;
}

const HARNESS = readFileSync(path.join(__dirname, 'harness.py'), 'utf8');
/** Largest file the solution may write in its temp dir (RLIMIT_FSIZE). */
const FILE_SIZE_LIMIT = 16 << 20;

/**
 * Run `code`, then `setup` (MBPP's test_setup_code, which may use the solution's classes), then each test in
 * its own try block, all in one `python3 -I` process. Throws PythonNotFoundError when there is no interpreter;
 * everything the code does wrong is reported in the result, never thrown.
 */
export async function runPython(code: string, tests: readonly string[], opts: SandboxOptions & { setup?: string } = {}): Promise<ExecResult> {
  const o = resolveOptions(opts);
  const python = resolvePython(o.python);
  const nonce = randomBytes(16).toString('hex');
  const payload = {
    nonce,
    code,
    setup: opts.setup ?? '',
    tests,
    memory_bytes: o.memoryMb * 1024 * 1024,
    fsize_bytes: FILE_SIZE_LIMIT,
    cpu_seconds: Math.ceil(o.timeoutMs / 1000) + 1,
  };
  const out = await runChild({
    python,
    args: ['-I', '-c', HARNESS],
    stdin: JSON.stringify(payload),
    timeoutMs: o.timeoutMs,
    outputCapBytes: o.outputCapBytes,
  });
  return toExecResult(out, nonce, tests.length, o);
}

interface HarnessEvent {
  e: 'syntax' | 'code' | 'setup' | 'test' | 'done';
  ok?: boolean;
  i?: number;
  error?: string;
  memory?: boolean;
}

/** Report lines that carry our nonce; anything else on the channel is ignored. */
function harnessEvents(report: string, nonce: string): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  for (const line of report.split('\n')) {
    if (!line.startsWith(nonce + ' ')) continue;
    try {
      events.push(JSON.parse(line.slice(nonce.length + 1)) as HarnessEvent);
    } catch {
      // a torn last line (killed mid-write) is ignored
    }
  }
  return events;
}

function toExecResult(out: ChildOutcome, nonce: string, total: number, o: { timeoutMs: number; outputCapBytes: number }): ExecResult {
  const events = harnessEvents(out.report, nonce);
  const syntax = events.find((ev) => ev.e === 'syntax');
  const finished = events.some((ev) => ev.e === 'done');
  const passedIdx = new Set<number>();
  for (const ev of events) {
    if (ev.e === 'test' && ev.ok && Number.isInteger(ev.i) && ev.i! >= 0 && ev.i! < total) passedIdx.add(ev.i!);
  }
  const killedByOther = out.signal === 'SIGKILL' && !out.timedOut && !out.outputExceeded;
  const memoryExceeded =
    events.some((ev) => ev.memory === true) || killedByOther || (!finished && /\bMemoryError\b/.test(out.stderrTail));

  const failure = events.find((ev) => ev.ok === false);
  let error: string | undefined;
  if (out.timedOut) error = `timed out after ${o.timeoutMs} ms`;
  else if (out.outputExceeded) error = `output exceeded ${o.outputCapBytes} bytes`;
  else if (failure) error = failure.e === 'test' ? `test ${failure.i} failed: ${failure.error}` : `${failure.e}: ${failure.error}`;
  else if (!finished) error = out.exitCode !== null ? `exited with code ${out.exitCode} before the tests finished` : `killed by ${out.signal}`;

  return {
    syntaxOk: syntax?.ok === true,
    passed: passedIdx.size,
    total,
    timedOut: out.timedOut,
    memoryExceeded,
    exitCode: out.exitCode,
    stderrTail: out.stderrTail,
    durationMs: out.durationMs,
    finished: finished && !out.timedOut && !out.outputExceeded,
    outputExceeded: out.outputExceeded,
    error,
  };
}
