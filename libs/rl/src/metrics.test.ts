import * as tf from '@tensorflow/tfjs';
import { METRICS, MetricMeans, rolloutMetrics } from './metrics';
import { tokenEntropy } from './entropy';
import { k3Kl } from './kl';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

describe('rolloutMetrics', () => {
  it('computes the TRL-named rollout metrics', () => {
    const m = rolloutMetrics({
      scores: [1, 3],
      kl: [[0.2, 0.3, 0], [-0.1, 0, 0]],
      entropy: [[1, 2, 0], [0.5, 0, 0]],
      mask: [[1, 1, 0], [1, 0, 0]],
      endedWithEos: [true, false],
      klCoef: 0.1,
      values: [[0, 0, 0], [1, 0, 0]],
      returns: [[1, 2, 0], [3, 0, 0]],
      advantages: [[1, 2, 0], [2, 0, 0]],
    });
    expect(m[METRICS.kl]).toBeCloseTo((0.5 - 0.1) / 2, 12); // 'objective/kl': mean of per-response sums
    expect(m['objective/kl_coef']).toBe(0.1);
    expect(m['objective/entropy']).toBeCloseTo((3 + 0.5) / 2, 12);
    expect(m['ppo/policy/entropy_avg']).toBeCloseTo(3.5 / 3, 12);
    expect(m['objective/non_score_reward']).toBeCloseTo(-0.1 * 0.2, 12);
    expect(m['objective/rlhf_reward']).toBeCloseTo(2 - 0.02, 12);
    expect(m['objective/scores']).toBe(2);
    expect(m['env/reward_mean']).toBe(2);
    expect(m['env/reward_std']).toBe(1);
    expect(m['tokens/responses_len_mean']).toBe(1.5);
    expect(m['tokens/missing_eos_frac']).toBe(0.5);
    expect(m['ppo/returns/mean']).toBe(2);
    expect(m['ppo/returns/var']).toBe(1); // 1, 2, 3 unbiased
    // residuals 1, 2, 2: unbiased var 1/3 -> 1 - (1/3) / 1
    expect(m['ppo/val/var_explained']).toBeCloseTo(2 / 3, 12);
    expect(m['ppo/advantages/mean']).toBeCloseTo(5 / 3, 12);
  });

  it('MetricMeans averages per key and keeps NaN visible', () => {
    const mm = new MetricMeans();
    mm.add({ a: 1, b: 2 });
    mm.add({ a: 3, b: NaN });
    expect(mm.means().a).toBe(2);
    expect(mm.means().b).toBeNaN();
  });
});

describe('tokenEntropy and k3Kl', () => {
  it('entropy of uniform logits is log V, 0 on padding', () => {
    const h = tf.tidy(() => tokenEntropy(tf.zeros([1, 2, 4]) as tf.Tensor3D, tf.tensor2d([[1, 0]])).arraySync());
    expect(h[0][0]).toBeCloseTo(Math.log(4), 5);
    expect(h[0][1]).toBe(0);
  });

  it('k3 = exp(d) - d - 1 with d = ref - logp: 0 when equal, positive otherwise', () => {
    const k = tf.tidy(() => (k3Kl(tf.tensor2d([[-1, -2, -0.5]]), tf.tensor2d([[-1, -1, -1]])).arraySync() as number[][])[0]);
    expect(k[0]).toBeCloseTo(0, 6);
    expect(k[1]).toBeCloseTo(Math.exp(1) - 1 - 1, 5);
    expect(k[2]).toBeCloseTo(Math.exp(-0.5) + 0.5 - 1, 5);
  });
});
