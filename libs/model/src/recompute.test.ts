// Layer recomputation: the same loss and gradients as the plain backward pass (full and LoRA), less peak memory,
// no leaked tensors.
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { Qwen2Model } from './model';
import { tinyConfig } from './testing/tiny-model';

beforeAll(() => initBackend({ quiet: true }));

const config = tinyConfig({ vocab_size: 48, num_hidden_layers: 3, max_position_embeddings: 64, initializer_range: 0.2 });
const ids = () => tf.tensor2d([[1, 5, 9, 3, 7, 2], [2, 2, 8, 4, 6, 11]], undefined, 'int32');
const mask = () => tf.tensor2d([[0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]], undefined, 'int32'); // left padding in row 0

/** Loss and gradients of a fixed random projection of the logits, for the model's trainable parameters. */
function lossAndGrads(m: Qwen2Model): { loss: number; grads: Record<string, Float32Array> } {
  const params = m.trainableParams();
  const names = new Map(Object.entries(params).map(([k, v]) => [v.name, k]));
  const { value, grads } = tf.variableGrads(() => {
    const logits = m.logits(ids(), { mask: mask() });
    return tf.sum(tf.mul(logits, tf.randomNormal(logits.shape, 0, 1, 'float32', 3))) as tf.Scalar;
  }, Object.values(params));
  const out: Record<string, Float32Array> = {};
  for (const [n, g] of Object.entries(grads)) out[names.get(n)!] = g.dataSync() as Float32Array;
  const loss = value.dataSync()[0];
  tf.dispose([value, ...Object.values(grads)]);
  return { loss, grads: out };
}

function expectSame(a: ReturnType<typeof lossAndGrads>, b: ReturnType<typeof lossAndGrads>): void {
  expect(b.loss).toBeCloseTo(a.loss, 3);
  expect(Object.keys(b.grads).sort()).toEqual(Object.keys(a.grads).sort());
  for (const [name, g] of Object.entries(a.grads)) {
    const scale = Math.max(...g.map(Math.abs));
    const diff = Math.max(...g.map((x, i) => Math.abs(x - b.grads[name][i])));
    expect(diff / scale).toBeLessThan(1e-4);
  }
}

test('checkpointed layers give the plain gradients (every weight, then a LoRA adapter) and leak nothing', () => {
  const m = Qwen2Model.init(config, { seed: 4 });
  const plain = lossAndGrads(m);
  m.recomputeLayers = true;
  const before = tf.memory().numTensors;
  const ckpt = lossAndGrads(m);
  expect(tf.memory().numTensors).toBe(before);
  expectSame(plain, ckpt);

  m.recomputeLayers = false;
  m.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['q_proj', 'v_proj', 'up_proj', 'down_proj'] }, { seed: 1 });
  for (const v of Object.values(m.adapters)) v.assign(tf.randomNormal(v.shape, 0, 0.2, 'float32', 9));
  const loraPlain = lossAndGrads(m);
  m.recomputeLayers = true;
  expectSame(loraPlain, lossAndGrads(m));
  m.dispose();
});

test('recomputation lowers the peak memory of a backward pass', async () => {
  const deep = tinyConfig({ vocab_size: 48, num_hidden_layers: 8, max_position_embeddings: 64 });
  const m = Qwen2Model.init(deep, { seed: 1 });
  const peak = async () => {
    const start = tf.memory().numBytes;
    const p = await tf.profile(() => {
      lossAndGrads(m);
    });
    return p.peakBytes - start;
  };
  const plain = await peak();
  m.recomputeLayers = true;
  const ckpt = await peak();
  expect(ckpt).toBeLessThan(0.8 * plain);
  m.dispose();
});

test('refuses LoRA dropout while training (the rerun would draw other masks)', () => {
  const m = Qwen2Model.init(config, { seed: 4 });
  m.addLora({ r: 2, alpha: 4, dropout: 0.1, targets: ['q_proj'] }, { seed: 1 });
  m.recomputeLayers = true;
  m.train(true);
  expect(() => lossAndGrads(m)).toThrow('layer recomputation with LoRA dropout');
  m.dispose();
});
