// readFloats: the same values as dataSync, into the caller's buffer when it is long enough.
import * as tf from '@tensorflow/tfjs';
import { readFloats } from './index';
import { initBackend } from './select';

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

describe('readFloats (wasm: from the heap)', () => {
  it('copies a tensor into the given buffer and returns a view of its first t.size elements', () => {
    const t = tf.tensor2d([1.5, -2, 3, 4.25, 5, -6], [2, 3]);
    const buffer = new Float32Array(10).fill(7);
    const got = readFloats(t, buffer);
    expect(Array.from(got)).toEqual(Array.from(t.dataSync()));
    expect(got.buffer).toBe(buffer.buffer);
    expect(buffer[6]).toBe(7); // past t.size: untouched
    t.dispose();
  });

  it('makes a new array when none is given or the buffer is short, and refuses other dtypes', () => {
    const t = tf.tensor1d([1, 2, 3]);
    const short = new Float32Array(2);
    const got = readFloats(t, short);
    expect(got).not.toBe(short);
    expect(Array.from(got)).toEqual([1, 2, 3]);
    expect(Array.from(readFloats(t))).toEqual([1, 2, 3]);
    const ints = tf.tensor1d([1, 2], 'int32');
    expect(() => readFloats(ints)).toThrow('readFloats: needs a float32 tensor, got int32');
    tf.dispose([t, ints]);
  });

  it('reads the cpu backend too (through dataSync)', async () => {
    await tf.setBackend('cpu');
    const t = tf.tensor1d([4, 5]);
    expect(Array.from(readFloats(t, new Float32Array(4)))).toEqual([4, 5]);
    t.dispose();
    await tf.setBackend('wasm');
  });
});
