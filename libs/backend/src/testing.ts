// Helpers for the backend tests: run one computation on two backends and compare the numbers.
import * as fs from 'fs';
import * as tf from '@tensorflow/tfjs';
import { runtimeSettings } from '@rlhf-code/cli';
import { ADDON_FILE } from './native';
import { nativeOwnKernelConfigs } from './native-kernels';

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

/** Naive matmul with numpy-style batch broadcasting: the reference for forward values. */
export function referenceMatMul(
  a: Float32Array, aShape: number[], b: Float32Array, bShape: number[], transposeA: boolean, transposeB: boolean,
): { values: Float32Array; shape: number[] } {
  const ra = aShape.length;
  const rb = bShape.length;
  const [m, k] = transposeA ? [aShape[ra - 1], aShape[ra - 2]] : [aShape[ra - 2], aShape[ra - 1]];
  const n = transposeB ? bShape[rb - 2] : bShape[rb - 1];
  const aBatch = aShape.slice(0, -2);
  const bBatch = bShape.slice(0, -2);
  const rank = Math.max(aBatch.length, bBatch.length);
  const pad = (s: number[]) => [...Array(rank - s.length).fill(1), ...s];
  const [pa, pb] = [pad(aBatch), pad(bBatch)];
  const batchShape = pa.map((d, i) => Math.max(d, pb[i]));
  const batch = batchShape.reduce((x, y) => x * y, 1);
  const values = new Float32Array(batch * m * n);
  for (let flat = 0; flat < batch; flat++) {
    let rest = flat;
    let ai = 0, bi = 0, aStride = 1, bStride = 1;
    for (let d = rank - 1; d >= 0; d--) {
      const c = rest % batchShape[d];
      rest = Math.floor(rest / batchShape[d]);
      if (pa[d] !== 1) ai += c * aStride;
      if (pb[d] !== 1) bi += c * bStride;
      aStride *= pa[d];
      bStride *= pb[d];
    }
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let acc = 0;
        for (let p = 0; p < k; p++) {
          const av = a[ai * m * k + (transposeA ? p * m + i : i * k + p)];
          const bv = b[bi * k * n + (transposeB ? j * k + p : p * n + j)];
          acc += av * bv;
        }
        values[flat * m * n + i * n + j] = acc;
      }
    }
  }
  return { values, shape: [...batchShape, m, n] };
}

/**
 * Runs `fn` with the project's own native kernels (native-kernels.ts) hidden from the current backend, so that
 * callers take their composite tfjs path (the path of tfjs-node, cpu, and wasm without the addon); BatchMatMul
 * stays as it is.
 */
export async function withoutNativeKernels<T>(fn: () => T | Promise<T>): Promise<T> {
  const backendName = tf.getBackend();
  const hidden = nativeOwnKernelConfigs.map((c) => tf.getKernel(c.kernelName, backendName)).filter((k) => k != null);
  for (const k of hidden) tf.unregisterKernel(k.kernelName, k.backendName);
  try {
    return await fn();
  } finally {
    for (const k of hidden) tf.registerKernel(k);
  }
}

/** Whether this process will run the native kernels: the addon is built, this is Linux x86-64, the runtime setting native is on. */
export function nativeAddonBuilt(): boolean {
  return process.platform === 'linux' && process.arch === 'x64' && runtimeSettings().native && fs.existsSync(ADDON_FILE);
}

/** Asserts that tf.matMul on the wasm backend gives referenceMatMul's shape and values for these operands. */
export async function expectWasmMatMulMatchesReference(
  a: Float32Array, aShape: number[], b: Float32Array, bShape: number[], transposeA: boolean, transposeB: boolean,
  atol = 1e-5, rtol = 1e-4,
): Promise<void> {
  const ref = referenceMatMul(a, aShape, b, bShape, transposeA, transposeB);
  let shape: number[] = [];
  const [got] = await runOn('wasm', () => {
    const out = tf.matMul(tf.tensor(a, aShape), tf.tensor(b, bShape), transposeA, transposeB);
    shape = out.shape;
    return out;
  });
  expect(shape).toEqual(ref.shape);
  expectAllClose([got], [ref.values], atol, rtol);
}
