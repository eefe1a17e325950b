// Expert iteration: which samples a round keeps, and the settings' defaults and checks.
import { keepPassing } from './rft';
import { RlSettings } from './settings';

describe('keepPassing', () => {
  it('keeps passing samples only, at most keepPerPrompt distinct programs per prompt, in order', () => {
    const samples = [
      { prompt: 0, response: '    return a + b\n', passed: true },
      { prompt: 0, response: '    return a + b   \n\n', passed: true }, // the same program (trailing spaces, blank line)
      { prompt: 0, response: '    return a - b\n', passed: false },
      { prompt: 0, response: '    return b + a\n', passed: true },
      { prompt: 0, response: '    return (a + b)\n', passed: true }, // a third distinct one: over the limit
      { prompt: 1, response: '    return a + b\n', passed: true }, // the same text for another prompt counts there
      { prompt: 2, response: '    return 0\n', passed: false },
    ];
    expect(keepPassing(samples, 2)).toEqual([
      { prompt: 0, response: '    return a + b\n' },
      { prompt: 0, response: '    return b + a\n' },
      { prompt: 1, response: '    return a + b\n' },
    ]);
    expect(keepPassing(samples, 1).map((k) => k.prompt)).toEqual([0, 1]);
    expect(keepPassing(samples.filter((s) => !s.passed), 2)).toEqual([]);
  });
});

describe('rft settings', () => {
  it('defaults: one round of 8 samples at T 0.7, 2 kept per prompt, replay 1:1, 2 epochs at a cosine 3e-4', () => {
    const s = RlSettings.parse({ algo: 'rft' });
    expect(s).toMatchObject({ rounds: 1, samples: 8, temperature: 0.7, keepPerPrompt: 2, replayRatio: 1, epochs: 2, lr: 3e-4, schedule: 'cosine', out: 'results/rft' });
  });

  it('rejects a low-precision base without LoRA and unknown keys', () => {
    expect(RlSettings.safeParse({ algo: 'rft', baseDtype: 'int8' }).success).toBe(false);
    expect(RlSettings.safeParse({ algo: 'rft', maxSteps: 3 }).success).toBe(false); // rounds are whole epochs: no --max-steps
    expect(RlSettings.safeParse({ algo: 'rft', cliprange: 0.2 }).success).toBe(false); // no policy-gradient settings
  });
});
