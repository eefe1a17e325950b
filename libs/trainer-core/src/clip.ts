// Gradient clipping by the global L2 norm over all gradients, as torch.nn.utils.clip_grad_norm_, and that norm.
import * as tf from '@tensorflow/tfjs';
import { nativeSumOfSquares } from '@rlhf-code/backend';

/**
 * The global L2 norm of all gradients: one native pass summing in double where the native kernels run, else tfjs's
 * sum of squares per tensor.
 */
export function globalNorm(grads: Record<string, tf.Tensor>): number {
  const tensors = Object.values(grads);
  const native = nativeSumOfSquares(tensors);
  if (native !== null) return Math.sqrt(native);
  if (tensors.length === 0) return 0;
  return tf.tidy(() => Math.sqrt(tf.addN(tensors.map((g) => tf.sum(tf.square(g)))).dataSync()[0]));
}

/**
 * Scales every gradient by maxNorm / (norm + 1e-6) when the global norm exceeds maxNorm.
 * Returns new tensors either way (clones when nothing is clipped): the caller disposes its inputs and the
 * outputs alike. `norm` is the norm before clipping; when it is NaN or Infinity the gradients are returned
 * unscaled, so that the caller can see the non-finite norm and skip the step.
 */
export function clipByGlobalNorm(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): { grads: Record<string, tf.Tensor>; norm: number } {
  if (!(maxNorm > 0) || !Number.isFinite(maxNorm)) throw new Error(`clipByGlobalNorm: invalid maxNorm ${maxNorm}`);
  const norm = globalNorm(grads);
  const scale = Number.isFinite(norm) && norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
  const clipped = tf.tidy(() => {
    const out: Record<string, tf.Tensor> = {};
    for (const [name, g] of Object.entries(grads)) out[name] = scale === 1 ? tf.clone(g) : tf.mul(g, scale);
    return out;
  });
  return { grads: clipped, norm };
}
