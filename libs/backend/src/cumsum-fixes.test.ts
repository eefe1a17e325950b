import * as tf from '@tensorflow/tfjs';
import { initBackend } from './select';
import { expectAllClose, runOn } from './testing';

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

const X = Float32Array.from([1, 2, 3, 4, 5, 6]); // [[1, 2, 3], [4, 5, 6]]
const W = Float32Array.from([1, 2, 3, 1, 1, 1]);

for (const backend of ['wasm', 'cpu']) {
  describe(`negative axes on ${backend}`, () => {
    test('cumsum / cumprod with axis -1 equal axis 1', async () => {
      const [got, gotExclRev, gotProd] = await runOn(backend, () => [
        tf.cumsum(tf.tensor(X, [2, 3]), -1),
        tf.cumsum(tf.tensor(X, [2, 3]), -1, true, true),
        tf.cumprod(tf.tensor(X, [2, 3]), -2),
      ]);
      expect(Array.from(got)).toEqual([1, 3, 6, 4, 9, 15]);
      expect(Array.from(gotExclRev)).toEqual([5, 3, 0, 11, 6, 0]);
      expect(Array.from(gotProd)).toEqual([1, 2, 3, 4, 10, 18]);
    });

    test('the gradient of cumsum(x, -1) equals that of cumsum(x, 1)', async () => {
      const grad = (axis: number) => () =>
        tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.cumsum(t, axis), tf.tensor(W, [2, 3]))))(tf.tensor(X, [2, 3]));
      const got = await runOn(backend, grad(-1));
      expect(Array.from(got[0])).toEqual([6, 5, 3, 3, 2, 1]);
      expectAllClose(got, await runOn(backend, grad(1)));
    });

    test('an out-of-range axis is rejected', async () => {
      await tf.setBackend(backend);
      const x = tf.tensor(X, [2, 3]);
      expect(() => tf.cumsum(x, -3)).toThrow('Cumsum: axis -3 is out of range for a tensor of rank 2');
      expect(() => tf.cumprod(x, 2)).toThrow('Cumprod: axis 2 is out of range for a tensor of rank 2');
      x.dispose();
    });
  });
}
