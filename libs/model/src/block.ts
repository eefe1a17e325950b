// One Qwen2 decoder layer (pre-norm): x + attn(norm(x)), then + mlp(norm(x)).
import * as tf from '@tensorflow/tfjs';
import { AttentionWeights, LayerKV } from './attention';
import { mlp, MlpWeights } from './mlp';
import { rmsNorm } from './norm';

/** Mirrors the HF parameter tree under `model.layers.{i}.` */
export interface BlockWeights {
  input_layernorm: { weight: tf.Tensor1D }; // [D]
  self_attn: AttentionWeights;
  post_attention_layernorm: { weight: tf.Tensor1D }; // [D]
  mlp: MlpWeights;
}

/** The attention of one layer on its normalised input [B*T, D] (model.ts picks composite or fused). */
export type Attend = (h: tf.Tensor2D, w: AttentionWeights) => { out: tf.Tensor2D; kv?: LayerKV };

/** x: [B*T, D] -> [B*T, D], plus this layer's keys/values including the new tokens when `attend` returns them. */
export function decoderLayer(x: tf.Tensor2D, w: BlockWeights, eps: number, attend: Attend): { out: tf.Tensor2D; kv?: LayerKV } {
  return tf.tidy(() => {
    const h = rmsNorm(x, w.input_layernorm.weight, eps) as tf.Tensor2D;
    const { out: attnOut, kv } = attend(h, w.self_attn);
    const x1 = tf.add(x, attnOut) as tf.Tensor2D;
    const h2 = rmsNorm(x1, w.post_attention_layernorm.weight, eps) as tf.Tensor2D;
    const out = tf.add(x1, mlp(h2, w.mlp)) as tf.Tensor2D;
    return kv ? { out, kv } : { out };
  });
}
