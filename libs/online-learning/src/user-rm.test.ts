import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { Qwen2Model } from '@rlhf-code/model';
import { LineRule, lineRuleFor, showCompletion } from '@rlhf-code/continue';
import { formatFim, loadTokenizer, type Tokenizer } from '@rlhf-code/tokenizer';
import { parseOnlineConfig } from '@rlhf-code/online-core';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { GATE_FEATURES } from '@rlhf-code/online-gate';
import { OnlineTrainer } from './online-trainer';
import { calibration, expectedUtility, fitUserRm, pcaComponents, rmProbability, UserRewardModel, type RmObservation } from './user-reward-model';
import { pooledHidden, trainedTokens, UserRmRl } from './user-rm-rl';

beforeAll(() => initBackend({ quiet: true }));

/** A seeded uniform stream (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Synthetic outcomes with a known rule: P(accept) = sigmoid(3 * (2 x0 - 1) - 2 x1) on the first two of 26 uniform
 * features, the rest noise; hidden states of 32 dims whose first coordinate is x0 plus noise.
 */
function synthetic(n: number, seed: number): RmObservation[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const features = Array.from({ length: GATE_FEATURES.length }, () => r());
    const p = 1 / (1 + Math.exp(-(3 * (2 * features[0] - 1) - 2 * features[1])));
    const hidden = Array.from({ length: 32 }, (_, j) => (j === 0 ? features[0] * 5 : r()));
    return { features, hidden, accepted: r() < p };
  });
}

test("Cursor's expected utility: 0.75 p - 0.25 (1 - p) for a displayed suggestion, 0 for a blank one", () => {
  expect(expectedUtility(1, 0.25)).toBeCloseTo(0.75);
  expect(expectedUtility(0, 0.25)).toBeCloseTo(-0.25);
  expect(expectedUtility(0.25, 0.25)).toBeCloseTo(0); // at the threshold, showing is worth silence
  expect(expectedUtility(0.6, 0.25)).toBeCloseTo(0.75 * 0.6 - 0.25 * 0.4);
  expect(expectedUtility(null, 0.25)).toBe(0);
  expect(() => expectedUtility(1.5, 0.25)).toThrow(/p must be in \[0, 1\]/);
});

test('the reward model fitted on a known rule beats the constant rate out of fold and on later outcomes, and is calibrated', async () => {
  const train = synthetic(400, 1);
  const m = await fitUserRm(train, 'features', 8);
  expect(m.kind).toBe('features');
  expect(m.cv_ll.features!).toBeGreaterThan(m.cv_ll_constant + 0.1);
  expect(m.calibration.ece).toBeLessThan(0.08);
  // Held out: 400 fresh outcomes of the same rule.
  const test = synthetic(400, 2);
  const ll = (p: (o: RmObservation) => number) => test.reduce((s, o) => s + Math.log(o.accepted ? p(o) : 1 - p(o)), 0) / test.length;
  const rate = train.filter((o) => o.accepted).length / train.length;
  expect(ll((o) => rmProbability(m, o))).toBeGreaterThan(ll(() => rate) + 0.1);
  // The weight of the rule's features has the rule's sign; a noise feature's is small.
  expect(m.fit.weights[1]).toBeGreaterThan(0.5);
  expect(m.fit.weights[2]).toBeLessThan(-0.2);
  expect(Math.abs(m.fit.weights[10])).toBeLessThan(0.3);
});

test('auto chooses the input set by out-of-fold log-likelihood: hidden states when only they carry the rule', async () => {
  const obs = synthetic(300, 3).map((o) => ({ ...o, features: o.features.map((_, j) => (j === 0 || j === 1 ? 0.5 : o.features[j])) })); // rule removed from the features
  const m = await fitUserRm(obs, 'auto', 4);
  expect(Object.keys(m.cv_ll).sort()).toEqual(['both', 'features', 'hidden']);
  expect(['hidden', 'both']).toContain(m.kind);
  expect(m.cv_ll[m.kind]!).toBeGreaterThan(m.cv_ll.features! + 0.05);
  expect(m.pca!.components).toHaveLength(4);
});

test('validation: a rule the inputs carry is validated, a coin flip is not', async () => {
  expect((await fitUserRm(synthetic(300, 8), 'features', 4)).validated).toBe(true);
  const r = rng(9);
  const coin = synthetic(300, 10).map((o) => ({ ...o, accepted: r() < 0.4 }));
  const m = await fitUserRm(coin, 'auto', 4);
  expect(m.validated).toBe(false);
  expect(m.gain).toBeLessThan(2 * m.gain_se);
});

test('principal components: the direction of largest variance first, unit length, orthogonal', () => {
  const r = rng(4);
  const xs = Array.from({ length: 200 }, () => {
    const a = (r() - 0.5) * 10;
    const b = (r() - 0.5) * 2;
    return [a + b * 0.1, -a + b * 0.1, b];
  });
  const { components } = pcaComponents(xs, 2);
  const [u, v] = components;
  expect(Math.abs(u[0])).toBeCloseTo(Math.SQRT1_2, 1);
  expect(u[0] * u[1]).toBeLessThan(0);
  expect(u.reduce((s, x) => s + x * x, 0)).toBeCloseTo(1, 5);
  expect(u.reduce((s, x, j) => s + x * v[j], 0)).toBeCloseTo(0, 5);
});

test('calibration: a calibrated predictor has a small ECE, a shifted one a large one', () => {
  const r = rng(5);
  const ps = Array.from({ length: 5000 }, () => r());
  const ys = ps.map((p) => r() < p);
  expect(calibration(ps, ys).ece).toBeLessThan(0.03);
  expect(calibration(ps.map((p) => Math.min(1, p + 0.3)), ys).ece).toBeGreaterThan(0.2);
  const bins = calibration(ps, ys).bins;
  expect(bins.reduce((s, b) => s + b.n, 0)).toBe(5000);
});

test('the reward model waits for minOutcomes with minEach of each kind, then scores later batches before learning them', async () => {
  const rm = new UserRewardModel({ model: 'features', hiddenComponents: 4, minOutcomes: 40, minEach: 4, window: 2000 });
  const obs = synthetic(200, 6);
  await rm.add(obs.filter((o) => !o.accepted).slice(0, 50)); // no accept yet: not fitted
  expect(rm.model).toBeNull();
  await rm.add(obs.slice(0, 60));
  expect(rm.model).not.toBeNull();
  await rm.add(obs.slice(60));
  const report = rm.report();
  expect(report.prequential_n).toBe(140);
  expect(report.prequential_ll!).toBeGreaterThan(report.prequential_ll_constant!);
});

describe('with a model', () => {
  let dir: string;
  let tok: Tokenizer;
  beforeAll(async () => {
    dir = await makeTinyModelDir(5);
    tok = loadTokenizer(dir);
  });

  test('a suggestion cut at display is trained as displayed, ending there; a blank one trains what was sampled', () => {
    const prefix = 'def f(x):\n    y = ';
    const suffix = '\n    return y\n';
    const generated = 'x + 1\n    z = 2\n';
    // Continue's line rule on that text: several lines allowed, past 150 ms the first line ends it.
    const rule = new LineRule(lineRuleFor({ prefix, suffix }, 'auto', 150));
    const cut = rule.cut(generated, 200);
    expect(cut).toBe('x + 1'.length);
    const displayed = showCompletion(generated.slice(0, cut!), prefix, suffix)!;
    expect(displayed).toBe('x + 1');
    const ids = trainedTokens(tok, displayed, tok.encode(generated, { parseSpecialTokens: false }));
    expect(ids[ids.length - 1]).toBe(tok.eosId);
    expect(tok.decode(ids.slice(0, -1))).toBe('x + 1');
    // Nothing displayed: the sampled tokens themselves (e.g. a newline first), no end token added.
    const sampled = tok.encode('\n', { parseSpecialTokens: false });
    expect(trainedTokens(tok, '', sampled)).toEqual(sampled);
    expect(trainedTokens(tok, '', [])).toEqual([tok.eosId]);
  });

  test('pooled hidden states: one row alone or in a padded batch gives the same vector', async () => {
    const model = await Qwen2Model.load(dir, { trainable: false });
    const p1 = tok.encode('a = 1\nb = ', { parseSpecialTokens: false });
    const p2 = tok.encode('x', { parseSpecialTokens: false });
    const r1 = tok.encode('2', { parseSpecialTokens: false });
    const r2 = tok.encode(' = 3 + 4', { parseSpecialTokens: false });
    const before = tf.memory().numTensors;
    const both = pooledHidden(model, [p1, p2], [r1, r2], tok.padId);
    const alone = pooledHidden(model, [p2], [r2], tok.padId);
    expect(tf.memory().numTensors).toBe(before);
    expect(both[1].length).toBe(model.config.hidden_size);
    both[1].forEach((v, j) => expect(v).toBeCloseTo(alone[0][j], 3));
    model.dispose();
  });

  test('an RL step against a fitted reward model trains, keeps tf.memory().numTensors stable, and reports its rollouts', async () => {
    const policy = await Qwen2Model.load(dir);
    const start = await Qwen2Model.load(dir, { trainable: false });
    const config = parseOnlineConfig({
      completion: { minTokens: 0 },
      training: { objective: 'user-rm', maxSeqLen: 128, maxUpdateKl: 100, minibatches: 1, userRm: { positions: 2, samples: 3, steps: 1, maxNewTokens: 6, lr: 1e-2, minOutcomes: 20, minEach: 2 } },
    });
    const trainer = new OnlineTrainer({ model: policy, reference: start, tokenizer: tok, config: config.training });
    const rl = new UserRmRl({ policy, start, tokenizer: tok, config, trainer });
    // A reward model that likes long suggestions (log_chars), fitted on synthetic outcomes with the model's hidden size.
    const r = rng(7);
    const obs = Array.from({ length: 60 }, () => {
      const features = GATE_FEATURES.map(() => r());
      return { features, hidden: Array.from({ length: policy.config.hidden_size }, () => r()), accepted: features[1] > 0.5 };
    });
    await rl.rm.add(obs);
    expect(rl.ready).toBe(true);
    const prompts = [formatFim('def f(x):\n    return ', '\n'), formatFim('a = 1\nb = ', '\n'), formatFim('import ', '\n')];
    const first = await rl.step(prompts); // the first step creates the optimiser's moments
    expect(first).not.toBeNull();
    const before = tf.memory().numTensors;
    const second = (await rl.step(prompts))!;
    expect(tf.memory().numTensors).toBe(before);
    const m = second.metrics;
    expect(m.positions).toBe(2);
    expect(m.rollouts).toBe(6);
    expect(m.trained_rows + 3 * m.uniform_groups).toBe(6);
    if (m.trained_rows > 0) {
      expect(m.discarded).toBeNull();
      expect(second.weights).not.toBeNull();
    }
    rl.dispose();
    trainer.dispose();
    policy.dispose();
    start.dispose();
  }, 120_000);

  test('hindsight: an outcome waits until a request shows what was written at its cursor; RL then runs at the known cursors', async () => {
    const policy = await Qwen2Model.load(dir);
    const start = await Qwen2Model.load(dir, { trainable: false });
    const config = parseOnlineConfig({
      training: { objective: 'user-rm', maxSeqLen: 256, maxUpdateKl: 100, minibatches: 1, userRm: { hindsight: true, model: 'features', positions: 4, samples: 2, steps: 1, maxNewTokens: 4, minOutcomes: 20, minEach: 2 } },
    });
    const trainer = new OnlineTrainer({ model: policy, reference: start, tokenizer: tok, config: config.training });
    const rl = new UserRmRl({ policy, start, tokenizer: tok, config, trainer });
    const file = 'def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n\ndef main():\n    print(total([]))\n';
    const at = (middle: string) => formatFim(file.slice(0, file.indexOf(middle)), file.slice(file.indexOf(middle) + middle.length));
    const here = at('result += item.price');
    const event = { type: 'event' as const, seq: 1, received: 'now', source: 'continue' as const, served: { id: 's1', version: 0, arm: 'policy', typed: 0, eos: true }, skip: null, outcome: { completionId: 'c1', prompt: here, completion: 'result = item', accepted: false } };
    await rl.observe([event], [here]); // only its own request: what was written there is not known yet
    expect(rl.hindsightReport()).toEqual({ matched: 0, waiting: 1, dropped: 0, known_cursors: 0 });
    expect(rl.rm.report().outcomes).toBe(0);
    await rl.observe([], [here, at('print(total([]))')]); // a later request below it shows the line
    expect(rl.hindsightReport()).toEqual({ matched: 1, waiting: 0, dropped: 0, known_cursors: 1 });
    expect(rl.rm.report().outcomes).toBe(1);
    // The reward model's inputs carry the comparison: fit one on synthetic outcomes of that width (accepted = first line
    // equal), then an RL step draws its positions from the known cursors, not from the prompts it is given.
    const r = rng(3);
    const obs = Array.from({ length: 40 }, (_, i) => ({ features: [...GATE_FEATURES.map(() => r()), i % 2, r(), r(), 0], hidden: null, accepted: i % 2 === 1 }));
    await rl.rm.add(obs);
    expect(rl.ready).toBe(true);
    const step = (await rl.step([formatFim('import ', '\n')]))!;
    expect(step.metrics.positions).toBe(1);
    expect(step.metrics.rollouts).toBe(2);
    rl.dispose();
    trainer.dispose();
    policy.dispose();
    start.dispose();
  }, 120_000);
});

test('config: the objective and the RL settings are checked, errors name the field', () => {
  const c = parseOnlineConfig({});
  expect(c.training.userRm.samples).toBeGreaterThanOrEqual(2);
  expect(parseOnlineConfig({ training: { objective: 'user-rm' } }).training.objective).toBe('user-rm');
  expect(() => parseOnlineConfig({ training: { objective: 'rm' } })).toThrow(/training\.objective/);
  expect(() => parseOnlineConfig({ training: { userRm: { samples: 1 } } })).toThrow(/training\.userRm\.samples/);
  expect(() => parseOnlineConfig({ training: { userRm: { model: 'gate' } } })).toThrow(/training\.userRm\.model/);
  expect(() => parseOnlineConfig({ training: { userRm: { lr: 0 } } })).toThrow(/training\.userRm\.lr/);
  expect(() => parseOnlineConfig({ training: { userRm: { temperture: 1 } } })).toThrow(/training\.userRm\.temperture/);
});
