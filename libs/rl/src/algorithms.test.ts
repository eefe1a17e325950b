// The registry: every record's settings variant parses with its defaults, the record's facts hold, and each
// advantage function does what its record says on hand-computed rollouts.
import { z } from 'zod';
import { algorithmOf, ALGORITHMS, criticOf, policyGradientOf } from './algorithms';
import { RlSettings } from './settings';

const defaultsOf = (fields: z.ZodRawShape) => z.object(fields).parse({});

describe('ALGORITHMS', () => {
  it('names are distinct and lower-case words (run_all.sh turns them into RLOO_STEPS and the like); PPO is the default', () => {
    const names = ALGORITHMS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9]*$/);
    expect(RlSettings.parse({}).algo).toBe('ppo');
  });

  it.each(ALGORITHMS.map((a) => [a.name, a] as const))('%s: its variant parses {algo} with every default of its own fields (and a policy-gradient one the shared ones)', (name, a) => {
    const s = RlSettings.parse({ algo: name });
    expect(s).toMatchObject({ algo: name, ...defaultsOf(a.fields) });
    if (a.kind === 'policy-gradient') expect(s).toMatchObject({ steps: 30, lr: 5e-5, initKlCoef: 0.05 });
    else expect(s).not.toHaveProperty('initKlCoef'); // a rejection-sampling variant has only its own settings
    expect(a.description.length).toBeGreaterThan(0);
    expect(Number.isInteger(a.samplesPerPrompt(s as never))).toBe(true);
  });

  it('the facts of each record', () => {
    const facts = ALGORITHMS.map((a) => {
      const s = RlSettings.parse({ algo: a.name });
      return a.kind === 'policy-gradient' ? [a.name, a.kind, a.critic, a.kl, a.samplesPerPrompt(s as never), criticOf(s) !== null] : [a.name, a.kind, a.samplesPerPrompt(s as never), criticOf(s) !== null];
    });
    expect(facts).toEqual([
      ['ppo', 'policy-gradient', true, 'reward', 1, true],
      ['grpo', 'policy-gradient', false, 'loss', 4, false],
      ['rloo', 'policy-gradient', false, 'reward', 4, false],
      ['rft', 'rejection-sampling', 8, false],
    ]);
    expect(() => algorithmOf('a2c')).toThrow('unknown RL algorithm "a2c" (known: ppo, grpo, rloo, rft)');
  });

  it('an algorithm\'s own settings are refused with another --algo', () => {
    expect(() => RlSettings.parse({ algo: 'rloo', dropUniformGroups: true })).toThrow();
    expect(() => RlSettings.parse({ algo: 'grpo', vfCoef: 1 })).toThrow();
    expect(RlSettings.parse({ algo: 'rloo', groupSize: 8 })).toMatchObject({ groupSize: 8 });
  });
});

describe('advantage functions', () => {
  // 2 prompts x 2 samples; responses of 2, 1, 2 and 2 tokens (padding 0).
  const mask = [
    [1, 1],
    [1, 0],
    [1, 1],
    [1, 1],
  ];
  const scores = [1, 0, 0, 0];

  it('rloo: the KL penalty summed into the sequence reward, then the leave-one-out baseline, on every token', () => {
    // per-token rewards as perTokenRewards makes them: -klCoef * k1 per token, the score at the last token
    const rewards = [
      [-0.1, 1 - 0.1],
      [0.2, 0],
      [0, 0],
      [-0.3, 0.1],
    ];
    // sequence rewards: 0.8, 0.2 | 0, -0.2; k = 2: A = r_i - r_other
    const r = policyGradientOf('rloo').advantages({ scores, rewards, values: null, mask }, { groupSize: 2 });
    const expected = [
      [0.6, 0.6],
      [-0.6, 0],
      [0.2, 0.2],
      [-0.2, -0.2],
    ];
    r.advantages.forEach((row, b) => row.forEach((x, t) => expect(x).toBeCloseTo(expected[b][t], 12)));
    expect([r.returns, r.rows]).toEqual([undefined, undefined]);
  });

  it('grpo: group-normalised scores on every token; with dropUniformGroups only the groups with a spread', () => {
    const rewards = mask.map((row) => row.map(() => 0));
    const g = policyGradientOf('grpo');
    const r = g.advantages({ scores, rewards, values: null, mask }, { groupSize: 2, dropUniformGroups: true });
    const a = 0.5 / (Math.SQRT1_2 + 1e-4); // [1, 0]: mean 0.5, unbiased std sqrt(1/2)
    expect(r.advantages[0][0]).toBeCloseTo(a, 10);
    expect(r.advantages[1]).toEqual([-r.advantages[0][0], 0]);
    expect(r.advantages.slice(2)).toEqual([[0, 0], [0, 0]]);
    expect(r.rows).toEqual([0, 1]);
    expect(r.metrics).toEqual({ 'grpo/groups': 2, 'grpo/zero_variance_groups': 1 });
  });

  it('ppo: GAE on the per-token rewards and values, whitened for the update, the raw ones logged', () => {
    const rewards = [[0, 1], [2, 0], [0, 0], [0, 1]];
    const values = [[0, 0], [0, 0], [0, 0], [0, 0]];
    const s = { gamma: 1, lam: 1, whitenAdvantages: false, cliprangeValue: 0.2, vfCoef: 0.1, valueWarmup: 0, valueWarmupLr: 1e-3 };
    const r = policyGradientOf('ppo').advantages({ scores, rewards, values, mask }, s);
    expect(r.advantages).toEqual([[1, 1], [2, 0], [0, 0], [1, 1]]); // gamma = lambda = 1, V = 0: the reward-to-go
    expect(r.returns).toEqual(r.advantages);
    const w = policyGradientOf('ppo').advantages({ scores, rewards, values, mask }, { ...s, whitenAdvantages: true });
    expect(w.logged).toEqual(r.advantages);
    expect(w.advantages).not.toEqual(r.advantages);
  });
});
