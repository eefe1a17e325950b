// PPO's clipped surrogate objective (Schulman et al. 2017), per token:
//   ratio = exp(logp - oldLogp)
//   loss  = max(-A * ratio, -A * clip(ratio, 1 - eps, 1 + eps))
// The max picks the pessimistic term; where the clipped term wins, the loss is flat in logp, so those
// tokens give no gradient (the update cannot push the ratio further out of [1 - eps, 1 + eps]).
// With logp == oldLogp (one update per batch, as in the online mode) the gradient is -A * dlogp: REINFORCE.
// With an engine that samples from slightly other numbers than the trainer's (llama.cpp, vLLM), each token's loss may
// be weighted by the truncated importance weight min(cap, exp(oldLogp - samplerLogp)) (truncatedIsWeights; verl's
// and OpenRLHF's token-level TIS), a constant of the rollout (host numbers): no gradient flows through it.
import * as tf from '@tensorflow/tfjs';
import { aggregate, checkSameShape, LossAggregation, maskedMean } from './masked';

// A type alias (not an interface) so tf.tidy accepts it as a TensorContainer.
export type PolicyLossResult = {
  loss: tf.Scalar;
  /** Share of real tokens where the clipped term was taken (TRL's ppo/policy/clipfrac). */
  clipfrac: tf.Scalar;
  /** 0.5 * mean (logp - oldLogp)^2 over real tokens (TRL's ppo/policy/approxkl). */
  approxKl: tf.Scalar;
};

/**
 * logp [B, T] (differentiable: the current policy), oldLogp [B, T] (the policy that sampled the tokens),
 * advantages [B, T] or [B, 1] (one advantage per sequence, broadcast over its tokens), mask [B, T] float 0/1.
 */
export function clippedPolicyLoss(
  logp: tf.Tensor,
  oldLogp: tf.Tensor,
  advantages: tf.Tensor,
  mask: tf.Tensor,
  clip: number,
  aggregation: LossAggregation = 'token-mean',
  /** [B, T] per-token weights of the clipped loss (truncatedIsWeights): constants made from host numbers, so no gradient flows into them; absent: 1. */
  isWeights?: tf.Tensor,
): PolicyLossResult {
  checkSameShape('clippedPolicyLoss', { logp, oldLogp, mask, ...(isWeights ? { isWeights } : {}) });
  const [B, T] = logp.shape;
  if (advantages.rank !== 2 || advantages.shape[0] !== B || (advantages.shape[1] !== T && advantages.shape[1] !== 1)) {
    throw new Error(`clippedPolicyLoss: advantages must be [${B}, ${T}] or [${B}, 1], got [${advantages.shape}]`);
  }
  if (!(clip > 0)) throw new Error(`clippedPolicyLoss: clip must be > 0, got ${clip}`);
  return tf.tidy(() => {
    const diff = tf.sub(logp, oldLogp); // [B, T]
    const ratio = tf.exp(diff);
    const unclipped = tf.mul(tf.neg(advantages), ratio); // [B, T]
    const clipped = tf.mul(tf.neg(advantages), tf.clipByValue(ratio, 1 - clip, 1 + clip));
    const perToken = tf.maximum(unclipped, clipped);
    const loss = aggregate(isWeights ? tf.mul(perToken, isWeights) : perToken, mask, aggregation);
    const clipfrac = maskedMean(tf.cast(tf.greater(clipped, unclipped), 'float32'), mask);
    const approxKl = tf.mul(0.5, maskedMean(tf.square(diff), mask)) as tf.Scalar;
    return { loss, clipfrac, approxKl };
  });
}

/**
 * The truncated importance weights of a rollout, [B][T] like `oldLogprobs` (the trainer's recompute, padded rows):
 * min(cap, exp(old - sampler)) where the engine gave the token's log-prob (samplerLogprobs[b][t]), else 1.
 */
export function truncatedIsWeights(oldLogprobs: readonly (readonly number[])[], samplerLogprobs: readonly (readonly number[])[], cap: number): number[][] {
  if (!(cap > 0)) throw new Error(`truncatedIsWeights: cap must be > 0, got ${cap}`);
  return oldLogprobs.map((row, b) => row.map((old, t) => (t < (samplerLogprobs[b]?.length ?? 0) ? Math.min(cap, Math.exp(old - samplerLogprobs[b][t])) : 1)));
}
