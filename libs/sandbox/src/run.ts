// runPython: run an untrusted solution and its assert tests in the sandbox (see child.ts for the process
// limits and harness.py for what happens inside) and turn the harness's private report into an ExecResult.
// runPythonBatch: the same for many solutions in one python process (harness.py's batch driver), each run in a
// forked child with the same limits, so that a run costs a fork (~2 ms) instead of a python start (~25 ms).
import { randomBytes } from 'crypto';
import { readFileSync } from 'fs';
import * as path from 'path';
import { StringDecoder } from 'string_decoder';
import { z } from 'zod';
import { adoptGroup, CLOSE_GRACE_MS, releaseGroup, runChild, STDERR_TAIL_CHARS, type ChildOutcome } from './child';
import { resolveOptions, type ResolvedSandboxOptions, type SandboxOptions } from './options';
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
  const job = harnessJob({ code, tests, setup: opts.setup }, o);
  const out = await runChild({
    python,
    args: ['-I', '-c', HARNESS],
    stdin: JSON.stringify(job.payload),
    timeoutMs: o.timeoutMs,
    outputCapBytes: o.outputCapBytes,
  });
  return toExecResult(out, job.nonce, tests.length, o);
}

/** One run of a batch: the solution, its assert tests, and MBPP's setup code. */
export interface PythonJob {
  code: string;
  tests: readonly string[];
  setup?: string;
}

/** The harness's job object (see harness.py), with a fresh nonce. */
function harnessJob(job: PythonJob, o: ResolvedSandboxOptions): { nonce: string; payload: Record<string, unknown> } {
  const nonce = randomBytes(16).toString('hex');
  const payload = {
    nonce,
    code: job.code,
    setup: job.setup ?? '',
    tests: job.tests,
    memory_bytes: o.memoryMb * 1024 * 1024,
    fsize_bytes: FILE_SIZE_LIMIT,
    cpu_seconds: Math.ceil(o.timeoutMs / 1000) + 1,
  };
  return { nonce, payload };
}

/**
 * Run `jobs` as runPython would, all in one python process: harness.py's batch driver runs them one after
 * another, each in a forked child with runPython's limits (timeout, memory, output cap, own process group, own temp
 * dir). Results are runPython's, in input order. A job can kill or stop the driver (it is the job's parent); the jobs
 * left without a result are then run again, each alone in a driver of its own, so a hostile job costs time, never
 * another job's result. A job that kills (or stops) even its own driver gets a failed result saying so. Throws what
 * runPython throws (PythonNotFoundError, invalid options).
 */
export async function runPythonBatch(jobs: readonly PythonJob[], opts: SandboxOptions = {}): Promise<ExecResult[]> {
  const o = resolveOptions(opts);
  const python = resolvePython(o.python);
  if (jobs.length === 0) return [];
  if (driverBroken) {
    const results: ExecResult[] = [];
    for (const job of jobs) results.push(await runPython(job.code, job.tests, { ...o, setup: job.setup }));
    return results;
  }
  if (jobs.length === 1) return [await runAlone(python, jobs[0], o)];
  const prepared = jobs.map((job) => harnessJob(job, o));
  const batch = await runDriver(python, prepared, o);
  const results: ExecResult[] = [];
  for (const [i, job] of jobs.entries()) {
    const out = batch.outcomes[i];
    results.push(out ? toExecResult(out, prepared[i].nonce, job.tests.length, o) : await runAlone(python, job, o));
  }
  return results;
}

/**
 * One job in a driver of its own. Should that driver, too, be killed (or time out) once the job has started, the
 * job did it: a failed result that says so (its report died with the driver, so syntaxOk is false). Should the
 * driver fail before starting it, runPython runs it.
 */
async function runAlone(python: string, job: PythonJob, o: ResolvedSandboxOptions): Promise<ExecResult> {
  const prepared = harnessJob(job, o);
  const { outcomes, started, driver } = await runDriver(python, [prepared], o);
  if (outcomes[0]) return toExecResult(outcomes[0], prepared.nonce, job.tests.length, o);
  if (!started[0] || (driver.signal === null && !driver.timedOut)) return runPython(job.code, job.tests, { ...o, setup: job.setup });
  const r = toExecResult({ ...driver, signal: null, outputExceeded: false, report: '', stderrTail: '' }, '', job.tests.length, o);
  return driver.timedOut ? r : { ...r, error: `killed the sandbox process that ran it (${driver.signal})` };
}

/** Set once a driver has failed on its own before starting any job: from then on every run is runPython's. */
let driverBroken = false;

/** Time the driver needs beyond its jobs' own timeouts and grace: its start, and per job a fork and a temp dir. */
const DRIVER_SLACK_MS = 5000;
const JOB_SLACK_MS = 250;

const DriverLine = z.discriminatedUnion('e', [
  z.object({ e: z.literal('start'), i: z.number().int().nonnegative(), pid: z.number().int().positive() }),
  z.object({
    e: z.literal('result'),
    i: z.number().int().nonnegative(),
    exit_code: z.number().int().nullable(),
    signal: z.string().nullable(),
    timed_out: z.boolean(),
    output_exceeded: z.boolean(),
    duration_ms: z.number().nonnegative(),
    report: z.string(),
    stderr: z.string(),
  }),
]);

interface DriverRun {
  /** Per job, its outcome if the driver reported one. */
  outcomes: (ChildOutcome | undefined)[];
  /** Per job, whether the driver started it. */
  started: boolean[];
  /** The driver's own outcome. */
  driver: ChildOutcome;
}

/**
 * Run harness.py's batch driver over `jobs` (see its protocol): its lines are signed with a key only it knows, so
 * that nothing else on the channel counts. The driver runs under a backstop timeout: its jobs' timeouts and grace
 * periods, plus slack. The process group of a job that was running when the driver died is killed.
 */
async function runDriver(python: string, jobs: { nonce: string; payload: Record<string, unknown> }[], o: ResolvedSandboxOptions): Promise<DriverRun> {
  const key = randomBytes(16).toString('hex');
  const frame = (x: unknown) => {
    const json = JSON.stringify(x);
    return `${Buffer.byteLength(json)}\n${json}`;
  };
  const stdin =
    frame({ key, grace_ms: CLOSE_GRACE_MS }) + jobs.map((j) => frame({ ...j.payload, timeout_ms: o.timeoutMs, output_cap: o.outputCapBytes })).join('');
  const outcomes: (ChildOutcome | undefined)[] = new Array(jobs.length).fill(undefined);
  const started: boolean[] = new Array(jobs.length).fill(false);
  const running = new Map<number, number>(); // job -> its process group, until its result
  const take = (line: string) => {
    if (!line.startsWith(key + ' ')) return;
    let parsed;
    try {
      parsed = DriverLine.safeParse(JSON.parse(line.slice(key.length + 1)));
    } catch {
      return;
    }
    if (!parsed.success || parsed.data.i >= jobs.length) return;
    const ev = parsed.data;
    if (ev.e === 'start') {
      started[ev.i] = true;
      running.set(ev.i, ev.pid);
      adoptGroup(ev.pid);
      return;
    }
    if (outcomes[ev.i]) return;
    const pid = running.get(ev.i);
    if (pid !== undefined) releaseGroup(pid, false); // the driver has reaped it and killed its group
    running.delete(ev.i);
    outcomes[ev.i] = {
      exitCode: ev.exit_code,
      signal: ev.signal as NodeJS.Signals | null,
      timedOut: ev.timed_out,
      outputExceeded: ev.output_exceeded,
      stdout: '',
      report: ev.report,
      stderrTail: ev.stderr.slice(-STDERR_TAIL_CHARS),
      durationMs: ev.duration_ms,
    };
  };
  const decoder = new StringDecoder('utf8');
  let pending = '';
  // A result line carries at most the job's report (capped) and stderr tail, JSON-escaped (up to 6 bytes a byte).
  const perJobBytes = 8 * (o.outputCapBytes + 4 * STDERR_TAIL_CHARS) + 1024;
  let driver: ChildOutcome;
  try {
    driver = await runChild({
      python,
      args: ['-I', '-c', HARNESS, 'batch'],
      stdin,
      timeoutMs: jobs.length * (o.timeoutMs + CLOSE_GRACE_MS + JOB_SLACK_MS) + DRIVER_SLACK_MS,
      outputCapBytes: jobs.length * perJobBytes,
      onStdout: (chunk) => {
        // Lines are split once complete (a result line can be megabytes); a torn last one, should the driver die
        // mid-write, is never taken.
        const text = decoder.write(chunk);
        const end = text.lastIndexOf('\n');
        if (end < 0) {
          pending += text;
          return;
        }
        const lines = (pending + text.slice(0, end)).split('\n');
        pending = text.slice(end + 1);
        lines.forEach(take);
      },
    });
  } finally {
    for (const pid of running.values()) releaseGroup(pid, true); // its job may still be running, orphaned
  }
  if (!started.some(Boolean) && driver.exitCode !== 0 && driver.signal === null && !driver.timedOut && !driverBroken) {
    // No job ran, so none is to blame: the driver does not work with this interpreter or system.
    driverBroken = true;
    const why = driver.stderrTail.trim().split('\n').pop() || `exit code ${driver.exitCode}`;
    process.emitWarning(`sandbox: the batch driver failed (${why}); every run starts its own python from now on`);
  }
  return { outcomes, started, driver };
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
