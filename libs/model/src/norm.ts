// RMSNorm (Zhang & Sennrich 2019), as Qwen2 uses it: y = w * x / sqrt(mean(x^2) + eps).
import * as tf from '@tensorflow/tfjs';

/** x: [..., D], weight: [D] -> [..., D] */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor1D, eps: number): tf.Tensor {
  return tf.tidy(() => {
    const variance = tf.mean(tf.square(x), -1, true); // [..., 1]
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight);
  });
}
