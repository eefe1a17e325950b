import { AdaptiveKlController, createKlController, FixedKlController, restoreKlController } from './kl-controller';

describe('KL controllers', () => {
  it('fixed stays put', () => {
    const c = new FixedKlController(0.05);
    c.update(100, 64);
    expect(c.value).toBe(0.05);
    expect(createKlController({ initValue: 0.05 })).toBeInstanceOf(FixedKlController);
  });

  it('adaptive raises the coefficient above the target, lowers it below, by the clipped proportional error', () => {
    const up = new AdaptiveKlController(0.2, 6, 10000);
    up.update(6.6, 100); // error 0.1 -> * (1 + 0.1 * 100 / 10000)
    expect(up.value).toBeCloseTo(0.2 * 1.001, 12);
    up.update(600, 100); // error clipped to 0.2
    expect(up.value).toBeCloseTo(0.2 * 1.001 * 1.002, 12);
    const down = new AdaptiveKlController(0.2, 6, 10000);
    down.update(0, 500); // error clipped to -0.2
    expect(down.value).toBeCloseTo(0.2 * (1 - 0.01), 12);
    const same = new AdaptiveKlController(0.2, 6, 10000);
    same.update(6, 500);
    expect(same.value).toBe(0.2);
    same.update(NaN, 500); // ignored
    expect(same.value).toBe(0.2);
  });

  it('saves and restores its state', () => {
    const c = createKlController({ initValue: 0.1, target: 4, horizon: 100 });
    c.update(10, 8);
    const back = restoreKlController(JSON.parse(JSON.stringify(c.state())));
    expect(back).toBeInstanceOf(AdaptiveKlController);
    expect(back.state()).toEqual(c.state());
    back.update(1, 8);
    c.update(1, 8);
    expect(back.value).toBe(c.value);
    expect(restoreKlController({ kind: 'fixed', value: 0.3 }).value).toBe(0.3);
    expect(() => restoreKlController({ kind: 'adaptive', value: 0.3 }, 'trainer_state.json kl')).toThrow('trainer_state.json kl: unknown or incomplete');
    expect(() => new AdaptiveKlController(0.1, 0, 10)).toThrow('target must be > 0');
  });
});
