import * as tf from '@tensorflow/tfjs';
import { nativeAddon } from '@rlhf-code/backend';
import { nativeAddonBuilt } from '@rlhf-code/backend/testing';
import { clipByGlobalNorm, globalNorm } from './clip';
import { useTestBackend } from './testing/backend';

useTestBackend();

// Global norm of {a: [3, 4], b: [[12]]} is sqrt(9 + 16 + 144) = 13.
const makeGrads = () => ({ a: tf.tensor1d([3, 4]), b: tf.tensor2d([[12]]) });

describe('clipByGlobalNorm', () => {
  it('returns equal copies and the norm when the norm is below maxNorm', () => {
    const grads = makeGrads();
    const out = clipByGlobalNorm(grads, 20);
    expect(out.norm).toBeCloseTo(13, 5);
    tf.dispose(grads); // the outputs are the caller's own tensors
    expect(Array.from(out.grads.a.dataSync())).toEqual([3, 4]);
    expect(Array.from(out.grads.b.dataSync())).toEqual([12]);
    tf.dispose(out.grads);
  });

  it('scales all gradients to the max norm when above it', () => {
    const grads = makeGrads();
    const out = clipByGlobalNorm(grads, 6.5);
    expect(out.norm).toBeCloseTo(13, 5);
    const [a, b] = [out.grads.a.dataSync(), out.grads.b.dataSync()];
    [1.5, 2].forEach((x, i) => expect(a[i]).toBeCloseTo(x, 5));
    expect(b[0]).toBeCloseTo(6, 5);
    expect(Math.hypot(a[0], a[1], b[0])).toBeCloseTo(6.5, 5);
    tf.dispose([grads, out.grads]);
  });

  it.each([
    [NaN, NaN],
    [Infinity, Infinity],
  ])('reports a non-finite norm (%p) and leaves the gradients unscaled', (bad, expected) => {
    const grads = { a: tf.tensor1d([3, bad]), b: tf.tensor1d([100]) };
    const out = clipByGlobalNorm(grads, 1);
    expect(out.norm).toBe(expected);
    expect(out.grads.b.dataSync()[0]).toBe(100);
    tf.dispose([grads, out.grads]);
  });

  it('leaves no tensor behind and rejects a bad maxNorm', () => {
    const grads = makeGrads();
    const before = tf.memory().numTensors;
    tf.dispose(clipByGlobalNorm(grads, 1).grads);
    expect(tf.memory().numTensors).toBe(before);
    expect(clipByGlobalNorm({}, 1)).toEqual({ grads: {}, norm: 0 });
    expect(() => clipByGlobalNorm(grads, 0)).toThrow('clipByGlobalNorm: invalid maxNorm 0');
    tf.dispose(grads);
  });
});

describe('globalNorm', () => {
  it('equals a float64 sum of squares, the native pass (where built) independent of its thread count', () => {
    // Sizes around the native pass's chunk (2^16) and its threading threshold (2^18), and a tail of 3.
    const sizes = [3, 65537, 300001, 1];
    const tensors = sizes.map((n, t) => tf.tensor1d(Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7 + t) * (t + 1))));
    let exact = 0;
    for (const x of tensors) for (const v of x.dataSync()) exact += v * v;
    const grads = Object.fromEntries(tensors.map((x, i) => [`p${i}`, x]));
    const before = tf.memory().numTensors;
    const norm = globalNorm(grads);
    expect(tf.memory().numTensors).toBe(before);
    expect(Math.abs(norm - Math.sqrt(exact)) / Math.sqrt(exact)).toBeLessThan(nativeAddonBuilt() ? 1e-12 : 1e-5);
    const addon = nativeAddon();
    if (nativeAddonBuilt()) {
      expect(addon).not.toBeNull(); // the native pass ran
      const threads = addon!.info().threads;
      addon!.configure(1, addon!.info().gemm);
      const one = globalNorm(grads);
      addon!.configure(threads, addon!.info().gemm);
      expect(one).toBe(norm);
    }
    expect(globalNorm({})).toBe(0);
    const bad = tf.tensor1d([3, NaN]);
    expect(globalNorm({ a: bad })).toBeNaN();
    tf.dispose([...tensors, bad]);
  });
});
