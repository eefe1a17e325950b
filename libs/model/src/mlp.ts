// SwiGLU feed-forward (Shazeer 2020) as in Qwen2MLP: down(silu(gate(x)) * up(x)), no biases.
import * as tf from '@tensorflow/tfjs';
import { fusedSwiGLU, hasNativeKernels, type Weight } from '@rlhf-code/backend';
import { linear } from './linear';
import type { LoraWeights } from './lora';

export interface MlpWeights {
  gate_proj: { weight: Weight; lora?: LoraWeights }; // [I, D]
  up_proj: { weight: Weight; lora?: LoraWeights }; // [I, D]
  down_proj: { weight: Weight; lora?: LoraWeights }; // [D, I]
}

/** x: [N, D] -> [N, D] */
export function mlp(x: tf.Tensor2D, w: MlpWeights): tf.Tensor2D {
  return tf.tidy(() => {
    const gate = linear(x, w.gate_proj.weight, undefined, w.gate_proj.lora); // [N, I]
    const up = linear(x, w.up_proj.weight, undefined, w.up_proj.lora); // [N, I]
    // silu(gate) * up: one native kernel each way when the backend has it.
    const act = hasNativeKernels() ? fusedSwiGLU(gate, up) : tf.mul(tf.mul(gate, tf.sigmoid(gate)), up);
    return linear(act as tf.Tensor2D, w.down_proj.weight, undefined, w.down_proj.lora);
  });
}
