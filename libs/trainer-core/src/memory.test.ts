// The training utilities together, as a training loop uses them: no tensor may leak from one step to the next.
import * as tf from '@tensorflow/tfjs';
import { GradAccumulator } from './accumulate';
import { AdamW } from './adamw';
import { clipByGlobalNorm } from './clip';
import { lrSchedule } from './schedule';
import { useTestBackend } from './testing/backend';
import { toyLossAndGrads, toyParams } from './testing/toy-model';

useTestBackend();

const V = 16;
const B = 4;
const T = 8;
const STEPS = 20;
const MICRO_BATCHES = 2;

// Micro-batch k: sequences following t -> (3t + 1) mod V from varied starts; the first `k % T` positions masked.
function microBatch(k: number) {
  const tokens = Array.from({ length: B }, (_, b) => {
    const row = [(k * 5 + b * 7) % V];
    while (row.length < T) row.push((3 * row[row.length - 1] + 1) % V);
    return row;
  });
  const targets = tokens.map((row) => row.map((t) => (3 * t + 1) % V));
  const mask = tokens.map((row) => row.map((_, i) => (i < k % T ? 0 : 1)));
  return { tokens, targets, mask, count: B * (T - (k % T)) };
}

it('trains a toy model with accumulation, clipping, a schedule and AdamW without leaking tensors', () => {
  const params = toyParams(V, 8, 7);
  const opt = new AdamW({ lr: 0.05, weightDecay: 0.1 });
  const acc = new GradAccumulator();
  const lr = lrSchedule({ maxLr: 0.05, minLr: 0.005, warmupSteps: 3, totalSteps: STEPS });
  const losses: number[] = [];
  const numTensors: number[] = [];
  for (let step = 0; step < STEPS; step++) {
    let lossSum = 0;
    for (let m = 0; m < MICRO_BATCHES; m++) {
      const { tokens, targets, mask, count } = microBatch(step * MICRO_BATCHES + m);
      const data = [tf.tensor2d(tokens, undefined, 'int32'), tf.tensor2d(targets, undefined, 'int32'), tf.tensor2d(mask)];
      const { loss, grads } = toyLossAndGrads(params, data[0], data[1], data[2]);
      acc.add(grads, count); // weighted by tokens: the step sees the mean over all tokens of both micro-batches
      lossSum += loss / MICRO_BATCHES;
      tf.dispose([data, grads]);
    }
    const mean = acc.take();
    const { grads, norm } = clipByGlobalNorm(mean, 1);
    expect(Number.isFinite(norm)).toBe(true);
    opt.step(params, grads, lr(step));
    tf.dispose([mean, grads]);
    losses.push(lossSum);
    numTensors.push(tf.memory().numTensors);
  }
  expect(losses[STEPS - 1]).toBeLessThan(0.5 * losses[0]);
  expect(numTensors[STEPS - 1]).toBe(numTensors[2]); // after step 3 = after step 20
  console.log(`loss ${losses[0].toFixed(3)} -> ${losses[STEPS - 1].toFixed(3)}; numTensors ${numTensors.join(' ')}`);
  opt.dispose();
  acc.dispose();
  tf.dispose(params);
});
