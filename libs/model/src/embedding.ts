// The token embedding lookup, for either kind of embedding matrix: a float32 variable (tf.gather, differentiable) or a
// frozen low-precision one (@rlhf-code/backend, dequantised rows, no gradient).
import * as tf from '@tensorflow/tfjs';
import { LowPrecisionMatrix, lowPrecisionRows, type Weight } from '@rlhf-code/backend';

/** embed [V, D], ids int32 [N] -> rows [N, D] */
export function embedTokens(embed: Weight, ids: tf.Tensor1D): tf.Tensor2D {
  return embed instanceof LowPrecisionMatrix ? lowPrecisionRows(embed, ids) : (tf.gather(embed, ids) as tf.Tensor2D);
}
