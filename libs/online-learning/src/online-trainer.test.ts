import * as tf from '@tensorflow/tfjs';
import { Qwen2Model, type HostTensor } from '@rlhf-code/model';
import { initBackend } from '@rlhf-code/backend';
import { formatFim, loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { TrainingSchema, type TrainingConfig } from '@rlhf-code/online-core';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import type { TrainableEvent } from '@rlhf-code/online-feedback';
import { OnlineTrainer } from './online-trainer';

beforeAll(() => initBackend({ quiet: true }));

let dir: string;
let tok: Tokenizer;
beforeAll(async () => {
  dir = await makeTinyModelDir(3);
  tok = loadTokenizer(dir);
});

let n = 0;
/** An event; `eos`: the displayed text is all the model wrote and it ended there itself (default: it did). */
const ev = (prompt: string, completion: string, accepted: boolean, source: 'continue' | 'server' = 'continue', eos = true): TrainableEvent => ({
  type: 'event',
  seq: ++n,
  received: 'now',
  source,
  served: { id: `s${n}`, version: 0, arm: 'policy', typed: 0, eos },
  skip: null,
  outcome: { completionId: `c${n}`, prompt, completion, accepted },
});

async function setup(overrides: Partial<TrainingConfig> = {}) {
  const model = await Qwen2Model.load(dir);
  const reference = await Qwen2Model.load(dir, { trainable: false });
  const config = TrainingSchema.parse({ lr: 1e-2, minibatches: 1, maxUpdateKl: 100, maxSeqLen: 64, ...overrides });
  return { model, reference, trainer: new OnlineTrainer({ model, reference, tokenizer: tok, config }) };
}

/** Names of the tensors whose bytes differ (bitwise equality, fast on big arrays). */
function differing(a: Map<string, HostTensor>, b: Map<string, HostTensor>): string[] {
  const bytes = (t: HostTensor) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return [...a.keys()].filter((k) => !b.has(k) || !bytes(a.get(k)!).equals(bytes(b.get(k)!)));
}

const sum = (t: tf.Tensor) => {
  const v = Array.from(t.dataSync() as Float32Array).reduce((a, b) => a + b, 0);
  t.dispose();
  return v;
};

test('accepted completions become more likely, rejected ones less (Cursor rewards, clipped PPO, token-mean)', async () => {
  const { model, trainer } = await setup();
  const good = ev(formatFim('def add(a, b):\n    return ', '\n'), 'a + b', true);
  const bad = ev(formatFim('x = ', '\n'), 'None  # TODO', false);
  const silent = ev(formatFim('y = ', '\n'), '', false, 'server');
  const sGood = trainer.sample(good, 0);
  const sBad = trainer.sample(bad, 0);
  const before = [sum(OnlineTrainer.completionLogProbs(model, sGood)), sum(OnlineTrainer.completionLogProbs(model, sBad))];
  const { weights, metrics } = await trainer.update([good, bad, silent]);
  expect(weights).not.toBeNull();
  expect(metrics).toMatchObject({ events: 3, accepted: 1, rejected: 1, silent: 1, acceptance: 0.5, discarded: null, optimizer_steps: 1 });
  expect(metrics.reward_mean).toBeCloseTo((0.75 - 0.25 + 0) / 3);
  expect(metrics.tokens).toBe(sGood.completionIds.length + sBad.completionIds.length + 1); // silent: just <|endoftext|>
  const after = [sum(OnlineTrainer.completionLogProbs(model, sGood)), sum(OnlineTrainer.completionLogProbs(model, sBad))];
  expect(after[0]).toBeGreaterThan(before[0]);
  expect(after[1]).toBeLessThan(before[1]);
  expect(metrics.kl).toBeGreaterThan(0);
});

test('training samples: completion + <|endoftext|>, prompt cut to maxSeqLen keeping the FIM tail', async () => {
  const { trainer } = await setup({ maxSeqLen: 32 });
  const long = Array.from({ length: 60 }, (_, i) => `v${i} = ${i}\n`).join('');
  const s = trainer.sample(ev(formatFim(long + 'z = ', '\n'), 'v0', true), 1);
  expect(s.completionIds).toEqual([...tok.encode('v0'), tok.eosId]);
  expect(s.promptIds.length + s.completionIds.length).toBeLessThanOrEqual(32);
  expect(tok.decode(s.promptIds).endsWith('z = <|fim_suffix|>\n<|fim_middle|>')).toBe(true);
});

test('the end token only where the model ended the text the user judged; a cut blank answer trains nothing', async () => {
  const { trainer } = await setup();
  const p = formatFim('z = ', '\n');
  expect(trainer.sample(ev(p, 'v0', true, 'continue', true), 1).completionIds).toEqual([...tok.encode('v0'), tok.eosId]);
  expect(trainer.sample(ev(p, 'v0', true, 'continue', false), 1).completionIds).toEqual(tok.encode('v0'));
  const cutSilence = ev(p, '', false, 'server', false);
  expect(trainer.sample(cutSilence, 0).completionIds).toEqual([]);
  const { metrics } = await trainer.update([ev(p, 'v0', true, 'continue', false), cutSilence]);
  expect(metrics.events).toBe(2);
  expect(metrics.tokens).toBe(tok.encode('v0').length);
});

test('NaN: the update is discarded, the last good weights and optimizer state are restored', async () => {
  const { model, trainer } = await setup();
  const good = model.hostWeights();
  const name = 'model.layers.0.mlp.up_proj.weight';
  const poisoned = good.get(name)!.data.slice();
  poisoned[0] = NaN;
  model.params[name].assign(tf.tensor(poisoned, good.get(name)!.shape));
  const { weights, metrics } = await trainer.update([ev(formatFim('a = ', '\n'), '1', true)]);
  expect(weights).toBeNull();
  expect(metrics.discarded).toBe('nan');
  expect(trainer.trainer.optimizer.stepCount).toBe(0);
  expect(differing(model.hostWeights(), good)).toEqual([]);
});

test('KL above the bound: the update is discarded and the weights are exactly the old ones', async () => {
  const { model, trainer } = await setup({ maxUpdateKl: 1e-12 });
  const before = model.hostWeights();
  const { weights, metrics } = await trainer.update([ev(formatFim('b = ', '\n'), 'True', true), ev(formatFim('c = ', '\n'), '[]', false)]);
  expect(weights).toBeNull();
  expect(metrics.discarded).toBe('kl');
  expect(metrics.kl).toBeGreaterThan(1e-12);
  expect(differing(model.hostWeights(), before)).toEqual([]);
  expect(trainer.trainer.optimizer.stepCount).toBe(0);
});

test('KL to the starting model: measured and penalised when klCoef > 0', async () => {
  const { trainer } = await setup({ klCoef: 0.1, minibatches: 2 });
  const batch = [ev(formatFim('d = ', '\n'), '2', true), ev(formatFim('e = ', '\n'), '3', false)];
  const first = await trainer.update(batch);
  expect(first.metrics.kl_ref).toBeCloseTo(0, 6); // policy == start before its first update
  expect(first.metrics.optimizer_steps).toBe(2);
  const second = await trainer.update(batch.map((e) => ({ ...e, seq: e.seq + 100 })));
  expect(second.metrics.kl_ref!).toBeGreaterThan(0);
});
