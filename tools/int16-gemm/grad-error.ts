// How far int16 activations move a LoRA step's adapter gradients and the loss: one int8-base model of a
// preset shape, the same batch, gradients with setLowPrecisionActivations fp32 and int16 on the same stored weights.
// Prints one JSON line: loss both ways, and the relative error ||g16 - g32|| / ||g32|| over all adapters, the worst
// single adapter tensor, and the cosine between the two gradient vectors.
//   node --import tsx tools/int16-gemm/grad-error.ts [--hidden 256 --layers 4 --heads 4 --kv 2 --ffn 704 --vocab 16384 --seq 128 --batch 2]
import * as tf from '@tensorflow/tfjs';
import { initBackend, setLowPrecisionActivations } from '@rlhf-code/backend';
import { LORA_TARGETS, makeConfig, Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy } from '@rlhf-code/trainer-core';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const f = { hidden: flag('hidden', 256), layers: flag('layers', 4), heads: flag('heads', 4), kv: flag('kv', 2), ffn: flag('ffn', 704),
  vocab: flag('vocab', 16384), seq: flag('seq', 128), batch: flag('batch', 2), rank: flag('lora-rank', 8) };

async function main(): Promise<void> {
  await initBackend({ quiet: true });
  const config = makeConfig({ hidden_size: f.hidden, num_hidden_layers: f.layers, num_attention_heads: f.heads, num_key_value_heads: f.kv,
    intermediate_size: f.ffn, vocab_size: f.vocab, tie_word_embeddings: true, max_position_embeddings: Math.max(2048, f.seq) });
  const model = Qwen2Model.init(config, { seed: 0, baseDtype: 'int8' });
  model.addLora({ r: f.rank, alpha: 2 * f.rank, dropout: 0, targets: [...LORA_TARGETS] }, { seed: 1 });
  tf.tidy(() => Object.entries(model.adapters).forEach(([name, v], i) => name.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.02, 'float32', i))));
  const tokens = new Int32Array(f.batch * (f.seq + 1));
  let s = 12345;
  for (let i = 0; i < tokens.length; i++) tokens[i] = (s = (s * 1103515245 + 12345) % 2 ** 31) % f.vocab;
  const vars = model.adapters;
  const grads = (kind: 'fp32' | 'int16') => {
    setLowPrecisionActivations(kind);
    const { value, grads } = tf.variableGrads(() => tf.tidy(() => {
      const all = tf.tensor2d(tokens, [f.batch, f.seq + 1], 'int32');
      const ids = tf.slice(all, [0, 0], [f.batch, f.seq]) as tf.Tensor2D;
      const targets = tf.reshape(tf.slice(all, [0, 1], [f.batch, f.seq]), [-1]);
      return sparseCrossEntropy(tf.reshape(model.logits(ids), [f.batch * f.seq, f.vocab]), targets) as tf.Scalar;
    }), Object.values(vars));
    const out = new Map(Object.entries(vars).map(([name, v]) => [name, grads[v.name].dataSync() as Float32Array]));
    const loss = value.dataSync()[0];
    tf.dispose([value, ...Object.values(grads)]);
    // Each target token's log-probability (scoring: what PPO and the reward model read), no gradient.
    const logp = tf.tidy(() => {
      const all = tf.tensor2d(tokens, [f.batch, f.seq + 1], 'int32');
      const ids = tf.slice(all, [0, 0], [f.batch, f.seq]) as tf.Tensor2D;
      const targets = tf.reshape(tf.slice(all, [0, 1], [f.batch, f.seq]), [-1]) as tf.Tensor1D;
      const lp = tf.logSoftmax(tf.reshape(model.logits(ids), [f.batch * f.seq, f.vocab]));
      return tf.sum(tf.mul(lp, tf.oneHot(targets, f.vocab)), 1).dataSync() as Float32Array;
    });
    return { loss, out, logp };
  };
  const a = grads('fp32');
  const b = grads('int16');
  let num = 0, den = 0, dot = 0, nb = 0, worst = 0;
  for (const [name, g] of a.out) {
    const h = b.out.get(name)!;
    let n = 0, d = 0;
    g.forEach((x, i) => ((n += (h[i] - x) ** 2), (d += x * x), (dot += x * h[i]), (nb += h[i] * h[i])));
    num += n, den += d;
    if (d > 0) worst = Math.max(worst, Math.sqrt(n / d));
  }
  process.stdout.write(JSON.stringify({ setting: f, loss_fp32: a.loss, loss_int16: b.loss, loss_diff: b.loss - a.loss,
    grad_rel_error: Math.sqrt(num / den), worst_tensor_rel_error: worst, cosine: dot / Math.sqrt(den * nb),
    max_token_logprob_diff: a.logp.reduce((m, x, i) => Math.max(m, Math.abs(x - b.logp[i])), 0) }) + '\n');
  model.dispose();
}

void main();
