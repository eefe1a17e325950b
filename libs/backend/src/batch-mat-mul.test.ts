import * as tf from '@tensorflow/tfjs';
import { useBatchMatMul } from './register';
import { initBackend } from './select';
import { expectAllClose, expectWasmMatMulMatchesReference, referenceMatMul, runOn, seededValues } from './testing';

// [a batch dims, b batch dims] with M=5, K=7, N=3: rank-2, b batch 1 (folded into rows), equal
// batches, a broadcast, both broadcast, attention-like rank 4.
const BATCH_CASES: Array<[string, number[], number[]]> = [
  ['2d x 2d', [], []],
  ['[B] x 2d', [4], []],
  ['[B] x [1]', [4], [1]],
  ['[B] x [B]', [4], [4]],
  ['2d x [B]', [], [4]],
  ['[1] x [B]', [1], [4]],
  ['[2,1] x [1,3]', [2, 1], [1, 3]],
  ['[B,H] x [B,H]', [2, 3], [2, 3]],
  ['[B,H] x [1,H]', [2, 3], [1, 3]],
];
const TRANSPOSES: Array<[boolean, boolean]> = [[false, false], [true, false], [false, true], [true, true]];
const [M, K, N] = [5, 7, 3];

function operandShapes(aBatch: number[], bBatch: number[], ta: boolean, tb: boolean): [number[], number[]] {
  return [[...aBatch, ...(ta ? [K, M] : [M, K])], [...bBatch, ...(tb ? [N, K] : [K, N])]];
}

// These tests are of the XNNPACK-based kernel (the fallback when the native addon is absent);
// native-kernels.test.ts tests the native one.
beforeAll(async () => {
  await initBackend({ backend: 'wasm', quiet: true });
  useBatchMatMul('fast');
});

describe('fast wasm BatchMatMul: forward values against a naive reference', () => {
  for (const [name, aBatch, bBatch] of BATCH_CASES) {
    for (const [ta, tb] of TRANSPOSES) {
      test(`${name}, transposeA=${ta}, transposeB=${tb}`, async () => {
        const [aShape, bShape] = operandShapes(aBatch, bBatch, ta, tb);
        const a = seededValues(aShape.reduce((x, y) => x * y, 1), 1);
        const b = seededValues(bShape.reduce((x, y) => x * y, 1), 2);
        await expectWasmMatMulMatchesReference(a, aShape, b, bShape, ta, tb);
      });
    }
  }
});

describe('BatchMatMul gradient on wasm against cpu with explicit broadcasting', () => {
  // Reference: broadcast both operands to the full batch shape with tf.broadcastTo on cpu (whose
  // gradient sums over the broadcast axes), so it does not rely on the matmul gradient's reduction.
  for (const [name, aBatch, bBatch] of BATCH_CASES) {
    for (const [ta, tb] of TRANSPOSES) {
      test(`${name}, transposeA=${ta}, transposeB=${tb}`, async () => {
        const [aShape, bShape] = operandShapes(aBatch, bBatch, ta, tb);
        const a = seededValues(aShape.reduce((x, y) => x * y, 1), 3);
        const b = seededValues(bShape.reduce((x, y) => x * y, 1), 4);
        const outShape = referenceMatMul(a, aShape, b, bShape, ta, tb).shape;
        const w = seededValues(outShape.reduce((x, y) => x * y, 1), 5);
        const batchShape = outShape.slice(0, -2);
        const loss = (explicit: boolean) => (x: tf.Tensor, y: tf.Tensor) => {
          const xb = explicit ? tf.broadcastTo(x, [...batchShape, ...x.shape.slice(-2)]) : x;
          const yb = explicit ? tf.broadcastTo(y, [...batchShape, ...y.shape.slice(-2)]) : y;
          return tf.sum(tf.mul(tf.matMul(xb, yb, ta, tb), tf.tensor(w, outShape)));
        };
        const grads = (explicit: boolean) => () =>
          tf.grads(loss(explicit))([tf.tensor(a, aShape), tf.tensor(b, bShape)]);
        const got = await runOn('wasm', grads(false));
        const want = await runOn('cpu', grads(true));
        expectAllClose(got, want);
      });
    }
  }
});

describe('fast wasm BatchMatMul: memory and cache', () => {
  test('leaves no tensors or wasm buffers behind', async () => {
    await tf.setBackend('wasm');
    const a = tf.tensor(seededValues(2 * 3 * 8 * 4, 6), [2, 3, 8, 4]);
    const b = tf.tensor(seededValues(2 * 3 * 8 * 4, 7), [2, 3, 8, 4]);
    const w = tf.tensor(seededValues(4 * 6, 8), [4, 6]);
    const before = { tensors: tf.memory().numTensors, dataIds: tf.engine().backend.numDataIds() };
    for (let i = 0; i < 3; i++) {
      tf.tidy(() => {
        tf.matMul(a, b, false, true).dataSync();
        tf.matMul(a, b, true, false).dataSync();
        tf.matMul(a, w).dataSync();
        tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.matMul(x, y, false, true)))([a, b]);
        tf.grads((x: tf.Tensor, v: tf.Tensor) => tf.sum(tf.matMul(x, v)))([a, w]);
      });
    }
    expect({ tensors: tf.memory().numTensors, dataIds: tf.engine().backend.numDataIds() }).toEqual(before);
    tf.dispose([a, b, w]);
  });

  test('a new b tensor in freed memory is not served by a stale cached XNNPACK operator', async () => {
    // XNNPACK keeps b packed per tensor id; ids are never reused, but memory is. Alternate whole
    // (cached by id) and batched (view ids) b's, disposing each so the next reuses its memory.
    const aShape = [3, M, K];
    const a = seededValues(3 * M * K, 9);
    for (let round = 0; round < 4; round++) {
      const bShape = round % 2 === 0 ? [K, N] : [3, K, N];
      const b = seededValues(bShape.reduce((x, y) => x * y, 1), 10 + round);
      const [got] = await runOn('wasm', () => tf.matMul(tf.tensor(a, aShape), tf.tensor(b, bShape)));
      expectAllClose([got], [referenceMatMul(a, aShape, b, bShape, false, false).values]);
    }
  });

  test('a reshaped b (same buffer, another [K, N]) is not served by the operator packed for the first shape', async () => {
    const w = seededValues(24, 30);
    const x = seededValues(2 * 4, 31);
    const y = seededValues(2 * 6, 32);
    const [first, second] = await runOn('wasm', () => {
      const weights = tf.tensor(w, [4, 6]);
      return [tf.matMul(tf.tensor(x, [2, 4]), weights), tf.matMul(tf.tensor(y, [2, 6]), tf.reshape(weights, [6, 4]))];
    });
    expectAllClose([first], [referenceMatMul(x, [2, 4], w, [4, 6], false, false).values]);
    expectAllClose([second], [referenceMatMul(y, [2, 6], w, [6, 4], false, false).values]);
  });

  test('rejects non-float32 inputs with a clear error', async () => {
    await tf.setBackend('wasm');
    const a = tf.tensor2d([[1, 2]], [1, 2], 'int32');
    const b = tf.tensor2d([[1], [2]], [2, 1], 'int32');
    expect(() => tf.matMul(a, b)).toThrow('BatchMatMul (wasm): only float32 is supported, got a int32 and b int32');
    tf.dispose([a, b]);
  });

  test('larger sizes (XNNPACK tiles, 2 threads) match cpu', async () => {
    const a = seededValues(2 * 4 * 130 * 40, 20);
    const b = seededValues(2 * 4 * 130 * 40, 21);
    const fn = () => [
      tf.matMul(tf.tensor(a, [2, 4, 130, 40]), tf.tensor(b, [2, 4, 130, 40]), false, true),
      tf.matMul(tf.tensor(a, [1040, 40]), tf.tensor(b, [40, 1040]).slice([0, 0], [40, 300])),
    ];
    expectAllClose(await runOn('wasm', fn), await runOn('cpu', fn), 1e-4, 1e-4);
  });
});
