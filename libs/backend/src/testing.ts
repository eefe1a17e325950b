// Helpers for the backend tests: run one computation on two backends and compare the numbers.
import * as tf from '@tensorflow/tfjs';

/** Deterministic values in [-1, 1) (a small LCG: tests must not depend on tfjs's RNG or backend). */
export function seededValues(size: number, seed: number): Float32Array {
  const out = new Float32Array(size);
  let state = (seed * 2654435761) >>> 0;
  for (let i = 0; i < size; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 2 ** 31 - 1;
  }
  return out;
}

/**
 * Switches to `backend`, runs `fn` (tensors it creates are disposed) and returns its outputs as
 * plain arrays. Inputs must be created inside `fn` so they live on that backend.
 */
export async function runOn(backend: string, fn: () => tf.Tensor | tf.Tensor[]): Promise<Float32Array[]> {
  if (!(await tf.setBackend(backend))) throw new Error(`tf.setBackend('${backend}') failed`);
  const outputs = tf.tidy(() => {
    const out = fn();
    return Array.isArray(out) ? out : [out];
  });
  const values = outputs.map((t) => Float32Array.from(t.dataSync()));
  tf.dispose(outputs);
  return values;
}

/** Largest |a - b| / (atol + rtol * |b|) over all elements; <= 1 means close. */
export function closeness(actual: ArrayLike<number>, expected: ArrayLike<number>, atol = 1e-5, rtol = 1e-4): number {
  if (actual.length !== expected.length) {
    throw new Error(`closeness: length ${actual.length} != expected length ${expected.length}`);
  }
  let worst = 0;
  for (let i = 0; i < actual.length; i++) {
    const err = Math.abs(actual[i] - expected[i]) / (atol + rtol * Math.abs(expected[i]));
    if (!(err <= worst)) worst = err; // NaN-safe: a NaN error becomes the worst
  }
  return worst;
}

/** Asserts that two lists of outputs match element-wise. */
export function expectAllClose(actual: Float32Array[], expected: Float32Array[], atol = 1e-5, rtol = 1e-4): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const worst = closeness(a, expected[i], atol, rtol);
    if (!(worst <= 1)) throw new Error(`output ${i}: max scaled error ${worst} (atol ${atol}, rtol ${rtol})`);
  });
}
