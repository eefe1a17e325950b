import { ArmRouter, defaultArms, EXPERIMENT_ARMS, holds, modelOfArm } from './arms';
import { parseOnlineConfig } from './config';

test('a fraction of requests goes to the frozen start arm, reproducibly by seed', () => {
  const n = 4000;
  const count = (r: ArmRouter) => Array.from({ length: n }, () => r.route().arm.name).filter((a) => a === 'start').length;
  const share = count(new ArmRouter(0.2, 7)) / n;
  // Binomial(4000, 0.2): sd = 0.0063; 4 sd bounds.
  expect(share).toBeGreaterThan(0.2 - 0.026);
  expect(share).toBeLessThan(0.2 + 0.026);
  expect(count(new ArmRouter(0.2, 7))).toBe(count(new ArmRouter(0.2, 7)));
  expect(count(new ArmRouter(0, 1))).toBe(0);
  expect(count(new ArmRouter(1, 1))).toBe(n);
  expect(() => new ArmRouter(1.5)).toThrow(/startFraction must be in \[0, 1\]/);
});

test('the default arms: "policy" with every gate mechanism, "start" with none; random routing has no blocks', () => {
  const r = new ArmRouter(0.1);
  expect(r.arms.map((a) => [a.name, a.model, holds(a), a.rank, a.hide])).toEqual([
    ['start', 'start', false, false, false],
    ['policy', 'policy', true, true, true],
  ]);
  expect(r.route().block).toBeNull();
  // The config's default is the same router: no `arms`, abFraction 0.1, random routing.
  const c = parseOnlineConfig({});
  expect([c.arms, c.abFraction, c.routing]).toEqual([undefined, 0.1, 'random']);
  expect(modelOfArm(defaultArms(0.1), 'start')).toBe('start');
  expect(modelOfArm(EXPERIMENT_ARMS, 'hold-cut')).toBe('start');
  expect(modelOfArm(EXPERIMENT_ARMS, 'all')).toBe('policy');
  expect(modelOfArm([], 'start')).toBe('start'); // a name from another configuration
  expect(modelOfArm([], 'policy')).toBe('policy');
});

test('blocked routing: every block of consecutive requests gets each arm once, in a seeded random order', () => {
  const names = EXPERIMENT_ARMS.map((a) => a.name);
  const blocks = (seed: number, n: number) => {
    const r = new ArmRouter(EXPERIMENT_ARMS, seed, 'blocked');
    return Array.from({ length: n }, () => Array.from({ length: names.length }, () => r.route()));
  };
  const a = blocks(3, 50);
  a.forEach((block, b) => {
    expect(block.map((x) => x.arm.name).sort()).toEqual([...names].sort());
    expect(block.every((x) => x.block === b)).toBe(true);
  });
  const orders = a.map((block) => block.map((x) => x.arm.name).join(','));
  expect(new Set(orders).size).toBeGreaterThan(30); // random orders, not one fixed order (6! = 720 of them)
  expect(new Set(a.map((block) => block[0].arm.name)).size).toBe(names.length); // every arm goes first sometimes
  expect(blocks(3, 50).map((block) => block.map((x) => x.arm.name).join(','))).toEqual(orders); // seeded
  expect(blocks(4, 50).map((block) => block.map((x) => x.arm.name).join(','))).not.toEqual(orders);
});

test('arms must be named uniquely; random routing needs a share', () => {
  expect(() => new ArmRouter([EXPERIMENT_ARMS[0], EXPERIMENT_ARMS[0]])).toThrow('arm names must be unique');
  expect(() => new ArmRouter([{ ...EXPERIMENT_ARMS[0], share: 0 }])).toThrow('random routing needs an arm with a share above 0');
  expect(() => parseOnlineConfig({ arms: [{ name: 'a', model: 'start' }, { name: 'a', model: 'policy' }] })).toThrow('config: arms: arm names must be unique');
  expect(() => parseOnlineConfig({ arms: [{ name: 'a', model: 'trained' }] })).toThrow(/config: arms\.0\.model/);
});
