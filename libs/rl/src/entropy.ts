// The policy's entropy over its response tokens, from logits (exact per token, not a sample estimate).
import * as tf from '@tensorflow/tfjs';
import { entropyFromLogits } from '@rlhf-code/trainer-core';

/**
 * logits [B, T, V] of the positions that predicted the response tokens, mask [B, T] ->
 * per-token entropy [B, T] (0 on padding) of softmax(logits / temperature). For metrics (no gradient needed).
 */
export function tokenEntropy(logits: tf.Tensor3D, mask: tf.Tensor2D, temperature = 1): tf.Tensor2D {
  const [B, T] = logits.shape;
  if (!tf.util.arraysEqual(mask.shape, [B, T])) throw new Error(`tokenEntropy: mask must be [${B}, ${T}], got [${mask.shape}]`);
  return tf.tidy(() => tf.mul(entropyFromLogits(logits, temperature), tf.cast(mask, 'float32'))) as tf.Tensor2D;
}
