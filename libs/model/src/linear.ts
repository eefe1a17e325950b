// A linear layer with Hugging Face's weight layout: W is [out, in], y = x W^T + b.
import * as tf from '@tensorflow/tfjs';

/**
 * x: [N, in] (callers flatten batch and time first: tfjs 4.22 computes a wrongly shaped gradient for
 * matMul(3-D, 2-D), and the 2-D case is also the fast path), weight: [out, in], bias: [out] -> [N, out]
 */
export function linear(x: tf.Tensor2D, weight: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D {
  return tf.tidy(() => {
    const y: tf.Tensor2D = tf.matMul(x, weight, false, true); // [N, out]
    return bias ? tf.add(y, bias) : y;
  }) as tf.Tensor2D;
}
