// Gradient clipping by the global L2 norm over all gradients, as torch.nn.utils.clip_grad_norm_.
import * as tf from '@tensorflow/tfjs';

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
  const tensors = Object.values(grads);
  const normTensor = tf.tidy(() =>
    tensors.length === 0 ? tf.scalar(0) : tf.sqrt(tf.addN(tensors.map((g) => tf.sum(tf.square(g))))),
  );
  const norm = normTensor.dataSync()[0];
  normTensor.dispose();
  const scale = Number.isFinite(norm) && norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
  const clipped = tf.tidy(() => {
    const out: Record<string, tf.Tensor> = {};
    for (const [name, g] of Object.entries(grads)) out[name] = scale === 1 ? tf.clone(g) : tf.mul(g, scale);
    return out;
  });
  return { grads: clipped, norm };
}
