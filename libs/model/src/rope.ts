// Rotary position embeddings (Su et al. 2021) in the "rotate half" form used by Qwen2 / Llama in
// Hugging Face: the head dimension is split in two halves (x1, x2) that rotate as complex pairs
//   rope(x) = x * cos(pos * f) + concat(-x2, x1) * sin(pos * f),   f_i = theta^(-2i / headDim).
import * as tf from '@tensorflow/tfjs';

export interface RopeAngles {
  cos: tf.Tensor4D; // [B, 1, T, hd]
  sin: tf.Tensor4D; // [B, 1, T, hd]
}

/** positions: [B, T] (int or float) -> cos/sin tables broadcastable over heads. */
export function ropeAngles(positions: tf.Tensor2D, headDim: number, theta: number): RopeAngles {
  return tf.tidy(() => {
    const half = headDim / 2;
    const invFreq = new Float32Array(half);
    // Computed in float32 like HF: theta ** (arange(0, hd, 2) / hd).
    for (let i = 0; i < half; i++) invFreq[i] = 1 / Math.pow(theta, (2 * i) / headDim);
    const [B, T] = positions.shape;
    const freqs = tf.mul(tf.expandDims(tf.cast(positions, 'float32'), 2), tf.tensor1d(invFreq)); // [B, T, hd/2]
    const emb = tf.concat([freqs, freqs], 2).reshape([B, 1, T, headDim]); // [B, 1, T, hd]
    return { cos: tf.cos(emb) as tf.Tensor4D, sin: tf.sin(emb) as tf.Tensor4D };
  });
}

/** x: [B, H, T, hd] -> same shape, rotated by the angles of each (row, position). */
export function applyRope(x: tf.Tensor4D, { cos, sin }: RopeAngles): tf.Tensor4D {
  return tf.tidy(() => {
    const [x1, x2] = tf.split(x, 2, 3); // each [B, H, T, hd/2]
    const rotated = tf.concat([tf.neg(x2), x1], 3);
    return tf.add(tf.mul(x, cos), tf.mul(rotated, sin)) as tf.Tensor4D;
  });
}
