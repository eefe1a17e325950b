// The decode path: the same Qwen2 forward pass as model.ts, for inference with a KV cache, in about ten kernels
// per layer instead of sixty, when the backend has the native kernels (@rlhf-code/backend hasNativeKernels):
//   x -> rmsNorm -> [q|k|v] = x Wqkv^T + b -> RoPE + attention over the cache (keys/values written in place)
//     -> o_proj -> + x -> rmsNorm -> [gate|up] = x Wgu^T -> silu(gate) * up -> down_proj -> + x
// q/k/v and gate/up are fused into one matrix each (fused-weights.ts), built when a KV cache first decodes and rebuilt
// when a parameter is reassigned; they live as long as the cache. Checkpoints keep HF's names.
// With a LoRA adapter active, each projection's low-rank term (lora.ts) is added to its fused product (zeros for the
// projections without one), so an adapter swap only changes those small matrices and needs no rebuild.
// Each layer runs as one native call (fusedDecodeLayer: the same kernels in the same order, adapter terms included,
// without the tfjs dispatch between them); the per-op path above is its reference, and runs where q/k/v or gate/up
// cannot be stacked into one matrix, or where an adapter is in training mode with dropout.
// No gradients: training and scoring use the composite ops of attention.ts / mlp.ts / norm.ts.
import * as tf from '@tensorflow/tfjs';
import { fusedCachedAttention, fusedDecodeLayer, fusedRmsNorm, fusedSwiGLUPacked, matMulWeight, weightShape, type DecodeLayerWeights, type DecodeLoraProjection, type Weight } from '@rlhf-code/backend';
import { embedTokens } from './embedding';
import type { BlockWeights } from './block';
import type { FusedLayer } from './fused-weights';
import type { KVCache } from './kv-cache';
import { loraDelta, type LoraWeights } from './lora';

export interface DecodeDims {
  heads: number; // H
  kvHeads: number; // KV
  headDim: number; // hd
  eps: number; // rms_norm_eps
  theta: number; // rope_theta
}

/** x [N, in] against matrices [out_i, in] side by side -> [N, sum of out_i]. */
const productOf = (x: tf.Tensor2D, ws: Weight[]): tf.Tensor2D =>
  ws.length === 1 ? matMulWeight(x, ws[0]) : (tf.concat(ws.map((w) => matMulWeight(x, w)), 1) as tf.Tensor2D);

/** Whether a layer may run as one native call (tests and A/B measurements turn it off: the per-op path is its reference). */
export const decodeSettings = { fusedLayers: true };

type Adaptable = { weight: Weight; lora?: LoraWeights };

/** Layer `w`'s projections by HF name (the order of the native layer's adapters). */
const projections = (w: BlockWeights): Record<DecodeLoraProjection, Adaptable> => ({
  q_proj: w.self_attn.q_proj, k_proj: w.self_attn.k_proj, v_proj: w.self_attn.v_proj, o_proj: w.self_attn.o_proj,
  gate_proj: w.mlp.gate_proj, up_proj: w.mlp.up_proj, down_proj: w.mlp.down_proj,
});

/**
 * Layer `f`'s adapters as fusedDecodeLayer takes them when it runs in one native call (q/k/v and gate/up each one
 * matrix, no adapter drawing dropout masks); null: it runs op by op.
 */
function fusedLora(w: BlockWeights, f: FusedLayer): DecodeLayerWeights['lora'] | null {
  if (!decodeSettings.fusedLayers || f.qkvWeight.length !== 1 || f.gateUpWeight.length !== 1) return null;
  const out: NonNullable<DecodeLayerWeights['lora']> = {};
  for (const [name, m] of Object.entries(projections(w)) as [DecodeLoraProjection, Adaptable][]) {
    if (!m.lora) continue;
    if (m.lora.training && m.lora.dropout > 0) return null;
    out[name] = { A: m.lora.A, B: m.lora.B, scale: m.lora.scale };
  }
  return out;
}

/** The LoRA terms of projections whose outputs are packed side by side, x [N, in] -> [N, sum of widths]; null: none. */
function packedLora(x: tf.Tensor2D, mods: Adaptable[]): tf.Tensor2D | null {
  if (!mods.some((m) => m.lora)) return null;
  const N = x.shape[0];
  return tf.concat(mods.map((m) => (m.lora ? loraDelta(x, m.lora) : tf.zeros([N, weightShape(m.weight)[0]]))), 1) as tf.Tensor2D;
}

/** y + its LoRA term, when there is one. */
const plusLora = (y: tf.Tensor2D, x: tf.Tensor2D, mods: Adaptable[]): tf.Tensor2D => {
  const d = packedLora(x, mods);
  return d ? (tf.add(y, d) as tf.Tensor2D) : y;
};

/**
 * ids [B, T] int32, mask [B, T] (1 real, 0 left padding) on the host -> final hidden states [B, T, D] (after
 * model.norm); extends `cache` by T positions. Positions follow HF's left-padding rule, cumsum(mask) - 1
 * (clamped at 0), counted across calls.
 */
export function decodeForward(
  ids: tf.Tensor2D,
  mask: ArrayLike<number>,
  cache: KVCache,
  embed: Weight,
  finalNorm: tf.Tensor1D,
  layers: BlockWeights[],
  dims: DecodeDims,
): tf.Tensor3D {
  const [B, T] = ids.shape;
  const { heads: H, kvHeads: KV, headDim: hd, eps } = dims;
  const past = cache.past;
  cache.reserve(B, past + T, layers.length, KV, hd);
  const capacity = cache.buffers[0].k.shape[2];
  const positions = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const real = mask[b * T + t];
      cache.realTokens[b] += real;
      positions[b * T + t] = Math.max(cache.realTokens[b] - 1, 0);
      cache.hostMask[b * capacity + past + t] = real;
    }
  }
  const weights = layers.map((w, i) => cache.fused.get(i, w));
  const hidden = tf.tidy(() => {
    const pos = tf.tensor2d(positions, [B, T], 'int32');
    const keyMask = tf.tensor2d(cache.hostMask, [B, capacity]);
    const attrs = { batch: B, seq: T, heads: H, kvHeads: KV, headDim: hd, past, theta: dims.theta };
    let x = embedTokens(embed, tf.reshape(ids, [B * T]) as tf.Tensor1D); // [B*T, D]
    layers.forEach((w, i) => {
      const f = weights[i];
      const lora = fusedLora(w, f);
      if (lora) {
        const layer = {
          inputNorm: w.input_layernorm.weight, qkv: f.qkvWeight[0], qkvBias: f.qkvBias, o: w.self_attn.o_proj.weight,
          postNorm: w.post_attention_layernorm.weight, gateUp: f.gateUpWeight[0], down: w.mlp.down_proj.weight, lora,
        };
        x = fusedDecodeLayer(x, layer, cache.buffers[i].k, cache.buffers[i].v, pos, keyMask, { ...attrs, eps }); // [B*T, D]
        return;
      }
      const h = fusedRmsNorm(x, w.input_layernorm.weight, eps) as tf.Tensor2D;
      const a = w.self_attn;
      const qkv = plusLora(tf.add(productOf(h, f.qkvWeight), f.qkvBias) as tf.Tensor2D, h, [a.q_proj, a.k_proj, a.v_proj]); // [B*T, (H+2KV)*hd]
      const ctx = fusedCachedAttention(qkv, cache.buffers[i].k, cache.buffers[i].v, pos, keyMask, attrs) as tf.Tensor2D; // [B*T, H*hd]
      x = tf.add(x, plusLora(matMulWeight(ctx, a.o_proj.weight), ctx, [a.o_proj]));
      const h2 = fusedRmsNorm(x, w.post_attention_layernorm.weight, eps) as tf.Tensor2D;
      const gateUp = plusLora(productOf(h2, f.gateUpWeight), h2, [w.mlp.gate_proj, w.mlp.up_proj]); // [B*T, 2I]
      const act = fusedSwiGLUPacked(gateUp) as tf.Tensor2D; // [B*T, I]
      x = tf.add(x, plusLora(matMulWeight(act, w.mlp.down_proj.weight), act, [w.mlp.down_proj]));
    });
    return tf.reshape(fusedRmsNorm(x, finalNorm, eps), [B, T, -1]) as tf.Tensor3D;
  });
  cache.past = past + T;
  return hidden;
}
