import * as tf from '@tensorflow/tfjs';
import { initBackend } from './select';
import { expectAllClose, runOn, seededValues } from './testing';

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

const ROWS = [[0, 1, 2], [10, 11, 12], [20, 21, 22]];

describe('tf.gather with batchDims > 0 on wasm', () => {
  test('picks one entry per row (the stock wasm kernel returned 20 for the last row)', async () => {
    const [flat, column] = await runOn('wasm', () => [
      tf.gather(tf.tensor2d(ROWS), tf.tensor1d([2, 0, 1], 'int32'), 1, 1),
      tf.gather(tf.tensor2d(ROWS), tf.tensor2d([[2], [0], [1]], [3, 1], 'int32'), 1, 1),
    ]);
    expect(Array.from(flat)).toEqual([2, 10, 21]);
    expect(Array.from(column)).toEqual([2, 10, 21]);
  });

  test('matches cpu with outer dims between batch and axis, slices after it, int32 and bool', async () => {
    const x = seededValues(2 * 3 * 5 * 4, 1);
    const idx = Int32Array.from([4, 0, 4, 1, 3, 2]); // [2, 3]
    const fn = () => {
      const t = tf.tensor(x, [2, 3, 5, 4]);
      const ids = tf.tensor(idx, [2, 3], 'int32');
      return [
        tf.gather(t, ids, 2, 1), // [2, 3, 3, 4]: outer dim 3, slice 4
        tf.gather(t, tf.tensor(idx.map((v) => v % 3), [2, 3], 'int32'), 1, 1), // axis 1 has size 3
        tf.cast(tf.gather(tf.cast(tf.mul(t, 10), 'int32'), ids, 2, 1), 'float32'),
        tf.cast(tf.gather(tf.greater(t, 0), ids, 2, 1), 'float32'),
        tf.gather(t, tf.tensor(idx, [2, 3, 1], 'int32'), 2, 2), // batchDims 2
      ];
    };
    expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn));
  });

  test('long slices with batchDims 0 (copied a slice at a time): rows kept, repeated, reordered, as on cpu', async () => {
    const x = seededValues(5 * 2 * 3 * 64, 2);
    const fn = () => {
      const t = tf.tensor(x, [5, 2, 3, 64]); // a KV cache's [rows, KV, positions, hd]: slices of 384
      return [
        tf.gather(t, tf.tensor1d([4, 1, 1, 0], 'int32')),
        tf.gather(tf.reshape(t, [10, 192]), tf.tensor1d([9, 0, 3], 'int32'), 0), // embedding rows
        tf.gather(t, tf.tensor1d([2, 0], 'int32'), 2), // outer dims before the axis, slices of 64 after
        tf.gather(tf.reshape(t, [5, 384]), tf.tensor1d([3, 1], 'int32'), 1), // a short slice: the stock kernel
      ];
    };
    expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn), 0);
  });

  test('rejects an out-of-range index', async () => {
    await tf.setBackend('wasm');
    const x = tf.tensor2d(ROWS);
    const ids = tf.tensor1d([2, 3, 0], 'int32');
    expect(() => tf.gather(x, ids, 1, 1)).toThrow('GatherV2: the index value 3 is not in [0, 2]');
    tf.dispose([x, ids]);
  });
});
