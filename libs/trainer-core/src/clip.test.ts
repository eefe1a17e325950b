import * as tf from '@tensorflow/tfjs';
import { clipByGlobalNorm } from './clip';
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
