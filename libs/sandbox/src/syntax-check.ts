// checkSyntax: does each snippet compile? One long-lived python process answers every call (starting python costs
// ~20 ms, and spawning it from a process holding a large model blocks the event loop for as long again, which a server
// cannot afford per request; compiling a snippet costs microseconds). compile() rather than ast.parse: it also rejects
// what only the compiler catches (`return` outside a function, bad `nonlocal`), exactly what running the code would
// hit. Nothing is executed, but the input is untrusted: the process is sandboxed as runPython's are (minimal
// environment, own process group, address-space limit; no directory it could write to), each call has a time limit
// and an answer-size limit, and a process that fails one is killed (the next call starts a fresh one).
//   protocol  one JSON line per call on stdin, {"codes": [...]}; one JSON line back, [true, false, ...]
import type { ChildProcess } from 'child_process';
import { spawnLongLived } from './child';
import { resolveOptions, type SandboxOptions } from './options';
import { resolvePython } from './python';

const CHECKER = `
import json, resource, sys, warnings
memory_bytes = int(sys.argv[1])
if memory_bytes:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, resource.getrlimit(resource.RLIMIT_AS)[1]))
warnings.simplefilter("ignore")
for line in sys.stdin.buffer:
    ok = []
    for source in json.loads(line.decode("utf-8"))["codes"]:
        try:
            compile(source, "<snippet>", "exec", dont_inherit=True)
            ok.append(True)
        except Exception:  # SyntaxError, ValueError (null bytes), MemoryError, RecursionError
            ok.append(False)
    sys.stdout.write(json.dumps(ok) + "\\n")
    sys.stdout.flush()
`;

export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** How a call ended: the answer line, or why there is none. */
type Outcome = { line: string } | { failed: string };

/** A running checker process and the call in progress (its answer so far, its size limit, who waits for it). */
interface Checker {
  child: ChildProcess;
  close: () => void;
  buffer: string;
  capBytes: number;
  settle: ((o: Outcome) => void) | null;
  dead: boolean;
}

const checkers = new Map<string, Promise<Checker>>(); // by interpreter and memory limit
let queue: Promise<unknown> = Promise.resolve(); // one call at a time (the answer lines carry no ids)

async function startChecker(python: string, memoryMb: number): Promise<Checker> {
  const { child, close } = await spawnLongLived(python, ['-I', '-c', CHECKER, String(memoryMb * 1024 * 1024)]);
  const c: Checker = { child, close, buffer: '', capBytes: Infinity, settle: null, dead: false };
  const settle = (o: Outcome) => {
    const f = c.settle;
    c.settle = null;
    f?.(o);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    c.buffer += chunk.toString('utf8');
    const i = c.buffer.indexOf('\n');
    if (i >= 0) {
      const line = c.buffer.slice(0, i);
      c.buffer = c.buffer.slice(i + 1);
      settle({ line });
    } else if (c.buffer.length > c.capBytes) {
      settle({ failed: `its answer exceeded ${c.capBytes} bytes` });
    }
  });
  const died = () => {
    c.dead = true;
    settle({ failed: 'it exited' });
  };
  child.on('exit', died);
  child.on('error', died);
  return c;
}

/** One call on the checker for (python, memoryMb), started on first use and again after one failed. */
async function askChecker(python: string, memoryMb: number, codes: readonly string[], timeoutMs: number, capBytes: number): Promise<unknown> {
  const key = `${python}\0${memoryMb}`;
  let started = checkers.get(key);
  if (!started) checkers.set(key, (started = startChecker(python, memoryMb)));
  let c: Checker;
  try {
    c = await started;
  } catch (e) {
    checkers.delete(key); // the next call tries to start one again
    throw e;
  }
  const fail = (why: string): never => {
    checkers.delete(key);
    c.close();
    throw new SandboxError(`checkSyntax: the python checker failed (${why})`);
  };
  if (c.dead) return fail('it exited');
  const outcome = new Promise<Outcome>((resolve) => {
    const timer = setTimeout(() => {
      c.settle = null;
      resolve({ failed: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    c.settle = (o) => {
      clearTimeout(timer);
      resolve(o);
    };
  });
  c.capBytes = capBytes;
  c.child.stdin!.write(JSON.stringify({ codes }) + '\n');
  const o = await outcome;
  if ('failed' in o) return fail(o.failed);
  try {
    return JSON.parse(o.line);
  } catch {
    return fail(`unreadable answer: ${o.line.slice(0, 200)}`);
  }
}

/** One boolean per snippet, in order: true when it compiles as a Python module. */
export async function checkSyntax(codes: readonly string[], opts: SandboxOptions = {}): Promise<boolean[]> {
  if (codes.length === 0) return [];
  // Default time budget grows with the batch: 5 s plus 10 ms per snippet.
  const o = resolveOptions({ ...opts, timeoutMs: opts.timeoutMs ?? 5000 + 10 * codes.length });
  const python = resolvePython(o.python);
  // The answer is ~6 bytes per snippet; warnings are silenced, so anything larger means trouble.
  const cap = Math.max(o.outputCapBytes, 16 * codes.length + 1024);
  const call = queue.then(() => askChecker(python, o.memoryMb, codes, o.timeoutMs, cap));
  queue = call.catch(() => undefined);
  const ok = await call;
  if (!Array.isArray(ok) || ok.length !== codes.length) throw new SandboxError(`checkSyntax: the python checker answered ${JSON.stringify(ok)?.slice(0, 200)}`);
  return ok.map((v) => v === true);
}
