// KL between the policy and the frozen reference, estimated from the sampled tokens (Schulman's estimators,
// with d = refLogp - logp):
//   k1 = -d = logp - refLogp           unbiased, can be negative per token; PPO puts it in the per-token reward
//   k3 = exp(d) - d - 1               unbiased, always >= 0, low variance; GRPO adds it to the loss
import * as tf from '@tensorflow/tfjs';
import { checkSameShape } from './masked';

/** k3 per token: logp [B, T] (differentiable), refLogp [B, T] -> [B, T] (mask it when reducing). */
export function k3Kl(logp: tf.Tensor, refLogp: tf.Tensor): tf.Tensor {
  checkSameShape('k3Kl', { logp, refLogp });
  return tf.tidy(() => {
    const d = tf.sub(refLogp, logp);
    return tf.sub(tf.sub(tf.exp(d), d), 1);
  });
}

/** Per-sequence sum of k1 over real tokens (host arrays [B][T] -> [B]): TRL's objective/kl is its mean. */
export function sequenceKl(kl: readonly (readonly number[])[]): number[] {
  return kl.map((row) => row.reduce((s, k) => s + k, 0));
}
