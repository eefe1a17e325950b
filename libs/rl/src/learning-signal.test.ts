// Can the measure fail? The same tiny policy is trained for 25 PPO steps with a learnable reward (1 when the response
// contains token GOOD), and, as the negative control, with pure noise (a seeded coin flip per response, independent
// of it) once per seed of the coin. Each trained policy is then measured on held-out prompts it never trained on, k
// samples per prompt, against the untouched reference with the evaluation's paired statistics (libs/eval: per-prompt
// difference, SE, 95% t interval). The learnable reward must show a gain beyond noise; the noise reward must not.
// One noise training is one draw: it moves the policy a random way, and the held-out GOOD rate with it, by more than
// the paired SE of one draw says (12 coin seeds on a Zen 5 gave gains from -0.15 to +0.16, per-draw SEs 0.02-0.06), so
// the control is taken across coin seeds: no positive gain on average, and every draw short of the learnt gain.
import { resumableRng, generateBatch, Qwen2Model } from '@rlhf-code/model';
import { meanSe, paired, type PairedDiff } from '@rlhf-code/stats';
import { RlPrompt, RlTrainer } from './rl-trainer';
import { policyGradientSettings, type PolicyGradientSettings } from './settings';
import { combineScorers, Scorer } from './scorers';
import { createValueHead } from './value-head';
import { tinyConfig, TINY_EOS, TINY_PAD } from './testing/tiny';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const GOOD = 7;
const containsGood: Scorer = (s) => s.map((x) => (x.responseIds.includes(GOOD) ? 1 : 0));
const train: RlPrompt[] = [[3, 4], [5], [6, 8, 9], [10, 11], [12], [13, 14], [15, 16, 17], [18]].map((ids, index) => ({ index, ids }));
// Held out: token combinations that never open a training prompt.
const heldOut = [[19], [20, 21], [22], [23, 2], [2, 19], [21], [22, 23], [20]];
const SAMPLES = 32;

const config = policyGradientSettings({ maxNewTokens: 5, temperature: 1, ppoEpochs: 2, miniBatches: 2, microBatchSize: 0, missingEosPenalty: 0, initKlCoef: 0.01, lr: 1e-2, steps: 25 });

/** Per held-out prompt, the share of SAMPLES sampled responses that contain GOOD. */
async function goodRate(model: Qwen2Model): Promise<number[]> {
  const out: number[] = [];
  for (const [i, prompt] of heldOut.entries()) {
    const gens = await generateBatch(model, new Array(SAMPLES).fill(prompt), { maxNewTokens: 5, temperature: 1, padId: TINY_PAD, stopIds: [TINY_EOS], seed: 100 + i });
    out.push(gens.filter((g) => g.ids.includes(GOOD)).length / SAMPLES);
  }
  return out;
}

/** Trains a fresh copy of the tiny policy with `reward` and returns its held-out gain over the reference. */
async function gainAfterTraining(reward: Scorer): Promise<PairedDiff> {
  const cfg = tinyConfig();
  const policy = Qwen2Model.init(cfg, { seed: 11 });
  const reference = Qwen2Model.init(cfg, { seed: 11, trainable: false });
  const valueHead = createValueHead(cfg.hidden_size, null, 5).head;
  const rl = new RlTrainer({ policy, reference, valueHead }, combineScorers([{ name: 'reward', weight: 1, scorer: reward }]), config, {
    padId: TINY_PAD,
    stopTokenIds: [TINY_EOS],
  });
  try {
    for (let i = 0; i < config.steps; i++) await rl.step(train);
    return paired(await goodRate(policy), await goodRate(reference));
  } finally {
    rl.dispose();
    policy.dispose();
    reference.dispose();
    valueHead.dispose();
  }
}

describe('the held-out paired measure', () => {
  it('shows a learnable reward beyond noise, and a pure-noise reward not (across the coin\'s seeds)', async () => {
    const learnt = await gainAfterTraining(containsGood);
    const noise: PairedDiff[] = [];
    for (const seed of [123, 124, 125, 126, 127, 128]) {
      const rng = resumableRng(seed);
      noise.push(await gainAfterTraining((s) => s.map(() => (rng.next() < 0.5 ? 1 : 0))));
    }
    const across = meanSe(noise.map((n) => n.diff));
    if (process.env.RL_TEST_VERBOSE) console.log('held-out GOOD-rate gain', { learnt, noise, across });
    expect(learnt.ci95![0]).toBeGreaterThan(0);
    expect(learnt.diff).toBeGreaterThan(3 * learnt.se!);
    // Noise teaches no gain on average over its seeds, and no single noise draw comes near the learnt reward's gain.
    expect(across.mean).toBeLessThan(3 * across.se!);
    expect(learnt.diff).toBeGreaterThan(Math.max(...noise.map((n) => n.diff)) + 2 * learnt.se!);
  }, 120_000);
});
