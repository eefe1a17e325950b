// A base model's frozen matrices in low precision (LoadOptions.baseDtype): every layer's seven projections, the token
// embedding and the LM head (the same matrix when tied) become bf16 or int8 (@rlhf-code/backend LowPrecisionMatrix,
// int8 with one scale per output channel: per row of a [out, in] weight, per token of the embedding). They take no
// gradient and no optimizer state; gradients still flow through them to the inputs and to LoRA adapters. Norms and
// biases (0.1% of the values) stay fp32 variables. Names stay Hugging Face's, so checkpoints map one to one.
import { LowPrecisionMatrix, type WeightDtype } from '@rlhf-code/backend';
import { expectedParameterShapes, type Qwen2Config } from './config';
import type { HostTensor } from './safetensors';

/** Whether parameter `name` is one of the matrices a low-precision base holds frozen. */
export const isFrozenMatrix = (name: string): boolean =>
  /\.(q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj)\.weight$/.test(name) || name === 'model.embed_tokens.weight' || name === 'lm_head.weight';

/** The frozen matrices of `weights` (host tensors by HF name) in `dtype`, by name; none for fp32. */
export function frozenWeights(config: Qwen2Config, weights: Map<string, HostTensor>, dtype: WeightDtype): Record<string, LowPrecisionMatrix> {
  const out: Record<string, LowPrecisionMatrix> = {};
  if (dtype === 'fp32') return out;
  try {
    for (const [name, shape] of expectedParameterShapes(config)) {
      if (!isFrozenMatrix(name)) continue;
      const w = weights.get(name);
      if (!w) throw new Error(`Qwen2Model: missing weight "${name}" (expected shape [${shape}])`);
      out[name] = LowPrecisionMatrix.fromFloat32(w.data, shape as [number, number], dtype);
    }
  } catch (e) {
    for (const m of Object.values(out)) m.dispose();
    throw e;
  }
  return out;
}
