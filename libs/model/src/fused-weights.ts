// The fused matrices of the decode path (decode.ts): per layer, q/k/v stacked into one matrix and gate/up into another
// (float32, or frozen bf16 / int8 stacked as they are stored), with q/k/v's biases joined. Built from the Hugging Face
// parameters when a KV cache first decodes and rebuilt when a parameter is reassigned (a served policy's weight swap
// between steps); they live as long as the cache (kv-cache.ts) or the prefix cache that holds them, so a model holds no
// hidden copies between generations.
import * as tf from '@tensorflow/tfjs';
import { LowPrecisionMatrix, stackRows, type Weight } from '@rlhf-code/backend';
import type { BlockWeights } from './block';

/** One layer's fused matrices, and the parameter buffers they were built from. */
export interface FusedLayer {
  qkvWeight: Weight[]; // [(H + 2 KV) * hd, D], or q, k, v apart (low-precision ones that cannot be stacked)
  qkvBias: tf.Tensor1D; // [(H + 2 KV) * hd]
  gateUpWeight: Weight[]; // [2 I, D], or gate and up apart
  sources: object[]; // dataIds of q, k, v weights and biases, gate, up
}

const sourcesOf = (w: BlockWeights): object[] => {
  const a = w.self_attn;
  return [a.q_proj.weight, a.k_proj.weight, a.v_proj.weight, a.q_proj.bias, a.k_proj.bias, a.v_proj.bias,
    w.mlp.gate_proj.weight, w.mlp.up_proj.weight].map((t) => (t instanceof LowPrecisionMatrix ? t.packed.dataId : t.dataId));
};

/** `ws` stacked into one matrix of their kind (new tensors, kept across calls), or as they are when that cannot be. */
function stacked(ws: Weight[]): Weight[] {
  if (ws.every((w) => w instanceof LowPrecisionMatrix)) {
    const joined = stackRows(ws as LowPrecisionMatrix[]);
    return joined ? [joined] : ws;
  }
  if (ws.some((w) => w instanceof LowPrecisionMatrix)) return ws;
  return [tf.keep(tf.concat(ws as tf.Tensor2D[], 0) as tf.Tensor2D)];
}

/** What FusedWeights made itself (the stacked matrices, the biases), not the model's. */
const ownTensors = (l: FusedLayer): { dispose(): void }[] => [l.qkvBias, ...[l.qkvWeight, l.gateUpWeight].filter((ws) => ws.length === 1).map((ws) => ws[0])];

/** Fused q/k/v and gate/up matrices per layer, kept across calls and rebuilt when a source parameter changes. */
export class FusedWeights {
  private layers: FusedLayer[] = [];

  get(i: number, w: BlockWeights): FusedLayer {
    const sources = sourcesOf(w);
    const cached = this.layers[i];
    if (cached && cached.sources.every((s, j) => s === sources[j])) return cached;
    if (cached) ownTensors(cached).forEach((t) => t.dispose());
    const a = w.self_attn;
    // tf.keep: built inside a caller's tidy, kept across calls.
    const fused = {
      qkvWeight: stacked([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight]),
      qkvBias: tf.keep(tf.concat([a.q_proj.bias, a.k_proj.bias, a.v_proj.bias], 0) as tf.Tensor1D),
      gateUpWeight: stacked([w.mlp.gate_proj.weight, w.mlp.up_proj.weight]),
    };
    this.layers[i] = { ...fused, sources };
    return this.layers[i];
  }

  dispose(): void {
    for (const l of this.layers) if (l) ownTensors(l).forEach((t) => t.dispose());
    this.layers = [];
  }
}

