// Token-level losses over a vocabulary too large for a one-hot (Qwen: 151,936): the forward pass gathers the
// target logit instead of multiplying by a one-hot, and the gradient is written out by hand.
import * as tf from '@tensorflow/tfjs';
import { fusedTargetLogProbs, fusedTargetLogProbsGrad } from '@rlhf-code/backend';

/**
 * log softmax(x)[n, t_n] for x [N, V], t [N]; gradient d logp_n / d x_n = onehot(t_n) - softmax(x_n), built as
 * -softmax with 1 - p(t_n) written at the targets (no one-hot either way; also, wasm's float32 tf.oneHot is all zeros).
 * Both passes go through tf.softmax, a fused kernel (on wasm XNNPACK's, ~8x faster than tf.exp at this size).
 */
const targetLogProbs = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, t, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
  const [n, v] = x.shape;
  // The native kernels when the backend has them: one pass over [N, V] forward, one backward.
  const native = fusedTargetLogProbs(x as tf.Tensor2D, t as tf.Tensor1D);
  if (native) {
    save([x, t, native.lse]);
    return {
      value: native.value,
      gradFunc: (dy: tf.Tensor, [x, t, lse]: tf.Tensor[]) => [
        fusedTargetLogProbsGrad(x as tf.Tensor2D, t as tf.Tensor1D, lse as tf.Tensor1D, dy as tf.Tensor1D),
        tf.zeros([n]),
      ],
    };
  }
  // logsumexp(x) = max(x) - log(max(softmax(x))); the largest probability is >= 1/V, so its log is accurate.
  const lse = tf.sub(tf.max(x, 1), tf.log(tf.max(tf.softmax(x), 1))); // [N]
  // x[n, t_n] is element n * V + t_n of x flattened (tf.gatherND has no gradient; here none is needed).
  const flatIndex = tf.add(tf.mul(tf.range(0, n, 1, 'int32'), tf.scalar(v, 'int32')), t); // [N]
  save([x, flatIndex]);
  const value = tf.sub(tf.gather(tf.reshape(x, [n * v]), flatIndex), lse); // [N]
  const gradFunc = (dy: tf.Tensor, [x, flatIndex]: tf.Tensor[]) =>
    tf.tidy(() => {
      // Inner tidies and the early dispose keep at most two [N, V] buffers alive at a time.
      const probs = tf.softmax(x); // [N, V]
      const atTargets = tf.tidy(() => tf.mul(dy, tf.sub(1, tf.gather(tf.reshape(probs, [n * v]), flatIndex)))); // [N]
      const dx = tf.tidy(() => tf.reshape(tf.mul(probs, tf.neg(tf.expandDims(dy, 1))), [n * v])); // -dy * softmax
      probs.dispose();
      // dy * (1 - p(t)) at the targets
      return [tf.reshape(tf.tensorScatterUpdate(dx, tf.expandDims(flatIndex, 1), atTargets), [n, v]), tf.zeros([n])];
    });
  return { value, gradFunc };
});

function checkTargets(fn: string, logits: tf.Tensor, targets: tf.Tensor): void {
  const expected = logits.shape.slice(0, -1);
  if (targets.dtype !== 'int32' || !tf.util.arraysEqual(targets.shape, expected)) {
    throw new Error(`${fn}: targets must be int32 of shape [${expected}], got ${targets.dtype} [${targets.shape}]`);
  }
  const vocab = logits.shape[logits.rank - 1];
  const bad = (targets.dataSync() as Int32Array).find((t) => t < 0 || t >= vocab);
  if (bad !== undefined) throw new Error(`${fn}: target ${bad} is outside the vocabulary [0, ${vocab})`);
}

function checkLogits(fn: string, logits: tf.Tensor, ranks: number[]): void {
  if (logits.dtype !== 'float32' || !ranks.includes(logits.rank)) {
    throw new Error(`${fn}: logits must be float32 of rank ${ranks.join(' or ')}, got ${logits.dtype} [${logits.shape}]`);
  }
}

/**
 * Mean cross-entropy over the tokens where mask is 1: logits [N, V], targets int32 [N], mask float32 [N] of 0/1
 * (default: all tokens). An all-zero mask gives loss 0 and a zero gradient.
 */
export function sparseCrossEntropy(logits: tf.Tensor, targets: tf.Tensor, mask?: tf.Tensor): tf.Scalar {
  checkLogits('sparseCrossEntropy', logits, [2]);
  checkTargets('sparseCrossEntropy', logits, targets);
  if (mask && (mask.dtype !== 'float32' || !tf.util.arraysEqual(mask.shape, targets.shape))) {
    throw new Error(`sparseCrossEntropy: mask must be float32 of shape [${targets.shape}], got ${mask.dtype} [${mask.shape}]`);
  }
  return tf.tidy(() => {
    const nll = tf.neg(targetLogProbs(logits, targets)); // [N]
    if (!mask) return tf.mean(nll);
    return tf.div(tf.sum(tf.mul(nll, mask)), tf.maximum(tf.sum(mask), 1));
  }) as tf.Scalar;
}

/**
 * log p(target) per token under softmax(logits / temperature): logits [B, T, V] or [N, V], targets int32 [B, T]
 * or [N] -> [B, T] or [N]. Differentiable (gradient wrt logits: dy * (onehot - softmax) / temperature).
 */
export function tokenLogProbs(logits: tf.Tensor, targets: tf.Tensor, temperature = 1): tf.Tensor {
  checkLogits('tokenLogProbs', logits, [2, 3]);
  checkTargets('tokenLogProbs', logits, targets);
  if (!(temperature > 0)) throw new Error(`tokenLogProbs: temperature must be > 0, got ${temperature}`);
  const vocab = logits.shape[logits.rank - 1];
  return tf.tidy(() => {
    const scaled = temperature === 1 ? logits : tf.div(logits, temperature);
    return tf.reshape(targetLogProbs(tf.reshape(scaled, [-1, vocab]), tf.reshape(targets, [-1])), targets.shape);
  });
}

/**
 * Entropy of softmax(x) over the last axis, with its analytic gradient dH/dx = -p (log p + H): a few elementwise passes
 * over [..., V] instead of the tape of softmax, max and log (which made an entropy bonus cost 4x the rest of a
 * policy update).
 */
const softmaxEntropy = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, save] = args as [tf.Tensor, tf.GradSaveFunc];
  const logp = tf.logSoftmax(x); // [..., V]
  const p = tf.exp(logp);
  const h = tf.neg(tf.sum(tf.mul(p, logp), -1)); // [...]
  save([p, logp, h]);
  return {
    value: h,
    // dH/dx = -p (log p + H), times the incoming gradient of each row.
    gradFunc: (dy: tf.Tensor | tf.Tensor[], [ps, lps, hs]: tf.Tensor[]) => tf.mul(tf.expandDims(dy as tf.Tensor, -1), tf.neg(tf.mul(ps, tf.add(lps, tf.expandDims(hs, -1))))),
  };
});

/** Entropy of softmax(logits / temperature) per token: logits [..., V] -> [...] (finite logits; differentiable). */
export function entropyFromLogits(logits: tf.Tensor, temperature = 1): tf.Tensor {
  checkLogits('entropyFromLogits', logits, [1, 2, 3]);
  if (!(temperature > 0)) throw new Error(`entropyFromLogits: temperature must be > 0, got ${temperature}`);
  return tf.tidy(() => softmaxEntropy(temperature === 1 ? logits : tf.div(logits, temperature)));
}
