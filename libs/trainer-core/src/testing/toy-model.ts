// A toy language model for the tests: embedding -> linear head -> sparse cross-entropy, HF parameter names.
import * as tf from '@tensorflow/tfjs';
import { sparseCrossEntropy } from '../losses';

export type Params = Record<string, tf.Variable>;

export function toyParams(vocab: number, dim: number, seed: number): Params {
  // tidy frees the initial values; the variables keep their data.
  return tf.tidy(() => ({
    'model.embed_tokens.weight': tf.variable(tf.randomNormal([vocab, dim], 0, 0.5, 'float32', seed)),
    'lm_head.weight': tf.variable(tf.randomNormal([vocab, dim], 0, 0.5, 'float32', seed + 1)), // [out, in] as HF
    'lm_head.bias': tf.variable(tf.zeros([vocab])),
  }));
}

/** Mean cross-entropy of the masked tokens; tokens, targets int32 [B, T], mask float32 [B, T]. */
function toyLoss(
  params: Record<string, tf.Tensor>, tokens: tf.Tensor2D, targets: tf.Tensor2D, mask: tf.Tensor2D,
): tf.Scalar {
  return tf.tidy(() => {
    const x = tf.gather(params['model.embed_tokens.weight'], tf.reshape(tokens, [-1])); // [B*T, C]
    // 2-D activations: tfjs 4.22's matMul(x3d, W2d) has a wrong gradient wrt W.
    const logits = tf.add(tf.matMul(x, params['lm_head.weight'], false, true), params['lm_head.bias']); // [B*T, V]
    return sparseCrossEntropy(logits, tf.reshape(targets, [-1]), tf.reshape(mask, [-1]));
  });
}

/** Loss value and gradients keyed by parameter name (new tensors, the caller's). */
export function toyLossAndGrads(
  params: Params, tokens: tf.Tensor2D, targets: tf.Tensor2D, mask: tf.Tensor2D,
): { loss: number; grads: Record<string, tf.Tensor> } {
  const names = Object.keys(params);
  const { value, grads } = tf.valueAndGrads((...xs: tf.Tensor[]) =>
    toyLoss(Object.fromEntries(names.map((name, i) => [name, xs[i]])), tokens, targets, mask),
  )(names.map((name) => params[name]));
  const loss = value.dataSync()[0];
  value.dispose();
  return { loss, grads: Object.fromEntries(names.map((name, i) => [name, grads[i]])) };
}
