// A scalar head on top of the backbone's final hidden states, for reward and value models.
// Hugging Face's Qwen2ForSequenceClassification calls it `score` (a bias-free Linear(D, 1)) and reads
// it at the last non-padding token; a value head reads it at every token.
import * as tf from '@tensorflow/tfjs';
import { HostTensor } from './safetensors';
import { tfSeed } from './tf-seed';

let instances = 0;

export class ScalarHead {
  /** [1, D], named `${name}.weight` in checkpoints (`score.weight` for reward models). */
  readonly weight: tf.Variable;
  readonly bias: tf.Variable | null;

  constructor(
    readonly name: string,
    weight: tf.Tensor,
    bias: tf.Tensor | null,
    trainable = true,
  ) {
    // A variable passed in is used as is (e.g. a model's own `score.weight`); a tensor becomes a new variable.
    const prefix = `head_${instances++}/${name}`;
    this.weight = weight instanceof tf.Variable ? weight : tf.variable(weight, trainable, `${prefix}.weight`);
    this.bias = bias instanceof tf.Variable ? bias : bias ? tf.variable(bias, trainable, `${prefix}.bias`) : null;
  }

  /** A new head: weight ~ N(0, std), optional zero bias. */
  static init(hiddenSize: number, opts: { name?: string; std?: number; bias?: boolean; seed?: number } = {}): ScalarHead {
    const w = tf.randomNormal([1, hiddenSize], 0, opts.std ?? 1 / Math.sqrt(hiddenSize + 1), 'float32', tfSeed(opts.seed ?? 0));
    const b = opts.bias ? tf.zeros([1]) : null;
    const head = new ScalarHead(opts.name ?? 'score', w, b);
    tf.dispose([w, ...(b ? [b] : [])]); // the variables hold their own copies
    return head;
  }

  /** From checkpoint tensors `${name}.weight` [1, D] (and `${name}.bias` [1] if present). */
  static fromWeights(name: string, weights: Map<string, HostTensor>, hiddenSize: number, trainable = true): ScalarHead {
    const w = weights.get(`${name}.weight`);
    if (!w) throw new Error(`ScalarHead: checkpoint has no "${name}.weight"`);
    if (w.shape.length !== 2 || w.shape[0] !== 1 || w.shape[1] !== hiddenSize) {
      throw new Error(`ScalarHead: "${name}.weight" has shape [${w.shape}], expected [1,${hiddenSize}]`);
    }
    const b = weights.get(`${name}.bias`);
    const wt = tf.tensor(w.data, w.shape);
    const bt = b ? tf.tensor(b.data, b.shape) : null;
    const head = new ScalarHead(name, wt, bt, trainable);
    tf.dispose([wt, ...(bt ? [bt] : [])]); // the variables hold their own copies
    return head;
  }

  /** Parameters keyed by checkpoint name. */
  get params(): Record<string, tf.Variable> {
    const p: Record<string, tf.Variable> = { [`${this.name}.weight`]: this.weight };
    if (this.bias) p[`${this.name}.bias`] = this.bias;
    return p;
  }

  /** hidden: [B, T, D] -> one scalar per token [B, T] */
  perToken(hidden: tf.Tensor3D): tf.Tensor2D {
    return tf.tidy(() => {
      const [B, T, D] = hidden.shape;
      let y = tf.matMul(tf.reshape(hidden, [B * T, D]), this.weight, false, true); // [B*T, 1]
      if (this.bias) y = tf.add(y, this.bias);
      return tf.reshape(y, [B, T]) as tf.Tensor2D;
    });
  }

  /** hidden: [B, T, D], mask: [B, T] -> the scalar at each row's last real token [B] */
  atLastToken(hidden: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor1D {
    return tf.tidy(() => gatherLastToken(this.perToken(hidden), mask));
  }

  hostWeights(): Map<string, HostTensor> {
    const out = new Map<string, HostTensor>();
    for (const [name, v] of Object.entries(this.params)) out.set(name, { shape: [...v.shape], data: v.dataSync() as Float32Array });
    return out;
  }

  dispose(): void {
    this.weight.dispose();
    this.bias?.dispose();
  }
}

/** [B, T] mask -> index of the last 1 in each row [B] (int32); works for left and right padding. */
export function lastTokenIndex(mask: tf.Tensor2D): tf.Tensor1D {
  return tf.tidy(() => {
    const T = mask.shape[1];
    const idx = tf.range(0, T, 1, 'float32'); // [T]
    return tf.cast(tf.max(tf.mul(tf.cast(mask, 'float32'), idx), 1), 'int32') as tf.Tensor1D;
  });
}

/** values: [B, T], mask: [B, T] -> values at each row's last real token [B] (differentiable in values). */
export function gatherLastToken(values: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor1D {
  return tf.tidy(() => {
    const T = values.shape[1];
    // [B, T], built from the mask only. (int32 then cast: tfjs-wasm 4.22's float32 oneHot returns zeros.)
    const onehot = tf.cast(tf.oneHot(lastTokenIndex(mask), T), 'float32');
    return tf.sum(tf.mul(values, onehot), 1) as tf.Tensor1D;
  });
}
