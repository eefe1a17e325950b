// AdamW keyed by parameter name. tfjs's own Adam keys its moments by position in the gradient list,
// so a changing set of trained variables silently mixes their states; here each moment belongs to a name.
// Same math as torch.optim.AdamW, at step t with gradient g:
//   p <- p - lr * wd * p                      decoupled weight decay, only on >= 2-D params (nanoGPT)
//   m <- b1 * m + (1 - b1) * g                 v <- b2 * v + (1 - b2) * g^2
//   p <- p - lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) + eps)
import * as tf from '@tensorflow/tfjs';
import { fusedAdamW } from '@rlhf-code/backend';

export interface AdamWConfig {
  lr: number; // learning rate used when step() gets none (a schedule usually passes its own)
  beta1?: number; // 0.9
  beta2?: number; // 0.999 (torch's default; nanoGPT uses 0.95 for pretraining)
  eps?: number; // 1e-8
  weightDecay?: number; // 0.01 (torch's default), applied to >= 2-D params only
}

/** Optimizer state as plain arrays, named like torch's: `<param>.exp_avg`, `<param>.exp_avg_sq`, and `step`. */
export type OptimizerState = Map<string, { shape: number[]; data: Float32Array }>;

interface Moments {
  m: tf.Variable; // exp_avg, shape of the param
  v: tf.Variable; // exp_avg_sq, shape of the param
}

export class AdamW {
  readonly lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  stepCount = 0; // steps taken; bias correction uses it for every param
  private moments = new Map<string, Moments>(); // created on a param's first gradient

  constructor({ lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01 }: AdamWConfig) {
    const check = (name: string, value: number, ok: boolean) => {
      if (!Number.isFinite(value) || !ok) throw new Error(`AdamW: invalid ${name} ${value}`);
    };
    check('lr', lr, lr >= 0);
    check('beta1', beta1, beta1 >= 0 && beta1 < 1);
    check('beta2', beta2, beta2 >= 0 && beta2 < 1);
    check('eps', eps, eps > 0);
    check('weightDecay', weightDecay, weightDecay >= 0);
    this.lr = lr;
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.eps = eps;
    this.weightDecay = weightDecay;
  }

  /** One update of every param that has a gradient; params without one are left untouched. */
  step(params: Record<string, tf.Variable>, grads: Record<string, tf.Tensor>, lr = this.lr): void {
    if (!Number.isFinite(lr) || lr < 0) throw new Error(`AdamW.step: invalid lr ${lr}`);
    // Check everything first so that a bad gradient leaves the model and the moments as they were.
    for (const [name, g] of Object.entries(grads)) {
      const p = params[name];
      if (!p) throw new Error(`AdamW.step: gradient "${name}" matches no parameter`);
      if (!tf.util.arraysEqual(g.shape, p.shape)) {
        throw new Error(`AdamW.step: gradient "${name}" has shape [${g.shape}], the parameter has [${p.shape}]`);
      }
      if (g.dtype !== 'float32') throw new Error(`AdamW.step: gradient "${name}" has dtype ${g.dtype}, expected float32`);
    }
    this.stepCount++;
    const { beta1: b1, beta2: b2, eps, weightDecay: wd } = this;
    const bc1 = 1 - b1 ** this.stepCount;
    const bc2 = 1 - b2 ** this.stepCount;
    tf.tidy(() => {
      for (const [name, g] of Object.entries(grads)) {
        const p = params[name];
        const { m, v } = this.momentsOf(name, p);
        const decay = wd > 0 && p.rank >= 2 ? 1 - lr * wd : 1;
        // One pass of the native kernel when the backend has it (same operations in the same order).
        const fused = fusedAdamW(p, g, m, v, { lr, beta1: b1, beta2: b2, eps, decay, bc1, bc2 });
        if (fused) {
          m.assign(fused.m);
          v.assign(fused.v);
          p.assign(fused.p);
          continue;
        }
        m.assign(tf.add(tf.mul(m, b1), tf.mul(g, 1 - b1)));
        v.assign(tf.add(tf.mul(v, b2), tf.mul(tf.square(g), 1 - b2)));
        const update = tf.div(m, tf.add(tf.sqrt(tf.div(v, bc2)), eps)); // shape of p
        const decayed = decay !== 1 ? tf.mul(p, decay) : p;
        p.assign(tf.sub(decayed, tf.mul(update, lr / bc1)));
      }
    });
  }

  getState(): OptimizerState {
    const state: OptimizerState = new Map();
    for (const [name, { m, v }] of this.moments) {
      state.set(`${name}.exp_avg`, { shape: m.shape.slice(), data: (m.dataSync() as Float32Array).slice() });
      state.set(`${name}.exp_avg_sq`, { shape: v.shape.slice(), data: (v.dataSync() as Float32Array).slice() });
    }
    state.set('step', { shape: [], data: Float32Array.of(this.stepCount) });
    return state;
  }

  /** Replaces all moments and the step count by `state` (from getState), checked against `params`. */
  setState(state: OptimizerState, params: Record<string, tf.Variable>): void {
    const step = state.get('step');
    if (!step || step.data.length !== 1 || !Number.isInteger(step.data[0]) || step.data[0] < 0) {
      throw new Error('AdamW.setState: "step" must hold one non-negative integer');
    }
    const kinds = new Map<string, Set<string>>(); // param name -> which of exp_avg / exp_avg_sq are present
    for (const [key, { shape, data }] of state) {
      if (key === 'step') continue;
      const match = /^(.+)\.(exp_avg|exp_avg_sq)$/.exec(key);
      if (!match) throw new Error(`AdamW.setState: unexpected entry "${key}"`);
      const p = params[match[1]];
      if (!p) throw new Error(`AdamW.setState: entry "${key}" matches no parameter`);
      if (!tf.util.arraysEqual(shape, p.shape) || data.length !== p.size) {
        throw new Error(
          `AdamW.setState: entry "${key}" has shape [${shape}] and ${data.length} values, ` +
            `parameter "${match[1]}" has shape [${p.shape}]`,
        );
      }
      kinds.set(match[1], (kinds.get(match[1]) ?? new Set()).add(match[2]));
    }
    for (const [name, present] of kinds) {
      if (present.size !== 2) throw new Error(`AdamW.setState: "${name}" needs both exp_avg and exp_avg_sq`);
    }
    this.dispose();
    for (const name of kinds.keys()) {
      const load = (suffix: string) => {
        const { shape, data } = state.get(`${name}.${suffix}`)!;
        return tf.tidy(() => tf.variable(tf.tensor(data, shape, 'float32'), false));
      };
      this.moments.set(name, { m: load('exp_avg'), v: load('exp_avg_sq') });
    }
    this.stepCount = step.data[0];
  }

  /** Frees the moments (the optimizer starts from scratch if used again). */
  dispose(): void {
    for (const { m, v } of this.moments.values()) {
      m.dispose();
      v.dispose();
    }
    this.moments.clear();
    this.stepCount = 0;
  }

  private momentsOf(name: string, p: tf.Variable): Moments {
    let moments = this.moments.get(name);
    if (!moments) {
      // Variables are not tracked by tidy, so creating them inside step()'s tidy keeps them.
      moments = { m: tf.variable(tf.zerosLike(p), false), v: tf.variable(tf.zerosLike(p), false) };
      this.moments.set(name, moments);
    }
    return moments;
  }
}
