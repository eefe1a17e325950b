// SwiGLU feed-forward (Shazeer 2020) as in Qwen2MLP: down(silu(gate(x)) * up(x)), no biases.
import * as tf from '@tensorflow/tfjs';
import { fusedSwiGLU, hasNativeKernels } from '@rlhf-code/backend';
import { linear } from './linear';

export interface MlpWeights {
  gate_proj: { weight: tf.Tensor2D }; // [I, D]
  up_proj: { weight: tf.Tensor2D }; // [I, D]
  down_proj: { weight: tf.Tensor2D }; // [D, I]
}

/** x: [N, D] -> [N, D] */
export function mlp(x: tf.Tensor2D, w: MlpWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const gate = linear(x, w.gate_proj.weight); // [N, I]
    const up = linear(x, w.up_proj.weight); // [N, I]
    // silu(gate) * up: one native kernel each way when the backend has it.
    const act = hasNativeKernels() ? fusedSwiGLU(gate, up) : tf.mul(tf.mul(gate, tf.sigmoid(gate)), up);
    return linear(act as tf.Tensor2D, w.down_proj.weight);
  });
}
