import * as tf from '@tensorflow/tfjs';
import { initBackend } from './select';
import { expectAllClose, runOn, seededValues } from './testing';

beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
});

describe('UnsortedSegmentSum on wasm', () => {
  test('sums rows into segments, with repeated ids and empty segments', async () => {
    const [got] = await runOn('wasm', () =>
      tf.unsortedSegmentSum(tf.tensor2d([[1, 2], [3, 4], [5, 6], [7, 8]]), tf.tensor1d([3, 0, 3, 3], 'int32'), 5),
    );
    // segment 0 <- row 1; segment 3 <- rows 0, 2, 3; segments 1, 2, 4 empty
    expect(Array.from(got)).toEqual([3, 4, 0, 0, 0, 0, 13, 16, 0, 0]);
  });

  test('matches cpu for float32 and int32', async () => {
    const x = seededValues(12 * 5, 1);
    const ids = Int32Array.from([0, 2, 2, 1, 0, 5, 5, 5, 3, 0, 1, 2]);
    const fn = () => [
      tf.unsortedSegmentSum(tf.tensor(x, [12, 5]), tf.tensor(ids, [12], 'int32'), 6),
      tf.unsortedSegmentSum(tf.tensor(x, [12, 5]).mul(10).toInt(), tf.tensor(ids, [12], 'int32'), 6),
    ];
    expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn));
  });

  test('2-D segment ids (TF semantics, beyond tfjs cpu) equal the flattened 1-D case', async () => {
    const x = seededValues(12 * 5, 1);
    const ids = Int32Array.from([0, 2, 2, 1, 0, 5, 5, 5, 3, 0, 1, 2]);
    // tfjs types segmentIds as 1-D; the kernel follows TF, where they may have any prefix shape.
    const ids2d = () => tf.tensor(ids, [4, 3], 'int32') as unknown as tf.Tensor1D;
    const got = await runOn('wasm', () => tf.unsortedSegmentSum(tf.tensor(x, [4, 3, 5]), ids2d(), 7));
    const want = await runOn('cpu', () => tf.unsortedSegmentSum(tf.tensor(x, [12, 5]), tf.tensor(ids, [12], 'int32'), 7));
    expectAllClose(got, want);
  });

  test('rejects a segment id outside [0, numSegments)', async () => {
    await tf.setBackend('wasm');
    const x = tf.ones([3, 2]);
    const ids = tf.tensor1d([0, 4, 1], 'int32');
    expect(() => tf.unsortedSegmentSum(x, ids, 4)).toThrow(
      'UnsortedSegmentSum (wasm): segmentIds[1] = 4 is outside [0, 4)',
    );
    tf.dispose([x, ids]);
  });
});

describe('gradient of tf.gather (embedding lookup) on wasm', () => {
  const vocab = 11;
  const dim = 6;
  const table = seededValues(vocab * dim, 2);
  // [B=2, T=5] token ids with repeats within and across rows; ids 0, 4, 8 unused.
  const tokens = Int32Array.from([1, 3, 3, 7, 1, 9, 3, 10, 2, 2]);
  const w = seededValues(2 * 5 * dim, 3);
  const grad = () =>
    tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, tf.tensor(tokens, [2, 5], 'int32')), tf.tensor(w, [2, 5, dim]))))(
      tf.tensor(table, [vocab, dim]),
    );

  test('matches cpu', async () => {
    expectAllClose(await runOn('wasm', grad), await runOn('cpu', grad));
  });

  test('equals the upstream gradient summed per token id', async () => {
    const [got] = await runOn('wasm', grad);
    const want = new Float32Array(vocab * dim);
    tokens.forEach((id, pos) => {
      for (let j = 0; j < dim; j++) want[id * dim + j] += w[pos * dim + j];
    });
    expectAllClose([got], [want]);
    expect(Array.from(got.slice(0, dim))).toEqual(new Array(dim).fill(0)); // id 0 never used
  });

  test('gather along axis 1 (a [B, V, C] table) matches cpu', async () => {
    const x = seededValues(2 * vocab * 3, 4);
    const fn = () =>
      tf.grad((t: tf.Tensor) => tf.sum(tf.square(tf.gather(t, tf.tensor1d([4, 4, 0, 10], 'int32'), 1))))(
        tf.tensor(x, [2, vocab, 3]),
      );
    expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn));
  });
});
