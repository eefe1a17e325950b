import * as tf from '@tensorflow/tfjs';
import { initBackend, makeConfig, Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy, Trainer } from '@rlhf-code/train';
(async () => {
  await initBackend({});
  const config = makeConfig({ hidden_size: 256, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 704, vocab_size: 16384, tie_word_embeddings: true });
  const model = Qwen2Model.init(config);
  const trainer = new Trainer(model.params, { optimizer: { lr: 1e-4 }, schedule: { totalSteps: 10, kind: 'constant' }, maxGradNorm: 0 });
  const B = 8, T = 256;
  const tokens = Array.from({ length: B * (T + 1) }, () => Math.floor(Math.random() * 16384));
  const loss = () => tf.tidy(() => {
    const all = tf.tensor2d(tokens, [B, T + 1], 'int32');
    const ids = tf.slice(all, [0, 0], [B, T]) as tf.Tensor2D;
    const targets = tf.reshape(tf.slice(all, [0, 1], [B, T]), [-1]);
    return { loss: sparseCrossEntropy(tf.reshape(model.logits(ids), [B * T, 16384]), targets) };
  });
  trainer.step([{ loss }]);
  const prof = await tf.profile(() => { trainer.step([{ loss }]); });
  const agg: Record<string, [number, number]> = {};
  for (const k of prof.kernels) {
    const key = k.name + ' ' + JSON.stringify(k.inputShapes);
    const e = agg[key] ?? [0, 0]; e[0] += k.kernelTimeMs as number; e[1]++; agg[key] = e;
  }
  let total = 0; for (const v of Object.values(agg)) total += v[0];
  console.log('total kernel ms', total.toFixed(0));
  for (const [k, v] of Object.entries(agg).sort((a, b) => b[1][0] - a[1][0]).slice(0, 25)) console.log(v[0].toFixed(1), v[1], k);
  process.exit(0);
})();
