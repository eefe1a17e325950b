// trainStepFlops: the matrix FLOPs that bench train divides by the step time, counted by hand for a small shape;
// profileStep: a step's kernels, their calls and times (bench train --profile).
import * as tf from '@tensorflow/tfjs';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';
import { formatProfile, profileStep, trainStepFlops } from './speed';

test('a training step counts 3 x (2 per weight + attention) per token, 2 x with LoRA', () => {
  // hidden 8, 2 heads of 4, 1 KV head, MLP 16, vocabulary 10: per layer q 8x8, k and v 8x4 each, o 8x8, gate/up/down
  // 8x16 each = 64 + 64 + 64 + 384 = 576 weights, the LM head 80: 656; forward 2 x 656 + attention 4 x 4 x 8 = 1,440.
  const shape = { hidden: 8, layers: 1, heads: 2, kv: 1, ffn: 16, vocab: 10, seq: 4, batch: 1, loraRank: 0 };
  expect(trainStepFlops(shape)).toBe(3 * 1440 * 4);
  expect(trainStepFlops({ ...shape, loraRank: 2 })).toBe(2 * 1440 * 4);
  expect(trainStepFlops({ ...shape, batch: 3 })).toBe(3 * 3 * 1440 * 4);
});

describe('profileStep: where a step goes', () => {
  useTestBackend();

  test('every kernel of the step, calls counted, times summed; the table names them with their shares', async () => {
    const a = tf.randomNormal([64, 64]);
    const before = tf.memory().numTensors;
    const p = await profileStep(() => {
      tf.tidy(() => {
        const x = tf.matMul(a, a); // BatchMatMul
        tf.matMul(x, a);
        tf.exp(tf.add(x, 1)); // Add, Exp
        // A custom-gradient function runs as a scope around its kernels: those are counted once, the scope not at all.
        tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => ({ value: tf.neg(args[0] as tf.Tensor), gradFunc: (dy: tf.Tensor) => tf.neg(dy) }))(x);
      });
    });
    expect(tf.memory().numTensors).toBe(before);
    a.dispose();
    const byName = Object.fromEntries(p.kernels.map((k) => [k.kernel, k]));
    expect(byName.BatchMatMul.calls).toBe(2);
    expect(byName.Exp.calls).toBe(1);
    expect(byName.Neg.calls).toBe(1);
    expect(p.kernels.map((k) => k.kernel)).not.toContain('unnamed scope');
    for (const k of p.kernels) expect(k.ms).toBeGreaterThanOrEqual(0);
    // Largest first, and the kernels plus the rest make the step's wall time.
    expect(p.kernels.map((k) => k.ms)).toEqual([...p.kernels.map((k) => k.ms)].sort((x, y) => y - x));
    const sum = p.kernels.reduce((s, k) => s + k.ms, 0) + p.other_ms;
    expect(Math.abs(sum - p.step_ms)).toBeLessThan(0.5);
    const table = formatProfile(p).split('\n');
    expect(table[0]).toMatch(/^\| kernel +\| calls \| +ms \| share \|$/);
    expect(table.find((l) => l.startsWith('| BatchMatMul'))).toMatch(/^\| BatchMatMul +\| +2 \| +[\d.]+ \| +[\d.]+% \|$/);
    expect(table.at(-1)).toBe(`step under the profiler: ${p.step_ms} ms`);
  });
});
