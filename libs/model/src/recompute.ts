// Layer recomputation of a decoder layer (Hugging Face: "gradient checkpointing"; Chen et al. 2016, "Training deep nets
// with sublinear memory cost"): the forward pass keeps only the layer's input; the backward pass runs the layer again
// under its own gradient tape and takes the gradients from there. Activation memory drops from every layer's
// intermediates to one [B*T, D] tensor per layer plus one layer's intermediates at a time, for about one more forward
// pass of compute.
import * as tf from '@tensorflow/tfjs';
import { Attend, BlockWeights, decoderLayer } from './block';
import type { LoraWeights } from './lora';

/** The layer's tensors that take gradients: its trainable variables (all of them, or with LoRA the adapter's A and B). */
function trainableTensors(w: BlockWeights): tf.Tensor[] {
  const out: tf.Tensor[] = [];
  const add = (t: unknown) => {
    if (t instanceof tf.Variable && t.trainable) out.push(t); // a frozen low-precision weight is no variable
  };
  add(w.input_layernorm.weight);
  add(w.post_attention_layernorm.weight);
  for (const m of [...Object.values(w.self_attn), ...Object.values(w.mlp)] as { weight: unknown; bias?: tf.Tensor; lora?: LoraWeights }[]) {
    add(m.weight);
    add(m.bias);
    add(m.lora?.A);
    add(m.lora?.B);
  }
  return out;
}

/**
 * decoderLayer(x) [B*T, D] -> [B*T, D] with layer recomputation (training only: no KV cache). The attention is
 * rebuilt from its context tensors `ctx` (masks, positions, RoPE angles), which are kept for the rerun.
 */
export function recomputedLayer(x: tf.Tensor2D, w: BlockWeights, eps: number, attendWith: (ctx: tf.Tensor[]) => Attend, ctx: tf.Tensor[]): tf.Tensor2D {
  const mods = [...Object.values(w.self_attn), ...Object.values(w.mlp)] as { lora?: LoraWeights }[];
  if (mods.some((m) => m.lora?.training && m.lora.dropout > 0)) {
    throw new Error('layer recomputation with LoRA dropout: the rerun would draw other dropout masks (set the dropout to 0, or train without recomputation)');
  }
  const params = trainableTensors(w);
  const n = ctx.length;
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const input = args[0] as tf.Tensor2D;
    const context = args.slice(1, 1 + n) as tf.Tensor[];
    save([input, ...context]); // kept (cloned) by the engine until the backward pass
    return {
      value: tf.tidy(() => decoderLayer(input, w, eps, attendWith(context)).out), // the layer's intermediates are freed here
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [savedInput, ...savedContext] = saved;
        const attend = attendWith(savedContext);
        // Rerun under a fresh tape: gradients for the input and each trainable tensor (the same objects as `params`).
        // tfjs keeps one engine-wide tape: a gradient call made during another's backward pass starts a new tape and
        // clears it at its end, so the outer pass's tape is put back afterwards (it then frees its own saved tensors).
        const engine = tf.engine() as unknown as { state: { activeTape: unknown } };
        const outerTape = engine.state.activeTape;
        let dx: tf.Tensor;
        let dParams: tf.Tensor[];
        try {
          [dx, ...dParams] = tf.grads((...xs: tf.Tensor[]) => decoderLayer(xs[0] as tf.Tensor2D, w, eps, attend).out)([savedInput, ...params], dy);
        } finally {
          engine.state.activeTape = outerTape;
        }
        return [dx, ...savedContext.map((c) => tf.zerosLike(c)), ...dParams]; // the context takes no gradient
      },
    };
  });
  return f(x, ...ctx, ...params) as tf.Tensor2D;
}
