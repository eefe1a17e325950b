// The wasm heap guard: a tensor that does not fit in the 4 GB wasm heap is an error naming the cure, not a tensor
// silently placed at address 0 (without the guard, the probe "allocates" a 4th GiB and later dies of a
// "memory access out of bounds" somewhere else).
import { spawnSync } from 'child_process';
import * as path from 'path';

describe('guardWasmHeap', () => {
  it('turns a failed wasm malloc into WasmOutOfMemoryError, and the backend keeps working after', () => {
    const probe = path.join(__dirname, 'oom-probe.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', probe], { encoding: 'utf8', timeout: 120_000, cwd: path.join(__dirname, '../../..') });
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    // 3 GiB of tensors fit beside the backend's own memory; the 4th GiB cannot.
    expect(lines[0]).toMatch(
      /^WasmOutOfMemoryError: the wasm backend is out of memory: a 1024 MB tensor did not fit \(the heap holds \d+ MB and no wasm program can address more than 4 GB\)\. Use a smaller batch \(--batch-size, with --grad-accum/,
    );
    expect(lines.slice(1)).toEqual(['kept 3', 'sum 4']);
  });
});
