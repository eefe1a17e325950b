// readFloats: a float32 tensor's values copied into a buffer the caller reuses. tfjs's dataSync / data() return a new
// array on every read; for a decoder that reads [rows, vocab] logits every step (4 MB at 64 rows of a 16k vocabulary)
// those fresh megabytes (page faults, then garbage) cost more than the copy itself. On the wasm backend the values
// are copied straight from its heap; elsewhere through dataSync.
import * as tf from '@tensorflow/tfjs';
import { heapF32, heapOffset, internals } from './wasm-internals';

/** t's values in `into` (its first t.size elements, returned as a view) when it is long enough, else in a new array. */
export function readFloats(t: tf.Tensor, into?: Float32Array): Float32Array {
  if (t.dtype !== 'float32') throw new Error(`readFloats: needs a float32 tensor, got ${t.dtype}`);
  const out = into && into.length >= t.size ? into.subarray(0, t.size) : new Float32Array(t.size);
  if (tf.getBackend() === 'wasm') {
    const backend = internals(tf.backend());
    const from = heapOffset(backend, t) / 4;
    out.set(heapF32(backend).subarray(from, from + t.size));
  } else {
    out.set(t.dataSync() as Float32Array);
  }
  return out;
}
