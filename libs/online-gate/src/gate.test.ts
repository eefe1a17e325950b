import * as fs from 'fs';
import * as path from 'path';
import { tempDir } from '@rlhf-code/model/testing';
import { formatFim } from '@rlhf-code/tokenizer';
import { GateSchema } from '@rlhf-code/online-core';
import { chooseL2, crossValidate, L2_GRID, loadGateModel, lostAcceptsThreshold, ShowGate } from './gate';
import { GateFitThread } from './gate-fit-thread';
import { cvLogLikelihood, fitLogistic, logisticProbability } from '@rlhf-code/stats';
import { enclosingBlock, GATE_FEATURES, gateFeatures } from './python-features';

const feature = (x: number[], name: (typeof GATE_FEATURES)[number]) => x[GATE_FEATURES.indexOf(name)];

test('features: the compile checks, comments, lines and the cursor, from a FIM prompt', async () => {
  const prompt = formatFim('import os\n\ndef f(x):\n    y = ', '\n    return y\n');
  const [good, broken, comment, two] = await gateFeatures([
    { prompt, text: 'x + 1', tokens: 3, endedByModel: true, logprobs: [-0.5, -1.5, -1] },
    { prompt, text: 'x +', tokens: 2, endedByModel: false, logprobs: [] },
    { prompt, text: 'x  # the input', tokens: 4, endedByModel: true, logprobs: [] },
    { prompt, text: 'x\n    z = y:', tokens: 6, endedByModel: false, logprobs: [] },
  ]);
  expect([feature(good, 'compiles'), feature(good, 'block_compiles'), feature(good, 'has_comment'), feature(good, 'lines')]).toEqual([1, 1, 0, 1]);
  expect(feature(good, 'log_tokens')).toBeCloseTo(Math.log(4));
  expect(feature(good, 'ended_by_model')).toBe(1);
  expect([feature(good, 'mean_logprob'), feature(good, 'min_logprob'), feature(good, 'sum_logprob')]).toEqual([-1, -1.5, -3]);
  expect([feature(broken, 'mean_logprob'), feature(broken, 'min_logprob'), feature(broken, 'sum_logprob')]).toEqual([0, 0, 0]); // unknown
  expect([feature(broken, 'compiles'), feature(broken, 'block_compiles'), feature(broken, 'ended_by_model')]).toEqual([0, 0, 0]);
  expect(feature(good, 'window_compiles')).toBe(0); // `y = ` with nothing after it does not compile
  expect(feature(comment, 'has_comment')).toBe(1);
  expect([feature(two, 'lines'), feature(two, 'ends_colon'), feature(two, 'compiles')]).toEqual([2, 1, 0]);
  // The enclosing top-level statement: a window cut inside an earlier block still judges the suggestion's own block.
  const cut = formatFim('        return 1\n\ndef g():\n    return ', '\n\nprint(g())\n');
  const [inCut] = await gateFeatures([{ prompt: cut, text: '2', tokens: 1, endedByModel: true, logprobs: [] }]);
  expect([feature(inCut, 'compiles'), feature(inCut, 'block_compiles')]).toEqual([0, 1]);
  // A line the file already has; text after the cursor on its line.
  const mid = formatFim('a = 1\nb = ', ' + a\nc = 3\n');
  const [repeat] = await gateFeatures([{ prompt: mid, text: 'c = 3', tokens: 3, endedByModel: true, logprobs: [] }]);
  expect([feature(repeat, 'repeats_line'), feature(repeat, 'mid_line')]).toEqual([1, 1]);
  // Names: `a` is in the file, `zeta` is not; keywords and builtins do not count.
  const [names] = await gateFeatures([{ prompt: mid, text: 'len(a) + zeta', tokens: 5, endedByModel: true, logprobs: [] }]);
  expect(feature(names, 'known_names')).toBe(0.5);
  expect(feature(repeat, 'known_names')).toBe(1);
  // Length steps and the kind of statement of the first line.
  const [assign, ret, call] = await gateFeatures([
    { prompt: mid, text: 'total += len(a)', tokens: 5, endedByModel: true, logprobs: [] },
    { prompt: mid, text: "return a == 'x'", tokens: 5, endedByModel: true, logprobs: [] },
    { prompt: mid, text: '\nif ok(a):', tokens: 4, endedByModel: true, logprobs: [] },
  ]);
  const kinds = (x: number[]) => (['chars_ge_8', 'chars_ge_16', 'chars_ge_32', 'opens_block', 'exits', 'imports', 'assigns', 'calls', 'has_string'] as const).map((f) => feature(x, f));
  expect(kinds(assign)).toEqual([1, 0, 0, 0, 0, 0, 1, 1, 0]);
  expect(kinds(ret)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]); // `==` is not an assignment
  expect(kinds(call)).toEqual([1, 0, 0, 1, 0, 0, 0, 1, 0]);
  // A plain-text prompt has no file to compile in.
  const [plain] = await gateFeatures([{ prompt: 'def f():', text: ' pass', tokens: 1, endedByModel: true, logprobs: [] }]);
  expect([feature(plain, 'compiles'), feature(plain, 'window_compiles'), feature(plain, 'mid_line')]).toEqual([0, 0, 0]);
});

test('enclosingBlock: the outermost statement the window shows whole, dedented; a top-level one as it is', () => {
  // A window that starts inside a class: the method around the cursor, up to the next method.
  const prefix = '        return 1\n\n    @property\n    def g(self):\n        if self.a:\n            x = ';
  const suffix = '\n        else:\n            x = 2\n        return x\n\n    def h(self):\n        pass\n';
  expect(enclosingBlock(prefix, suffix)('1')).toBe('@property\ndef g(self):\n    if self.a:\n        x = 1\n    else:\n        x = 2\n    return x\n');
  // Top level: from the last column-0 statement to the next (a decorator starts one).
  expect(enclosingBlock('import os\n\ndef f():\n    return ', '\n\n@dec\ndef g(): pass\n')('1')).toBe('def f():\n    return 1\n');
});

/** A seeded stream of uniform numbers (a linear congruential generator: enough for test data). */
function lcg(seed: number) {
  let s = seed;
  return () => ((s = (s * 1664525 + 1013904223) % 4294967296) / 4294967296);
}

test('fitLogistic: the penalised log-likelihood is stationary at its answer, and it finds the informative feature', () => {
  const u = lcg(7);
  const d = GATE_FEATURES.length;
  const xs: number[][] = [];
  const ys: boolean[] = [];
  for (let i = 0; i < 300; i++) {
    const x = Array.from({ length: d }, () => u());
    x[3] = u() < 0.5 ? 1 : 0; // "compiles"
    xs.push(x);
    ys.push(u() < (x[3] === 1 ? 0.8 : 0.1));
  }
  const l2 = 1;
  const m = fitLogistic(xs, ys, l2);
  // Gradient of sum log-lik - l2/2 |w|^2 (bias unpenalised) in the standardised coordinates: zero at the optimum.
  const grad = new Array(d + 1).fill(0);
  xs.forEach((x, i) => {
    const r = (ys[i] ? 1 : 0) - logisticProbability(m, x);
    grad[0] += r;
    for (let j = 0; j < d; j++) grad[j + 1] += r * ((x[j] - m.mean[j]) / m.std[j]);
  });
  for (let j = 1; j <= d; j++) grad[j] -= l2 * m.weights[j];
  for (const g of grad) expect(Math.abs(g)).toBeLessThan(1e-6);
  // The compile feature carries it: log-odds 0.8 vs 0.1 differ by 3.6, i.e. about 1.8 per standard deviation of a 0/1 feature.
  const w = m.weights.slice(1).map(Math.abs);
  expect(w.indexOf(Math.max(...w))).toBe(3);
  expect(m.weights[4]).toBeGreaterThan(1.2);
});

/** Outcomes of a user who accepts compiling suggestions at rate `hit` and others at `miss` (feature 3: compiles). */
function outcomes(n: number, hit: number, miss: number, seed: number) {
  const u = lcg(seed);
  const xs: number[][] = [];
  const ys: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const x = GATE_FEATURES.map(() => u());
    x[3] = u() < 0.5 ? 1 : 0;
    xs.push(x);
    ys.push(u() < (x[3] === 1 ? hit : miss));
  }
  return { xs, ys };
}

test('crossValidate: out of sample, what a gate hides is accepted less often when the features predict the user, not for a coin flip', async () => {
  const config = { l2: 1, maxLostAccepts: 0.1 };
  const real = outcomes(200, 0.6, 0.05, 11);
  const v = await crossValidate(real.xs, real.ys, config);
  expect(v.shown + v.hidden).toBe(200); // every outcome judged once, by a gate not fitted on it
  expect(v.shown_accepted + v.hidden_accepted).toBe(real.ys.filter(Boolean).length);
  expect(v.hidden).toBeGreaterThan(20);
  expect(v.hidden_accepted / v.hidden).toBeLessThan(0.15);
  expect(v.p).toBeLessThan(1e-4);
  // A coin user (40% whatever the suggestion): the hidden ones are accepted as often as the shown ones.
  const coin = outcomes(200, 0.4, 0.4, 12);
  const c = await crossValidate(coin.xs, coin.ys, config);
  expect(c.p).toBeGreaterThan(0.05);
});

test("chooseL2 ('cv'): a light penalty where a feature predicts the user, the heaviest for a coin flip; a number is kept", async () => {
  const strong = outcomes(300, 0.9, 0.02, 21);
  const coin = outcomes(300, 0.4, 0.4, 22);
  const scores = await Promise.all(L2_GRID.map((l2) => cvLogLikelihood(strong.xs, strong.ys, l2)));
  const chosen = await chooseL2(strong.xs, strong.ys, 'cv');
  expect(scores[L2_GRID.indexOf(chosen)]).toBe(Math.max(...scores));
  expect(chosen).toBeLessThanOrEqual(3);
  expect(await chooseL2(coin.xs, coin.ys, 'cv')).toBe(30);
  expect(await chooseL2(coin.xs, coin.ys, 2)).toBe(2);
  expect(GateSchema.parse({}).l2).toBe('cv');
  expect(() => GateSchema.parse({ l2: 'auto' })).toThrow();
});

test('lostAcceptsThreshold: hides the least likely suggestions up to the share of expected accepts', () => {
  // Expected accepts 0.05 + 0.05 + 0.1 + 0.8 = 1; 10% may be lost: the two at 0.05 go, the one at 0.1 stays.
  expect(lostAcceptsThreshold([0.8, 0.05, 0.1, 0.05], 0.1)).toBe(0.05);
  expect(lostAcceptsThreshold([0.8, 0.05, 0.1, 0.05], 0.2)).toBe(0.1);
  expect(lostAcceptsThreshold([0.8, 0.05, 0.1, 0.05], 0)).toBe(0);
  // Ties go together: four equal suggestions hold 25% each, more than 5%: none is hidden.
  expect(lostAcceptsThreshold([0.3, 0.3, 0.3, 0.3], 0.05)).toBe(0);
  expect(lostAcceptsThreshold([0.01, 0.01, 0.3, 0.3, 0.3], 0.05)).toBe(0.01);
});

test('ShowGate: shows everything until fitted, then hides what the outcomes say is rejected; replays, saves, loads', async () => {
  const dir = tempDir();
  const config = GateSchema.parse({ minOutcomes: 20, minEach: 3, refitEvery: 4, explore: 0 });
  const gate = new ShowGate(config, { stateDir: dir, seed: 1 });
  const x = (compiles: number) => GATE_FEATURES.map((f) => (f === 'compiles' ? compiles : f === 'log_tokens' ? 2 : 0));
  expect(gate.decide(x(0))).toEqual({ show: true, explored: false, p: null });
  // A user who accepts 2 of 3 compiling suggestions and nothing else.
  for (let i = 0; i < 50; i++) {
    gate.remember(`c${i}`, x(1));
    await gate.observe(`c${i}`, i % 3 !== 0);
    gate.remember(`b${i}`, Promise.resolve(x(0)));
    await gate.observe(`b${i}`, false);
  }
  await gate.observe('never-served', true); // an outcome without remembered features is not data
  expect(gate.outcomes).toBe(100);
  expect(gate.active).toBe(true);
  expect(gate.model!.validated).toBe(true);
  expect(gate.model!.validation.hidden_accepted).toBe(0); // out of sample, nothing it hid was accepted
  expect(gate.decide(x(1)).show).toBe(true);
  const hidden = gate.decide(x(0));
  expect(hidden.show).toBe(false);
  expect(hidden.p!).toBeLessThan(0.1);
  expect(gate.counts).toEqual({ judged: 2, hidden: 1, explored: 0 });
  await gate.close();
  // A restart replays gate.jsonl into the same fit.
  const again = new ShowGate(config, { stateDir: dir, seed: 1 });
  await again.ready();
  expect(again.model!.weights).toEqual(gate.model!.weights);
  await again.close();
  // gate.json round trip: a service on that folder starts with it.
  gate.save(dir);
  const loaded = loadGateModel(dir)!;
  expect(loaded.threshold).toBe(gate.model!.threshold);
  const fresh = new ShowGate(config, { initial: loaded });
  expect(fresh.decide(x(0)).show).toBe(false);
  // Exploring: a hidden suggestion is shown at about the configured rate.
  const explorer = new ShowGate({ ...config, explore: 0.5 }, { initial: loaded, seed: 3 });
  const shown = Array.from({ length: 400 }, () => explorer.decide(x(0))).filter((d) => d.show && d.explored).length;
  expect(shown).toBeGreaterThan(160);
  expect(shown).toBeLessThan(240);
  // A disabled gate never hides.
  expect(new ShowGate({ ...config, enabled: false }, { initial: loaded }).decide(x(0)).show).toBe(true);
  expect(loadGateModel(tempDir())).toBeNull();
});

test('ShowGate: a user the features do not predict (a coin flip) gets a fitted but unvalidated gate that hides nothing; memory is the window', async () => {
  const config = GateSchema.parse({ minOutcomes: 20, refitEvery: 10, window: 100, explore: 0 });
  const gate = new ShowGate(config, { seed: 2 });
  const coin = outcomes(300, 0.4, 0.4, 5);
  for (let i = 0; i < coin.xs.length; i++) {
    gate.remember(`s${i}`, coin.xs[i]);
    await gate.observe(`s${i}`, coin.ys[i]);
  }
  expect(gate.outcomes).toBe(300);
  expect(gate.model!.n).toBe(100); // fitted on the last `window` outcomes only
  expect(gate.model!.validated).toBe(false);
  expect(gate.active).toBe(false);
  expect(coin.xs.every((x) => gate.decide(x).show)).toBe(true);
  expect(gate.counts.hidden).toBe(0);
});

test('refits in the gate-fit thread give the gate an inline refit gives (off the HTTP thread, same numbers)', async () => {
  const config = GateSchema.parse({ minOutcomes: 20, refitEvery: 10, window: 200, explore: 0 });
  const strong = outcomes(120, 0.9, 0.1, 7);
  const threads = new GateFitThread();
  const [inline, threaded] = [new ShowGate(config, { seed: 4 }), new ShowGate(config, { seed: 4, fitThread: threads })];
  try {
    for (const gate of [inline, threaded]) {
      for (let i = 0; i < strong.xs.length; i++) {
        gate.remember(`s${i}`, strong.xs[i]);
        await gate.observe(`s${i}`, strong.ys[i]);
      }
      await gate.ready();
    }
    expect(threaded.model).not.toBeNull();
    expect(threaded.model).toEqual(inline.model);
  } finally {
    await threads.close();
  }
});

test('loadGateModel: a broken gate.json is an error naming the file; an earlier feature set is said and not used', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'gate.json'), '{"weights": [1, 2]');
  expect(() => loadGateModel(dir)).toThrow(`${path.join(dir, 'gate.json')}: not JSON`);
  fs.writeFileSync(path.join(dir, 'gate.json'), '{"weights": [1, 2]}');
  expect(() => loadGateModel(dir)).toThrow(/gate\.json: expected a gate over 26 features/);
  // A gate of an earlier feature set is said and not used; so are its observations.
  fs.writeFileSync(path.join(dir, 'gate.json'), JSON.stringify({ features: ['log_tokens', 'lines'], weights: [0, 1, 2] }));
  const said: string[] = [];
  expect(loadGateModel(dir, (l) => said.push(l))).toBeNull();
  fs.writeFileSync(path.join(dir, 'gate.jsonl'), '{"x": [1, 2], "accepted": true}\n');
  await new ShowGate(GateSchema.parse({}), { stateDir: dir, warn: (l) => said.push(l) }).close();
  expect(said).toEqual([
    `${path.join(dir, 'gate.json')}: a gate over other features (2: an earlier version); not used, the gate refits from new outcomes`,
    `${path.join(dir, 'gate.jsonl')}: 1 observations over another feature set (an earlier version) not replayed`,
  ]);
});
