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

  it('rejects bad configs and steps', () => {
    expect(() => lrSchedule({ ...base, totalSteps: 3 })).toThrow(
      'lrSchedule: totalSteps must be an integer >= warmupSteps (4), got 3',
    );
    expect(() => lrSchedule({ ...base, minLr: 2e-3 })).toThrow('lrSchedule: minLr 0.002 must be in [0, maxLr]');
    expect(() => lrSchedule({ ...base, kind: 'step' as 'cosine' })).toThrow('lrSchedule: unknown kind "step"');
    expect(() => lrSchedule(base)(-1)).toThrow('lrSchedule: step must be a non-negative integer, got -1');
  });
});
