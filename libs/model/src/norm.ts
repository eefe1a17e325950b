// RMSNorm (Zhang & Sennrich 2019), as Qwen2 uses it: y = w * x / sqrt(mean(x^2) + eps).
import * as tf from '@tensorflow/tfjs';
import { fusedRmsNorm, hasNativeKernels } from '@rlhf-code/backend';

/** x: [..., D], weight: [D] -> [..., D]; one native kernel each way when the backend has it. */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor1D, eps: number): tf.Tensor {
  if (hasNativeKernels()) return fusedRmsNorm(x, weight, eps);
  return tf.tidy(() => {
    const variance = tf.mean(tf.square(x), -1, true); // [..., 1]
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(variance, eps))), weight);
  });
}
