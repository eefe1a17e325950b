// The shared training step on a real (tiny) Qwen2 model: gradients agree with finite differences,
// the loss goes down, and no tensor leaks from one step to the next.
import * as tf from '@tensorflow/tfjs';
import { gemmPrecision, hasNativeKernels } from '@rlhf-code/backend';
import { makeConfig, Qwen2Model } from '@rlhf-code/model';
import { sparseCrossEntropy } from './losses';
import { gradientsOf, Trainer } from './trainer';
import { useTestBackend } from './testing/backend';

useTestBackend();

const cfg = makeConfig({
  hidden_size: 32,
  intermediate_size: 48,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 61,
  tie_word_embeddings: true,
  initializer_range: 0.2,
});

/** Next-token loss on rows of ids (left padded with mask 0), counted where the input token is real. */
function lmLoss(model: Qwen2Model, rows: number[][], mask: number[][]) {
  return () =>
    tf.tidy(() => {
      const B = rows.length;
      const T = rows[0].length - 1;
      const ids = tf.tensor2d(rows.map((r) => r.slice(0, -1)), [B, T], 'int32');
      const targets = tf.tensor1d(rows.flatMap((r) => r.slice(1)), 'int32');
      const m = tf.tensor2d(mask.map((r) => r.slice(0, -1)), [B, T]);
      const lossMask = tf.tensor1d(mask.flatMap((r) => r.slice(0, -1)));
      const logits = model.logits(ids, { mask: m }); // [B, T, V]
      return { loss: sparseCrossEntropy(tf.reshape(logits, [B * T, -1]), targets, lossMask) };
    });
}

const rows = [
  [0, 0, 5, 9, 13, 17, 21, 25],
  [3, 6, 9, 12, 15, 18, 21, 24],
];
const mask = [
  [0, 0, 1, 1, 1, 1, 1, 1],
  [1, 1, 1, 1, 1, 1, 1, 1],
];

test('model gradients agree with central finite differences', () => {
  const model = Qwen2Model.init(cfg, { seed: 5 });
  const f = lmLoss(model, rows, mask);
  const { grads } = gradientsOf(model.params, f);
  const lossAt = () => tf.tidy(() => f().loss.dataSync()[0]);
  const probes: [string, number][] = [
    ['model.embed_tokens.weight', 5 * 32 + 3], // an embedding row in use (tied: also the LM head)
    ['model.layers.0.self_attn.q_proj.weight', 17],
    ['model.layers.0.self_attn.k_proj.bias', 4],
    ['model.layers.1.self_attn.v_proj.weight', 40],
    ['model.layers.1.self_attn.o_proj.weight', 101],
    ['model.layers.0.mlp.gate_proj.weight', 77],
    ['model.layers.1.mlp.down_proj.weight', 300],
    ['model.layers.0.input_layernorm.weight', 7],
    ['model.norm.weight', 11],
  ];
  const eps = 2e-3;
  for (const [name, i] of probes) {
    const v = model.params[name];
    const base = v.dataSync().slice();
    const nudge = (d: number) => {
      const x = base.slice();
      x[i] += d;
      v.assign(tf.tensor(x, v.shape));
      return lossAt();
    };
    const numeric = (nudge(eps) - nudge(-eps)) / (2 * eps);
    v.assign(tf.tensor(base, v.shape));
    const analytic = grads[name].dataSync()[i];
    expect(Math.abs(analytic - numeric)).toBeLessThan(2e-3 + 0.03 * Math.abs(numeric));
  }
  tf.dispose(Object.values(grads));
  model.dispose();
});

test('Trainer steps lower the loss with accumulation and clipping, and leak no tensors', () => {
  const model = Qwen2Model.init(cfg, { seed: 1 });
  const trainer = new Trainer(model.params, {
    optimizer: { lr: 3e-2, weightDecay: 0.01 },
    schedule: { warmupSteps: 2, totalSteps: 30, minLr: 3e-3 },
    maxGradNorm: 1,
  });
  const micro = [
    { loss: lmLoss(model, [rows[0]], [mask[0]]), weight: 5 },
    { loss: lmLoss(model, [rows[1]], [mask[1]]), weight: 7 },
  ];
  const losses: number[] = [];
  const counts: number[] = [];
  for (let s = 0; s < 30; s++) {
    const r = trainer.step(micro);
    expect(r.skipped).toBe(false);
    losses.push(r.loss);
    counts.push(tf.memory().numTensors);
  }
  expect(losses[29]).toBeLessThan(0.2 * losses[0]);
  expect(new Set(counts.slice(2)).size).toBe(1); // flat after the first steps created optimizer state
  expect(trainer.stepCount).toBe(30);
  trainer.dispose();
  model.dispose();
});

test('precision bf16: the losses and gradients computed with bf16 GEMM operands, the fp32 precision back after the step', () => {
  const stepOnce = (precision: 'fp32' | 'bf16') => {
    const model = Qwen2Model.init(cfg, { seed: 3 });
    const trainer = new Trainer(model.params, { optimizer: { lr: 1e-2 }, schedule: { totalSteps: 2 }, maxGradNorm: 1, precision });
    const loss = lmLoss(model, rows, mask);
    let during: string | null = null;
    const r = trainer.step([{ loss: () => ((during = gemmPrecision()), loss()) }]);
    const after = gemmPrecision();
    const q = model.params['model.layers.0.self_attn.q_proj.weight'].dataSync().slice();
    trainer.dispose();
    model.dispose();
    return { loss: r.loss, during, after, q };
  };
  const fp32 = stepOnce('fp32');
  const bf16 = stepOnce('bf16');
  expect([fp32.during, fp32.after, bf16.during, bf16.after]).toEqual(['fp32', 'fp32', 'bf16', 'fp32']);
  // bf16 operands (8 bits of mantissa) move the loss by about 1e-3 relative, never more than a few percent.
  expect(Math.abs(bf16.loss - fp32.loss)).toBeLessThan(0.02 * fp32.loss);
  if (hasNativeKernels()) expect(bf16.loss).not.toBe(fp32.loss); // the native GEMM rounded its operands
  else expect(bf16.loss).toBe(fp32.loss); // other backends compute in fp32 whatever the setting
  // The updated weights stay fp32 and close: the update is AdamW's, the same in both.
  const worst = Math.max(...fp32.q.map((v, i) => Math.abs(v - bf16.q[i])));
  expect(worst).toBeLessThan(2e-2);
});

test('inStepPrecision: the step precision inside, the one before back after, also when the function throws', () => {
  const model = Qwen2Model.init(cfg, { seed: 3 });
  const trainer = new Trainer(model.params, { optimizer: { lr: 1e-2 }, schedule: { totalSteps: 2 }, maxGradNorm: 1, precision: 'bf16' });
  expect(gemmPrecision()).toBe('fp32');
  expect(trainer.inStepPrecision(() => gemmPrecision())).toBe('bf16');
  expect(gemmPrecision()).toBe('fp32');
  expect(() =>
    trainer.inStepPrecision(() => {
      throw new Error('boom');
    }),
  ).toThrow('boom');
  expect(gemmPrecision()).toBe('fp32');
  trainer.dispose();
  model.dispose();
});
