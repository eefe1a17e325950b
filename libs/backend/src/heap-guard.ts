// The wasm backend's answer to "out of memory" is silence: BackendWasm.move() takes whatever wasm._malloc returns,
// and Emscripten's malloc returns 0 when the heap cannot grow (every wasm build stops at 4 GB). tfjs then places the
// new tensor at address 0, over live data, and the process corrupts its heap and spins (measured: `sft train
// --batch-size 8` with 512-token examples on models/base sat at step 0 with one core busy and > 4 GB resident).
// The guard turns that 0 into an error the apps print as one line.
import * as tf from '@tensorflow/tfjs';

interface EmscriptenHeap {
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
}

export class WasmOutOfMemoryError extends Error {
  constructor(
    readonly bytes: number,
    readonly heapBytes: number,
  ) {
    super(
      `the wasm backend is out of memory: a ${mb(bytes)} tensor did not fit (the heap holds ${mb(heapBytes)} and no wasm ` +
        'program can address more than 4 GB). Use a smaller batch (--batch-size, with --grad-accum to keep the effective ' +
        'batch) or shorter sequences, or install @tensorflow/tfjs-node, which has no such limit',
    );
    this.name = 'WasmOutOfMemoryError';
  }
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const guarded = new WeakSet<object>();

/** Make the current wasm backend throw WasmOutOfMemoryError instead of using address 0 (idempotent). */
export function guardWasmHeap(): void {
  const wasm = (tf.backend() as unknown as { wasm: EmscriptenHeap }).wasm;
  if (guarded.has(wasm)) return;
  // Emscripten's _malloc starts as a stub that replaces itself with the real export on its first call: call it once,
  // so the function wrapped below is the real one and the stub cannot overwrite the wrapper later.
  wasm._free(wasm._malloc(8));
  const malloc = wasm._malloc;
  wasm._malloc = (bytes: number) => {
    const ptr = malloc(bytes);
    if (ptr === 0 && bytes > 0) throw new WasmOutOfMemoryError(bytes, wasm.HEAPU8.length);
    return ptr;
  };
  guarded.add(wasm);
}
