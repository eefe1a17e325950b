// Masked reductions for token-level losses. Response tokens are right padded, so every [B, T] tensor
// comes with a 0/1 mask of the same shape (1 = a real response token).
import * as tf from '@tensorflow/tfjs';

/**
 * How per-token losses become one number:
 *   token-mean: sum over all real tokens / number of real tokens (long responses weigh more; TRL, OpenRLHF)
 *   seq-mean:   mean over sequences of each sequence's token mean (every response weighs the same)
 */
export type LossAggregation = 'token-mean' | 'seq-mean';
export const LOSS_AGGREGATIONS: readonly LossAggregation[] = ['token-mean', 'seq-mean'];

/** Mean of x over the tokens where mask is 1: x, mask [B, T] -> scalar (0 for an empty mask). Differentiable in x. */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1))) as tf.Scalar;
}

/** x, mask [B, T] -> scalar, reduced as `mode` says. Rows without real tokens are left out of seq-mean. */
export function aggregate(x: tf.Tensor, mask: tf.Tensor, mode: LossAggregation = 'token-mean'): tf.Scalar {
  if (x.rank !== 2 || !tf.util.arraysEqual(x.shape, mask.shape)) {
    throw new Error(`aggregate: x and mask must both be [B, T], got [${x.shape}] and [${mask.shape}]`);
  }
  if (mode === 'token-mean') return maskedMean(x, mask);
  if (mode !== 'seq-mean') throw new Error(`aggregate: unknown mode "${mode}" (expected ${LOSS_AGGREGATIONS.join(' or ')})`);
  return tf.tidy(() => {
    const tokens = tf.sum(mask, 1); // [B]
    const perSeq = tf.div(tf.sum(tf.mul(x, mask), 1), tf.maximum(tokens, 1)); // [B]
    const present = tf.cast(tf.greater(tokens, 0), 'float32'); // [B]
    return tf.div(tf.sum(tf.mul(perSeq, present)), tf.maximum(tf.sum(present), 1));
  }) as tf.Scalar;
}

/** The check every loss makes: all inputs [B, T] of the same shape. */
export function checkSameShape(fn: string, tensors: Record<string, tf.Tensor>): void {
  const entries = Object.entries(tensors);
  const [firstName, first] = entries[0];
  if (first.rank !== 2) throw new Error(`${fn}: ${firstName} must be [B, T], got [${first.shape}]`);
  for (const [name, t] of entries.slice(1)) {
    if (!tf.util.arraysEqual(t.shape, first.shape)) {
      throw new Error(`${fn}: ${name} has shape [${t.shape}], expected [${first.shape}] like ${firstName}`);
    }
  }
}
