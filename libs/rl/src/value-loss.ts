// The critic's clipped value loss (as in TRL / OpenAI baselines), per token:
//   vClipped = oldValues + clip(vpred - oldValues, -eps, eps)
//   loss     = 0.5 * max((vpred - returns)^2, (vClipped - returns)^2)
// It keeps one PPO epoch from moving a value estimate far from the one GAE used.
import * as tf from '@tensorflow/tfjs';
import { aggregate, checkSameShape, LossAggregation, maskedMean } from './masked';

// A type alias (not an interface) so tf.tidy accepts it as a TensorContainer.
export type ValueLossResult = {
  loss: tf.Scalar;
  /** Share of real tokens where the clipped error was the larger one (TRL's ppo/val/clipfrac). */
  clipfrac: tf.Scalar;
};

/** vpred [B, T] (differentiable), oldValues, returns, mask [B, T]; clipRange Infinity = no clipping. */
export function clippedValueLoss(
  vpred: tf.Tensor,
  oldValues: tf.Tensor,
  returns: tf.Tensor,
  mask: tf.Tensor,
  clipRange: number,
  aggregation: LossAggregation = 'token-mean',
): ValueLossResult {
  checkSameShape('clippedValueLoss', { vpred, oldValues, returns, mask });
  if (!(clipRange > 0)) throw new Error(`clippedValueLoss: clipRange must be > 0 (Infinity = off), got ${clipRange}`);
  return tf.tidy(() => {
    const err = tf.square(tf.sub(vpred, returns)); // [B, T]
    const vClipped = clipRange === Infinity ? vpred : tf.add(oldValues, tf.clipByValue(tf.sub(vpred, oldValues), -clipRange, clipRange));
    const errClipped = tf.square(tf.sub(vClipped, returns));
    const loss = tf.mul(0.5, aggregate(tf.maximum(err, errClipped), mask, aggregation)) as tf.Scalar;
    const clipfrac = maskedMean(tf.cast(tf.greater(errClipped, err), 'float32'), mask);
    return { loss, clipfrac };
  });
}
