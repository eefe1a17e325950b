// The RL loop (PPO, GRPO, RLOO) end to end on a tiny random policy with a synthetic reward: a response earns 1 when it
// contains token GOOD. The loop must raise the reward and keep the tensor count flat.
import * as tf from '@tensorflow/tfjs';
import { Qwen2Model } from '@rlhf-code/model';
import { mean } from './metrics';
import { RlModels, RlPrompt, RlTrainer } from './rl-trainer';
import { policyGradientSettings, type PolicyGradientSettings } from './settings';
import { combineScorers } from './scorers';
import { createValueHead } from './value-head';
import { tinyConfig, TINY_EOS, TINY_PAD } from './testing/tiny';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const GOOD = 7;
const scorer = combineScorers([{ name: 'contains_good', weight: 1, scorer: (s) => s.map((x) => (x.responseIds.includes(GOOD) ? 1 : 0)) }]);
const prompts: RlPrompt[] = [[3, 4], [5], [6, 8, 9], [10, 11], [12], [13, 14], [15, 16, 17], [18]].map((ids, index) => ({ index, ids }));

/** The tests' PPO settings: small batches, a high constant learning rate, no missing-EOS penalty. */
function config(over: Record<string, unknown> = {}): PolicyGradientSettings {
  return policyGradientSettings({ maxNewTokens: 5, temperature: 1, ppoEpochs: 2, miniBatches: 2, microBatchSize: 0, missingEosPenalty: 0, initKlCoef: 0.01, lr: 1e-2, steps: 25, ...over });
}

function tinyModels(withValueHead: boolean): RlModels {
  const cfg = tinyConfig();
  const policy = Qwen2Model.init(cfg, { seed: 11 });
  const reference = Qwen2Model.init(cfg, { seed: 11, trainable: false });
  return { policy, reference, valueHead: withValueHead ? createValueHead(cfg.hidden_size, null, 5).head : null };
}

function disposeAll(m: RlModels, t: RlTrainer): void {
  t.dispose();
  m.policy.dispose();
  m.reference.dispose();
  m.valueHead?.dispose();
}

describe('RlTrainer', () => {
  it('PPO raises the mean reward of a tiny policy within 25 steps without leaking tensors', async () => {
    const models = tinyModels(true);
    const rl = new RlTrainer(models, scorer, config(), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const rewards: number[] = [];
    let tensorsAfterFirst = 0;
    for (let i = 0; i < 25; i++) {
      const m = await rl.step(prompts);
      rewards.push(m['env/reward_mean']);
      if (i === 0) {
        tensorsAfterFirst = tf.memory().numTensors;
        for (const k of ['objective/kl', 'objective/entropy', 'ppo/loss/policy', 'ppo/loss/value', 'ppo/policy/clipfrac', 'ppo/policy/approxkl',
          'ppo/val/vpred', 'ppo/returns/mean', 'env/reward_std', 'env/contains_good_mean', 'ppo/learning_rate']) {
          expect(Number.isFinite(m[k])).toBe(true);
        }
        expect(m['ppo/updates']).toBe(4); // 2 epochs x 2 minibatches
      }
    }
    if (process.env.RL_TEST_VERBOSE) console.log('PPO reward per step', rewards.map((r) => r.toFixed(2)).join(' '));
    const first = mean(rewards.slice(0, 5));
    const last = mean(rewards.slice(-5));
    expect(last).toBeGreaterThan(first + 0.3);
    expect(last).toBeGreaterThan(0.7);
    expect(tf.memory().numTensors).toBe(tensorsAfterFirst);
    expect(rl.iteration).toBe(25);
    disposeAll(models, rl);
  });

  it('GRPO raises the reward too; groups where every sample scored the same still take part (KL term)', async () => {
    const models = tinyModels(false);
    const rl = new RlTrainer(models, scorer, config({ algo: 'grpo', ppoEpochs: 1, miniBatches: 1 }), {
      padId: TINY_PAD,
      stopTokenIds: [TINY_EOS],
    });
    const rewards: number[] = [];
    let zeroVariance = 0;
    for (let i = 0; i < 20; i++) {
      const m = await rl.step(prompts.slice(0, 4)); // 4 prompts x 4 samples
      rewards.push(m['env/reward_mean']);
      expect(m['grpo/groups']).toBe(4);
      zeroVariance += m['grpo/zero_variance_groups'];
      // every step updates, and the KL term is in its loss, even when every group scored the same
      expect(m['ppo/updates']).toBe(1);
      expect(m['ppo/loss/kl']).toBeGreaterThanOrEqual(0);
    }
    expect(zeroVariance).toBeGreaterThan(0); // an all-0 or all-1 group happens at these rewards
    // GRPO learns this reward within a few steps, so it is compared with the untrained policy's (the first step's).
    expect(mean(rewards.slice(-5))).toBeGreaterThan(rewards[0] + 0.3);
    disposeAll(models, rl);
  });

  it('RLOO raises the reward with no critic, the KL in the reward, without leaking tensors', async () => {
    const models = tinyModels(false);
    const rl = new RlTrainer(models, scorer, config({ algo: 'rloo', ppoEpochs: 1, miniBatches: 1 }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const rewards: number[] = [];
    let tensorsAfterFirst = 0;
    for (let i = 0; i < 20; i++) {
      const m = await rl.step(prompts.slice(0, 4)); // 4 prompts x 4 samples
      rewards.push(m['env/reward_mean']);
      if (i === 0) {
        tensorsAfterFirst = tf.memory().numTensors;
        expect(m['ppo/updates']).toBe(1);
        expect(Number.isFinite(m['objective/kl'])).toBe(true);
        // no critic, no group statistics of GRPO's
        expect([m['ppo/loss/value'], m['ppo/val/vpred'], m['grpo/groups']]).toEqual([undefined, undefined, undefined]);
      }
    }
    if (process.env.RL_TEST_VERBOSE) console.log('RLOO reward per step', rewards.map((r) => r.toFixed(2)).join(' '));
    expect(tf.memory().numTensors).toBe(tensorsAfterFirst);
    expect(mean(rewards.slice(-5))).toBeGreaterThan(rewards[0] + 0.3);
    expect(rl.iteration).toBe(20);
    disposeAll(models, rl);
  });

  it('GRPO --drop-uniform-groups: only the groups with a reward spread are updated on; an all-uniform rollout updates nothing', async () => {
    const models = tinyModels(false);
    const rl = new RlTrainer(models, scorer, config({ algo: 'grpo', ppoEpochs: 1, miniBatches: 1, dropUniformGroups: true }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const weights = () => Object.values(models.policy.params).map((p) => p.dataSync().slice());
    let sawSkip = false;
    let sawUpdate = false;
    for (let i = 0; i < 20 && !(sawSkip && sawUpdate); i++) {
      const before = weights();
      const m = await rl.step(prompts.slice(0, 2)); // 2 prompts x 4 samples: both groups uniform now and then
      const moved = weights().some((w, k) => w.some((x, j) => x !== before[k][j]));
      const informative = m['grpo/groups'] - m['grpo/zero_variance_groups'];
      expect([m['ppo/updates'], moved]).toEqual(informative === 0 ? [0, false] : [1, true]);
      if (informative === 0) sawSkip = true;
      else sawUpdate = true;
    }
    expect(sawUpdate).toBe(true);
    disposeAll(models, rl);
  });

  it('--value-warmup: the first iterations train only the value head, then the policy too', async () => {
    const models = tinyModels(true);
    const rl = new RlTrainer(models, scorer, config({ valueWarmup: 2, valueWarmupLr: 1e-2 }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const snapshot = () => ({
      policy: Object.fromEntries(Object.entries(models.policy.params).map(([k, v]) => [k, v.dataSync().slice()])),
      head: models.valueHead!.params[Object.keys(models.valueHead!.params)[0]].dataSync().slice(),
    });
    const changed = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).some((x, i) => x !== b[i]);
    let before = snapshot();
    for (let i = 0; i < 3; i++) {
      const m = await rl.step(prompts);
      const after = snapshot();
      const policyMoved = Object.keys(before.policy).some((k) => changed(before.policy[k], after.policy[k]));
      expect([i, m['ppo/value_warmup'], policyMoved, changed(before.head, after.head)]).toEqual([i, i < 2 ? 1 : 0, i >= 2, true]);
      expect(m['ppo/updates']).toBe(4);
      before = after;
    }
    expect(rl.trainer.stepCount).toBe(4); // the policy's optimizer stepped only in the third iteration
    disposeAll(models, rl);
  });

  it('stops the update early when the approximate KL passes the bound', async () => {
    const models = tinyModels(true);
    // A huge learning rate moves the policy far in one minibatch.
    const rl = new RlTrainer(models, scorer, config({ targetKlStop: 1e-6, lr: 0.5 }), {
      padId: TINY_PAD,
      stopTokenIds: [TINY_EOS],
    });
    let stopped = false;
    for (let i = 0; i < 3 && !stopped; i++) {
      const m = await rl.step(prompts);
      if (m['ppo/early_stopped'] === 1) {
        stopped = true;
        expect(m['ppo/updates']).toBeLessThan(4);
      }
    }
    expect(stopped).toBe(true);
    disposeAll(models, rl);
  });

  it('--rollout-is token-truncate: weights near 1 when the engine is the trainer (fp32), each iteration a new engine version, no lag', async () => {
    const models = tinyModels(false);
    const rl = new RlTrainer(models, scorer, config({ algo: 'grpo', ppoEpochs: 1, miniBatches: 1, rolloutIs: 'token-truncate', rolloutIsCap: 2, precision: 'fp32' }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    for (let step = 1; step <= 2; step++) {
      const m = await rl.step(prompts);
      expect(m['engine/is_weight_mean']).toBeCloseTo(1, 3);
      expect(m['engine/policy_version_lag_max']).toBe(0);
      expect(m['engine/policy_version_lag_mean']).toBe(0);
      expect(rl.engine.policyVersion).toBe(step);
    }
    disposeAll(models, rl);
  });

  it.each(['fp32', 'bf16'] as const)('recomputes the rollout log-probs exactly as training does (%s): the first update starts at ratio 1', async (precision) => {
    const models = tinyModels(true);
    // One epoch, one minibatch: the only update sees the rollout policy itself, split into micro-batches of 3
    // rows (laid out narrower than the rollout batch).
    const rl = new RlTrainer(models, scorer, config({ ppoEpochs: 1, miniBatches: 1, microBatchSize: 3, precision }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const m = await rl.step(prompts);
    expect(m['ppo/policy/approxkl']).toBeLessThan(1e-10);
    expect(m['ppo/policy/clipfrac']).toBe(0);
    expect(m['ppo/val/clipfrac']).toBe(0);
    if (precision === 'fp32') {
      // KV-cached sampling (fp32) and the full forward pass agree on the log-probs.
      expect(m['tokens/logprob_mismatch']).toBeLessThan(1e-4);
    } else {
      // the recompute runs in the update's bf16, the sampler in fp32: the gap is bf16's rounding, and it is measured
      expect(m['tokens/logprob_mismatch']).toBeGreaterThan(1e-4);
      expect(m['tokens/logprob_mismatch']).toBeLessThan(0.05);
    }
    disposeAll(models, rl);
  });

  it('applies the missing-EOS penalty to scores', async () => {
    const models = tinyModels(true);
    const zero = combineScorers([{ name: 'zero', weight: 1, scorer: (s) => s.map(() => 0) }]);
    const rl = new RlTrainer(models, zero, config({ maxNewTokens: 2, missingEosPenalty: 1, ppoEpochs: 1 }), {
      padId: TINY_PAD,
      stopTokenIds: [TINY_EOS],
    });
    const m = await rl.step(prompts);
    expect(m['env/reward_mean']).toBeCloseTo(-m['tokens/missing_eos_frac'], 10);
    disposeAll(models, rl);
  });

  it('refuses PPO without a value head', () => {
    const models = tinyModels(false);
    expect(() => new RlTrainer(models, scorer, config(), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] })).toThrow('ppo config: ppo trains a critic: it needs a value head');
    models.policy.dispose();
    models.reference.dispose();
  });
});
