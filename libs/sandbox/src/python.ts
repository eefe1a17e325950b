// Finding the Python interpreter: --python / the runtime setting python (RLHF_PYTHON, default `python3`) on PATH. Resolved in the parent to the
// real executable (`sys.executable`, which also sees through pyenv-style shell shims), because the sandboxed
// child runs with a minimal environment and a shim would re-add its own variables.
import { execFileSync } from 'child_process';
import { accessSync, constants, statSync } from 'fs';
import * as path from 'path';
import { runtimeSettings } from '@rlhf-code/cli';

export class PythonNotFoundError extends Error {
  override readonly name = 'PythonNotFoundError';
}

const notFound = (name: string) => new PythonNotFoundError(`${name} not found: install Python 3 or set --python / RLHF_PYTHON`);

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const resolved = new Map<string, string>(); // candidate path -> real interpreter, probed once per process

/** Absolute path of the Python 3 interpreter to use; throws PythonNotFoundError when there is none. */
export function resolvePython(python?: string): string {
  const name = python ?? runtimeSettings().python;
  // PATH: the system's search path for programs (not a setting of this project).
  const candidates = name.includes('/')
    ? [path.resolve(name)]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.resolve(dir, name));
  const found = candidates.find(isExecutableFile);
  if (!found) throw notFound(name);
  let real = resolved.get(found);
  if (real === undefined) {
    let out: string;
    try {
      out = execFileSync(found, ['-I', '-c', 'import sys; print(sys.version_info[0]); print(sys.executable)'], {
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      throw new PythonNotFoundError(`${name} (${found}) does not run: ${(err as Error).message.split('\n')[0]}; install Python 3 or set --python / RLHF_PYTHON`);
    }
    const [major, executable] = out.trim().split('\n');
    if (major !== '3') throw new PythonNotFoundError(`${name} (${found}) is Python ${major}, not Python 3: install Python 3 or set --python / RLHF_PYTHON`);
    real = executable && isExecutableFile(executable) ? executable : found;
    resolved.set(found, real);
  }
  return real;
}
