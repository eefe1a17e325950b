// Grouped-query self-attention as in Hugging Face's Qwen2Attention: q/k/v projections with bias,
// o_proj without bias, rotary embeddings on q and k, num_key_value_heads <= num_attention_heads.
import * as tf from '@tensorflow/tfjs';
import { fusedAttention, type Weight } from '@rlhf-code/backend';
import { linear } from './linear';
import type { LoraWeights } from './lora';
import { applyRope, RopeAngles } from './rope';

export interface AttentionWeights {
  // Weights float32 or, frozen, bf16 / int8 (@rlhf-code/backend LowPrecisionMatrix); biases float32.
  q_proj: { weight: Weight; bias: tf.Tensor1D; lora?: LoraWeights }; // [H*hd, D], [H*hd]
  k_proj: { weight: Weight; bias: tf.Tensor1D; lora?: LoraWeights }; // [KV*hd, D], [KV*hd]
  v_proj: { weight: Weight; bias: tf.Tensor1D; lora?: LoraWeights }; // [KV*hd, D], [KV*hd]
  o_proj: { weight: Weight; lora?: LoraWeights }; // [D, H*hd]
}

export interface AttentionDims {
  batch: number; // B
  seq: number; // T, new tokens in this call
  heads: number; // H
  kvHeads: number; // KV
  headDim: number; // hd
}

/** Keys and values of the tokens seen so far, already rotated: each [B, KV, S_past, hd]. */
export type LayerKV = {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
};

/** [B*T, C] -> [B, heads, T, hd] */
function splitHeads(x: tf.Tensor2D, B: number, T: number, heads: number, hd: number): tf.Tensor4D {
  return tf.transpose(tf.reshape(x, [B, T, heads, hd]), [0, 2, 1, 3]);
}

/**
 * x: [B*T, D]; bias: additive attention mask [B, 1, T, S] (0 where allowed, a large negative number
 * elsewhere) with S = S_past + T; past: the layer's cached keys/values or undefined.
 * Returns the output [B*T, D] and the keys/values including this call's tokens ([B, KV, S, hd]).
 */
export function attention(
  x: tf.Tensor2D,
  w: AttentionWeights,
  dims: AttentionDims,
  rope: RopeAngles,
  bias: tf.Tensor4D,
  past?: LayerKV,
): { out: tf.Tensor2D; kv: LayerKV } {
  return tf.tidy(() => {
    const { batch: B, seq: T, heads: H, kvHeads: KV, headDim: hd } = dims;
    const rep = H / KV; // query heads per key/value head
    const q = applyRope(splitHeads(linear(x, w.q_proj.weight, w.q_proj.bias, w.q_proj.lora), B, T, H, hd), rope); // [B, H, T, hd]
    let k = applyRope(splitHeads(linear(x, w.k_proj.weight, w.k_proj.bias, w.k_proj.lora), B, T, KV, hd), rope); // [B, KV, T, hd]
    let v = splitHeads(linear(x, w.v_proj.weight, w.v_proj.bias, w.v_proj.lora), B, T, KV, hd); // [B, KV, T, hd]
    if (past) {
      k = tf.concat([past.k, k], 2); // [B, KV, S, hd]
      v = tf.concat([past.v, v], 2);
    }
    const S = k.shape[2];
    // GQA without copying k/v: query head h uses kv head floor(h / rep), so the rep query heads of a
    // group are stacked along the time axis and share one matmul with their kv head.
    const qg = tf.reshape(q, [B, KV, rep * T, hd]); // rows ordered (r, t)
    const scores = tf.mul(tf.matMul(qg, k, false, true), 1 / Math.sqrt(hd)); // [B, KV, rep*T, S]
    // The mask broadcasts over kv heads and the rep query heads of each group (no tile: wasm's is slow).
    const masked = tf.add(tf.reshape(scores, [B, KV, rep, T, S]), tf.reshape(bias, [B, 1, 1, T, S]));
    const probs = tf.reshape(tf.softmax(masked), [B, KV, rep * T, S]); // softmax over the keys
    const ctx = tf.reshape(tf.matMul(probs, v), [B, H, T, hd]); // [B, H, T, hd]
    const merged = tf.reshape(tf.transpose(ctx, [0, 2, 1, 3]), [B * T, H * hd]); // [B*T, H*hd]
    const out = linear(merged as tf.Tensor2D, w.o_proj.weight, undefined, w.o_proj.lora); // [B*T, D]
    return { out, kv: { k: k as tf.Tensor4D, v: v as tf.Tensor4D } };
  });
}

/**
 * The same attention in one native kernel (forward and backward) when the backend has it (@rlhf-code/backend
 * hasNativeKernels), without a cache: x [B*T, D], positions int32 [B, T], keyMask [B, T] -> [B*T, D].
 * RoPE, the causal and padding masks, GQA and the softmax happen inside the kernel.
 */
export function fusedSelfAttention(
  x: tf.Tensor2D, w: AttentionWeights, dims: AttentionDims, positions: tf.Tensor2D, keyMask: tf.Tensor2D, theta: number,
): tf.Tensor2D {
  return tf.tidy(() => {
    const { batch, seq, heads, kvHeads, headDim } = dims;
    const q = linear(x, w.q_proj.weight, w.q_proj.bias, w.q_proj.lora); // [B*T, H*hd]
    const k = linear(x, w.k_proj.weight, w.k_proj.bias, w.k_proj.lora); // [B*T, KV*hd]
    const v = linear(x, w.v_proj.weight, w.v_proj.bias, w.v_proj.lora); // [B*T, KV*hd]
    const ctx = fusedAttention(q, k, v, positions, keyMask, { batch, seq, heads, kvHeads, headDim, theta }); // [B*T, H*hd]
    return linear(ctx, w.o_proj.weight, undefined, w.o_proj.lora);
  });
}
