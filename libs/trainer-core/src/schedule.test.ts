import { lrSchedule } from './schedule';

describe('lrSchedule', () => {
  const base = { maxLr: 1e-3, minLr: 1e-4, warmupSteps: 4, totalSteps: 104 };

  it('warms up linearly from maxLr / (warmupSteps + 1)', () => {
    const lr = lrSchedule(base);
    expect(lr(0)).toBeCloseTo(2e-4, 12);
    expect(lr(3)).toBeCloseTo(8e-4, 12);
    expect(lr(4)).toBeCloseTo(1e-3, 12); // first decay step: ratio 0
  });

  it('cosine-decays to minLr at totalSteps and stays there', () => {
    const lr = lrSchedule(base);
    expect(lr(29)).toBeCloseTo(1e-4 + 0.9e-3 * 0.5 * (1 + Math.SQRT1_2), 12); // a quarter of the decay
    expect(lr(54)).toBeCloseTo(5.5e-4, 12); // halfway: the mean of maxLr and minLr
    expect(lr(103)).toBeGreaterThan(1e-4);
    expect(lr(104)).toBe(1e-4);
    expect(lr(10_000)).toBe(1e-4);
  });

  it('linear decays in a straight line; constant stays at maxLr', () => {
    const linear = lrSchedule({ ...base, kind: 'linear' });
    expect(linear(29)).toBeCloseTo(1e-4 + 0.9e-3 * 0.75, 12);
    expect(linear(54)).toBeCloseTo(5.5e-4, 12);
    expect(linear(104)).toBe(1e-4);
    const constant = lrSchedule({ ...base, kind: 'constant' });
    expect(constant(0)).toBeCloseTo(2e-4, 12);
    expect(constant(4)).toBe(1e-3);
    expect(constant(10_000)).toBe(1e-3);
  });

  it('defaults: no warmup, cosine, minLr = maxLr / 10', () => {
    const lr = lrSchedule({ maxLr: 1, totalSteps: 10 });
    expect(lr(0)).toBe(1);
    expect(lr(5)).toBeCloseTo(0.55, 12);
    expect(lr(10)).toBeCloseTo(0.1, 12);
  });

  it('wsd: warmup, the peak held, then a straight decay to minLr over the last decaySteps steps', () => {
    const lr = lrSchedule({ ...base, kind: 'wsd', decaySteps: 20 }); // decay from step 84 to 104
    expect(lr(0)).toBeCloseTo(2e-4, 12);
    expect(lr(4)).toBe(1e-3);
    expect(lr(83)).toBe(1e-3);
    expect(lr(84)).toBe(1e-3); // ratio 0
    expect(lr(94)).toBeCloseTo(5.5e-4, 12); // halfway
    expect(lr(103)).toBeCloseTo(1e-4 + 0.9e-3 / 20, 12);
    expect(lr(104)).toBe(1e-4);
    expect(lr(10_000)).toBe(1e-4);
    // Default decay: a fifth of the run; a decay longer than the run after warmup starts right after the warmup.
    expect(lrSchedule({ maxLr: 1, minLr: 0, totalSteps: 100, kind: 'wsd' })(80)).toBe(1);
    expect(lrSchedule({ maxLr: 1, minLr: 0, totalSteps: 100, kind: 'wsd' })(90)).toBeCloseTo(0.5, 12);
    expect(lrSchedule({ maxLr: 1, minLr: 0, warmupSteps: 10, totalSteps: 20, kind: 'wsd', decaySteps: 50 })(15)).toBeCloseTo(0.5, 12);
  });

  it('wsd extends chunk by chunk: a larger totalSteps changes nothing before its decay starts', () => {
    const chunk1 = lrSchedule({ ...base, kind: 'wsd', decaySteps: 20, totalSteps: 1_000_000 });
    const chunk2 = lrSchedule({ ...base, kind: 'wsd', decaySteps: 20, totalSteps: 2_000_000 });
    const final = lrSchedule({ ...base, kind: 'wsd', decaySteps: 20, totalSteps: 300 });
    for (const step of [0, 3, 4, 50, 279]) {
      expect(chunk2(step)).toBe(chunk1(step));
      expect(final(step)).toBe(chunk1(step));
    }
    expect(final(280)).toBe(1e-3);
    expect(final(290)).toBeCloseTo(5.5e-4, 12);
  });

  it('restartStep: the warmup again from a restarted optimizer, as a ramp on the schedule', () => {
    const wsd = { ...base, kind: 'wsd' as const, decaySteps: 20, totalSteps: 1000 };
    const plain = lrSchedule(wsd);
    const restarted = lrSchedule({ ...wsd, restartStep: 100 });
    expect(restarted(99)).toBe(plain(99)); // before the restart: the schedule itself
    expect(restarted(100)).toBeCloseTo(2e-4, 12); // 1 / (warmupSteps + 1) of the rate
    expect(restarted(103)).toBeCloseTo(8e-4, 12);
    expect(restarted(104)).toBe(1e-3);
    expect(restarted(990)).toBe(plain(990));
    const cosine = lrSchedule({ ...base, totalSteps: 1000 });
    expect(lrSchedule({ ...base, totalSteps: 1000, restartStep: 500 })(501)).toBeCloseTo((cosine(501) * 2) / 5, 12);
    expect(lrSchedule({ ...base, warmupSteps: 0, restartStep: 50 })(50)).toBe(lrSchedule({ ...base, warmupSteps: 0 })(50)); // no warmup: no ramp
  });

  it('rejects bad configs and steps', () => {
    expect(() => lrSchedule({ ...base, totalSteps: 3 })).toThrow(
      'lrSchedule: totalSteps must be an integer >= warmupSteps (4), got 3',
    );
    expect(() => lrSchedule({ ...base, minLr: 2e-3 })).toThrow('lrSchedule: minLr 0.002 must be in [0, maxLr]');
    expect(() => lrSchedule({ ...base, kind: 'step' as 'cosine' })).toThrow('lrSchedule: unknown kind "step"');
    expect(() => lrSchedule(base)(-1)).toThrow('lrSchedule: step must be a non-negative integer, got -1');
    expect(() => lrSchedule({ ...base, kind: 'wsd', decaySteps: 1.5 })).toThrow('lrSchedule: decaySteps must be a non-negative integer, got 1.5');
  });
});
