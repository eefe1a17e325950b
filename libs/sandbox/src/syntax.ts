// checkSyntax: does each snippet compile? One python process for the whole list (starting python costs
// ~20 ms; compiling a snippet costs microseconds). compile() rather than ast.parse: it also rejects what only
// the compiler catches (`return` outside a function, bad `nonlocal`), exactly what running the code would hit.
// Nothing is executed, but the same limits as runPython apply since the input is untrusted.
import { runChild } from './child';
import { resolveOptions, type SandboxOptions } from './options';
import { resolvePython } from './python';

const CHECKER = `
import json, resource, sys, warnings
payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
if payload["memory_bytes"]:
    resource.setrlimit(resource.RLIMIT_AS, (payload["memory_bytes"], resource.getrlimit(resource.RLIMIT_AS)[1]))
warnings.simplefilter("ignore")
ok = []
for source in payload["codes"]:
    try:
        compile(source, "<snippet>", "exec", dont_inherit=True)
        ok.append(True)
    except Exception:  # SyntaxError, ValueError (null bytes), MemoryError, RecursionError
        ok.append(False)
sys.stdout.write(json.dumps(ok))
`;

export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** One boolean per snippet, in order: true when it compiles as a Python module. */
export async function checkSyntax(codes: readonly string[], opts: SandboxOptions = {}): Promise<boolean[]> {
  if (codes.length === 0) return [];
  // Default time budget grows with the batch: 5 s plus 10 ms per snippet.
  const o = resolveOptions({ ...opts, timeoutMs: opts.timeoutMs ?? 5000 + 10 * codes.length });
  const stdin = JSON.stringify({ codes, memory_bytes: o.memoryMb * 1024 * 1024 });
  const out = await runChild({
    python: resolvePython(o.python),
    args: ['-I', '-c', CHECKER],
    stdin,
    timeoutMs: o.timeoutMs,
    // The answer is ~6 bytes per snippet; warnings are silenced, so anything larger means trouble.
    outputCapBytes: Math.max(o.outputCapBytes, 16 * codes.length + 1024),
    keepStdout: true,
  });
  let ok: unknown;
  try {
    ok = JSON.parse(out.stdout);
  } catch {
    ok = undefined;
  }
  if (!Array.isArray(ok) || ok.length !== codes.length || out.exitCode !== 0) {
    const why = out.timedOut ? `timed out after ${o.timeoutMs} ms` : `exit code ${out.exitCode ?? out.signal}: ${out.stderrTail.trim().slice(-500)}`;
    throw new SandboxError(`checkSyntax: the python checker failed (${why})`);
  }
  return ok.map((v) => v === true);
}
