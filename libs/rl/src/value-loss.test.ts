import * as tf from '@tensorflow/tfjs';
import { clippedValueLoss } from './value-loss';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

describe('clippedValueLoss', () => {
  // old values 0, clip 0.2, vpred [0.5, 0.1, -0.5], returns [1, 1, -1]:
  //   t0: (0.5-1)^2 = 0.25 vs clipped (0.2-1)^2 = 0.64 -> 0.64, clipped (no gradient to vpred)
  //   t1: inside the range: 0.81 both ways -> 0.81, gradient 2 (0.1 - 1)
  //   t2: (-0.5+1)^2 = 0.25 vs clipped (-0.2+1)^2 = 0.64 -> 0.64, clipped
  // loss = 0.5 * (0.64 + 0.81 + 0.64) / 3
  const old = () => tf.zeros([1, 3]);
  const returns = () => tf.tensor2d([[1, 1, -1]]);
  const mask = () => tf.ones([1, 3]);

  it('matches the hand-computed loss, clipfrac and gradient', () => {
    const [o, ret, m] = [old(), returns(), mask()];
    const v = tf.tensor2d([[0.5, 0.1, -0.5]]);
    const r = clippedValueLoss(v, o, ret, m, 0.2);
    expect(r.loss.dataSync()[0]).toBeCloseTo((0.5 * (0.64 + 0.81 + 0.64)) / 3, 5);
    expect(r.clipfrac.dataSync()[0]).toBeCloseTo(2 / 3, 5);
    const g = tf.grad((x: tf.Tensor) => clippedValueLoss(x, o, ret, m, 0.2).loss)(v);
    const expected = [0, (0.5 * 2 * (0.1 - 1)) / 3, 0];
    Array.from(g.dataSync()).forEach((x, t) => expect(x).toBeCloseTo(expected[t], 5));
    tf.dispose([o, ret, m, v, r.loss, r.clipfrac, g]);
  });

  it('with no clipping is half the masked mean squared error', () => {
    const [o, ret] = [old(), returns()];
    const m = tf.tensor2d([[1, 1, 0]]);
    const v = tf.tensor2d([[0.5, 0.1, 7]]);
    const r = clippedValueLoss(v, o, ret, m, Infinity);
    expect(r.loss.dataSync()[0]).toBeCloseTo((0.5 * (0.25 + 0.81)) / 2, 5);
    expect(r.clipfrac.dataSync()[0]).toBe(0);
    tf.dispose([o, ret, m, v, r.loss, r.clipfrac]);
  });
});
