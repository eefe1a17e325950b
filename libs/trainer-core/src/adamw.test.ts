import * as tf from '@tensorflow/tfjs';
import { AdamW, OptimizerState } from './adamw';
import { useTestBackend } from './testing/backend';

useTestBackend();

// torch.optim.AdamW written out on plain numbers, one param.
function referenceAdamW(
  p0: number[], grads: number[][], lrs: number[], is2d: boolean,
  { b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.01 } = {},
): number[] {
  const p = p0.slice();
  const m = p.map(() => 0);
  const v = p.map(() => 0);
  grads.forEach((g, s) => {
    const t = s + 1;
    const lr = lrs[s];
    for (let i = 0; i < p.length; i++) {
      if (is2d) p[i] *= 1 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      p[i] -= (lr / (1 - b1 ** t)) * (m[i] / (Math.sqrt(v[i] / (1 - b2 ** t)) + eps));
    }
  });
  return p;
}

const w0 = [0.5, -1, 2, 0.25, 0, -3]; // a [2, 3] weight
const b0 = [1, -2, 0.5]; // a [3] bias
const wGrads = [[0.1, -0.2, 0.3, 0, 1, -1], [0.3, 0.1, -0.5, 0.2, -1, 2], [-0.2, 0.4, 0.1, 0.05, 0.5, 0]];
const bGrads = [[1, -1, 0.5], [0.5, 2, -1], [-1, 0.1, 0.2]];
const lrs = [0.1, 0.05, 0.02];

function makeParams() {
  return { 'lin.weight': tf.variable(tf.tensor2d(w0, [2, 3])), 'lin.bias': tf.variable(tf.tensor1d(b0)) };
}

function run(opt: AdamW, params: Record<string, tf.Variable>, steps: number[]) {
  for (const s of steps) {
    const grads = { 'lin.weight': tf.tensor2d(wGrads[s], [2, 3]), 'lin.bias': tf.tensor1d(bGrads[s]) };
    opt.step(params, grads, lrs[s]);
    tf.dispose(grads);
  }
}

function expectClose(actual: ArrayLike<number>, expected: number[], digits = 5) {
  expect(actual.length).toBe(expected.length);
  expected.forEach((e, i) => expect(actual[i]).toBeCloseTo(e, digits));
}

describe('AdamW', () => {
  it('first step moves each weight by lr against the sign of its gradient, plus decoupled decay', () => {
    const params = makeParams();
    const opt = new AdamW({ lr: 0.1, weightDecay: 0.5 });
    run(opt, params, [0]);
    // At t = 1 the bias-corrected m / sqrt(v) is g / |g|: the step is lr * sign(g) (0 where g = 0).
    expectClose(params['lin.weight'].dataSync(), [0.375, -0.85, 1.8, 0.2375, -0.1, -2.75]);
    expectClose(params['lin.bias'].dataSync(), [0.9, -1.9, 0.4]); // 1-D: no decay
    expect(opt.stepCount).toBe(1);
    opt.dispose();
    tf.dispose(params);
  });

  it.each([0, 0.1])('matches the reference over 3 steps with weightDecay %p', (wd) => {
    const params = makeParams();
    const opt = new AdamW({ lr: 1, weightDecay: wd });
    run(opt, params, [0, 1, 2]);
    expectClose(params['lin.weight'].dataSync(), referenceAdamW(w0, wGrads, lrs, true, { wd }));
    expectClose(params['lin.bias'].dataSync(), referenceAdamW(b0, bGrads, lrs, false, { wd }));
    opt.dispose();
    tf.dispose(params);
  });

  it('uses the given betas and eps', () => {
    const params = makeParams();
    const opt = new AdamW({ lr: 1, beta1: 0.8, beta2: 0.95, eps: 0.1, weightDecay: 0.2 });
    run(opt, params, [0, 1, 2]);
    const cfg = { b1: 0.8, b2: 0.95, eps: 0.1, wd: 0.2 };
    expectClose(params['lin.weight'].dataSync(), referenceAdamW(w0, wGrads, lrs, true, cfg));
    expectClose(params['lin.bias'].dataSync(), referenceAdamW(b0, bGrads, lrs, false, cfg));
    opt.dispose();
    tf.dispose(params);
  });

  it('leaves a parameter without gradient untouched and keeps numTensors flat', () => {
    const params = makeParams();
    const opt = new AdamW({ lr: 0.1 });
    const counts: number[] = [];
    for (let s = 0; s < 3; s++) {
      const grads = { 'lin.bias': tf.tensor1d(bGrads[s]) };
      opt.step(params, grads);
      tf.dispose(grads);
      counts.push(tf.memory().numTensors);
    }
    expectClose(params['lin.weight'].dataSync(), w0, 7);
    expect(counts[1]).toBe(counts[0]);
    expect(counts[2]).toBe(counts[0]);
    expect([...opt.getState().keys()]).toEqual(['lin.bias.exp_avg', 'lin.bias.exp_avg_sq', 'step']);
    opt.dispose();
    tf.dispose(params);
  });

  it('rejects a gradient that matches no parameter or has the wrong shape, before changing anything', () => {
    const params = makeParams();
    const opt = new AdamW({ lr: 0.1 });
    const g = tf.zeros([3, 2]);
    expect(() => opt.step(params, { 'lin.bias': tf.ones([3]), 'lm_head.weight': g })).toThrow(
      'AdamW.step: gradient "lm_head.weight" matches no parameter',
    );
    expect(() => opt.step(params, { 'lin.weight': g })).toThrow(
      'AdamW.step: gradient "lin.weight" has shape [3,2], the parameter has [2,3]',
    );
    expect(opt.stepCount).toBe(0);
    expectClose(params['lin.bias'].dataSync(), b0, 7);
    expect(() => new AdamW({ lr: 1, beta2: 1 })).toThrow('AdamW: invalid beta2 1');
    opt.dispose();
    tf.dispose([g, params]);
  });

  it('resumes from getState/setState exactly as an uninterrupted run', () => {
    const straight = makeParams();
    const optA = new AdamW({ lr: 1, weightDecay: 0.1 });
    run(optA, straight, [0, 1, 2]);

    const resumed = makeParams();
    const optB = new AdamW({ lr: 1, weightDecay: 0.1 });
    run(optB, resumed, [0, 1]);
    const state = optB.getState();
    expect(state.get('step')).toEqual({ shape: [], data: Float32Array.of(2) });
    expect(state.get('lin.weight.exp_avg')!.shape).toEqual([2, 3]);
    optB.dispose();
    const optC = new AdamW({ lr: 1, weightDecay: 0.1 });
    optC.setState(state, resumed);
    expect(optC.stepCount).toBe(2);
    run(optC, resumed, [2]);
    expectClose(resumed['lin.weight'].dataSync(), Array.from(straight['lin.weight'].dataSync()), 6);
    expectClose(resumed['lin.bias'].dataSync(), Array.from(straight['lin.bias'].dataSync()), 6);
    optA.dispose();
    optC.dispose();
    tf.dispose([straight, resumed]);
  });

  it('setState names a mis-shaped, unknown or incomplete entry', () => {
    const params = makeParams();
    const opt = new AdamW({ lr: 0.1 });
    const entry = (shape: number[]) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
    const base: [string, { shape: number[]; data: Float32Array }][] = [['step', entry([])]];
    const state = (...more: typeof base): OptimizerState => new Map([...base, ...more]);
    expect(() => opt.setState(state(['lin.weight.exp_avg', entry([3, 2])], ['lin.weight.exp_avg_sq', entry([2, 3])]), params))
      .toThrow('AdamW.setState: entry "lin.weight.exp_avg" has shape [3,2] and 6 values, parameter "lin.weight" has shape [2,3]');
    expect(() => opt.setState(state(['lin.bias.exp_avg', { shape: [3], data: new Float32Array(2) }]), params))
      .toThrow('AdamW.setState: entry "lin.bias.exp_avg" has shape [3] and 2 values, parameter "lin.bias" has shape [3]');
    expect(() => opt.setState(state(['head.exp_avg', entry([3])]), params))
      .toThrow('AdamW.setState: entry "head.exp_avg" matches no parameter');
    expect(() => opt.setState(state(['lin.bias.momentum', entry([3])]), params))
      .toThrow('AdamW.setState: unexpected entry "lin.bias.momentum"');
    expect(() => opt.setState(state(['lin.bias.exp_avg', entry([3])]), params))
      .toThrow('AdamW.setState: "lin.bias" needs both exp_avg and exp_avg_sq');
    expect(() => opt.setState(new Map(), params)).toThrow('AdamW.setState: "step" must hold one non-negative integer');
    opt.dispose();
    tf.dispose(params);
  });
});
