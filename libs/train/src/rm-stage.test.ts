// Reward-model regression: held-out metrics against hand computations, the loss against the model's own
// predictions, and a short run of the stage on a tiny reward model that must learn a simple rule.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { dataRandom } from '@rlhf-code/data';
import { makeConfig, Qwen2Model, RewardModel, saveCheckpoint } from '@rlhf-code/model';
import { groupedOrder, pairwiseAccuracy, regressionMetrics, rmHeldOutMetrics, rmLoss, rmPredict, RmExample, runRmStage } from './rm-stage';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'train-rm-'));
  tmpDirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('regressionMetrics', () => {
  test('MSE and Pearson correlation by hand', () => {
    const pred = [1, 2, 3, 4];
    const target = [1.5, 1.5, 3.5, 5];
    // Errors 0.5, 0.5, 0.5, 1 -> squares 0.25 x 3 + 1.
    // Deviations from the means (2.5 and 2.875): pred -1.5 -0.5 0.5 1.5, target -1.375 -1.375 0.625 2.125;
    // sum of products 6.25, sums of squares 5 and 8.6875.
    const m = regressionMetrics(pred, target);
    expect(m.n).toBe(4);
    expect(m.mse).toBeCloseTo(1.75 / 4, 12);
    expect(m.pearson).toBeCloseTo(6.25 / Math.sqrt(5 * 8.6875), 12);
    expect(regressionMetrics([3, 2, 1], [0, 5, 10]).pearson).toBeCloseTo(-1, 12);
    expect(regressionMetrics([0, 0, 0], [0, 0, 0])).toEqual({ n: 3, mse: 0, pearson: null });
  });

  test('null correlation for constant inputs or a single pair; errors on a length mismatch', () => {
    expect(regressionMetrics([1, 1, 1], [0, 1, 2])).toEqual({ n: 3, mse: (1 + 0 + 1) / 3, pearson: null });
    expect(regressionMetrics([0, 1, 2], [7, 7, 7]).pearson).toBeNull();
    expect(regressionMetrics([2], [3])).toEqual({ n: 1, mse: 1, pearson: null });
    const empty = regressionMetrics([], []);
    expect(empty.n).toBe(0);
    expect(empty.mse).toBeNaN();
    expect(empty.pearson).toBeNull();
    expect(() => regressionMetrics([1, 2], [1, 2, 3])).toThrow('regressionMetrics: 2 predictions for 3 targets');
  });
});

describe('pairwiseAccuracy', () => {
  test('every (reference, mutant) pair of a group; ties count as wrong; other sources and groups stay apart', () => {
    const rows = [
      { group: 'a', source: 'reference' }, // 0.9
      { group: 'a', source: 'mutant:drop_colon' }, // 0.1: right
      { group: 'a', source: 'mutant:off_by_one' }, // 0.95: wrong
      { group: 'a', source: 'sft' }, // 5: not a mutant, ignored
      { group: 'b', source: 'mutant' }, // 0.3
      { group: 'b', source: 'reference' }, // 0.3: a tie, wrong
      { group: 'b', source: 'reference' }, // 0.4: right (two references -> two pairs with the one mutant)
      { group: 'c', source: 'mutant:truncate' }, // -9: group c has no reference, no pair (group a's reference is not its)
      { group: 'd', source: 'reference' }, // 0: no mutant in d, no pair
      { source: 'reference' }, // no group: ignored
      { group: 'a', source: 'mutants' }, // not "mutant" nor "mutant:<kind>": ignored
      { group: 'a' }, // no source: ignored
    ];
    const pred = [0.9, 0.1, 0.95, 5, 0.3, 0.3, 0.4, -9, 0, 1, 2, -1];
    expect(pairwiseAccuracy(pred, rows)).toEqual({ pairwise_accuracy: 2 / 4, pairwise_n: 4 });
    // The order of rows does not matter.
    const order = [11, 3, 7, 0, 5, 9, 1, 10, 4, 8, 2, 6];
    expect(pairwiseAccuracy(order.map((i) => pred[i]), order.map((i) => rows[i]))).toEqual({ pairwise_accuracy: 0.5, pairwise_n: 4 });
    // A constant RM gets 0, not 0.5.
    expect(pairwiseAccuracy(pred.map(() => 0.5), rows)).toEqual({ pairwise_accuracy: 0, pairwise_n: 4 });
  });

  test('null without pairs; errors on a length mismatch', () => {
    expect(pairwiseAccuracy([], [])).toEqual({ pairwise_accuracy: null, pairwise_n: 0 });
    expect(pairwiseAccuracy([1, 0], [{}, {}])).toEqual({ pairwise_accuracy: null, pairwise_n: 0 }); // datasets without source
    expect(pairwiseAccuracy([1, 0], [{ group: 'a', source: 'reference' }, { group: 'a', source: 'sft' }])).toEqual({ pairwise_accuracy: null, pairwise_n: 0 });
    expect(() => pairwiseAccuracy([1], [{}, {}])).toThrow('pairwiseAccuracy: 1 predictions for 2 rows');
  });

  test('rmHeldOutMetrics = regression metrics + pairwise accuracy, in heldout.json order', () => {
    const examples: RmExample[] = [
      { ids: [1], score: 1, group: 'p', source: 'reference' },
      { ids: [2], score: 0, group: 'p', source: 'mutant:bad_indent' },
      { ids: [3], score: 0.5 },
    ];
    const m = rmHeldOutMetrics([0.8, 0.2, 0.5], examples);
    expect(m).toMatchObject({ ...regressionMetrics([0.8, 0.2, 0.5], [1, 0, 0.5]), pairwise_accuracy: 1, pairwise_n: 1, prompts: 2 });
    expect(Object.keys(m)).toEqual(['n', 'mse', 'pearson', 'pairwise_accuracy', 'pairwise_n', 'prompts', 'se']);
    // Without one of the two prompts no pair or no correlation is left: no standard error for those.
    expect(m.se.pairwise_accuracy).toBeNull();
  });

  test('standard errors by the jackknife over prompts: for equal-sized prompts, the SE of a mean of per-prompt values', () => {
    // 4 prompts, one (reference, mutant) pair each, ranked right, right, wrong, right: accuracy 0.75, per-prompt values
    // 1 1 0 1 with sample variance 0.25, so SE = sqrt(0.25 / 4) = 0.25. MSE: per-prompt mean squared errors
    // (0.01 + 0.04) / 2 = 0.025 three times and (0.09 + 0.16) / 2 = 0.125 once.
    const pred = [0.9, 0.2, 0.9, 0.2, 0.7, 0.4, 0.9, 0.2];
    const examples: RmExample[] = pred.map((_, i) => ({ ids: [i], score: i % 2 === 0 ? 1 : 0, group: `p${i >> 1}`, source: i % 2 === 0 ? 'reference' : 'mutant' }));
    examples[4].score = 0.4; // prompt 2: the reference scored 0.4, the mutant 0.7 -> ranked wrong, errors 0.3 and 0.4
    examples[5].score = 0.8;
    [examples[4].source, examples[5].source] = ['mutant', 'reference'];
    const m = rmHeldOutMetrics(pred, examples);
    expect(m.pairwise_accuracy).toBe(0.75);
    expect(m.se.pairwise_accuracy).toBeCloseTo(0.25, 12);
    const perPrompt = [0.025, 0.025, 0.125, 0.025];
    const mean = perPrompt.reduce((a, b) => a + b) / 4;
    expect(m.mse).toBeCloseTo(mean, 12);
    expect(m.se.mse).toBeCloseTo(Math.sqrt(perPrompt.reduce((a, x) => a + (x - mean) ** 2, 0) / 3 / 4), 12);
    expect(m.se.pearson).toBeGreaterThan(0);
    expect(m.prompts).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
// A tiny reward model made the way the rm app makes one: a causal-LM checkpoint -> RewardModel.fromCausalLM.

const V = 64;
const EOS = 62;
const PAD = 63;
const cfg = makeConfig({
  hidden_size: 32,
  intermediate_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: V,
  initializer_range: 0.1,
});

let lmDir: string;
let tokDir: string;
beforeAll(async () => {
  lmDir = tmpDir();
  const lm = Qwen2Model.init(cfg, { seed: 2 });
  await saveCheckpoint(lmDir, { config: cfg, weights: lm.hostWeights() });
  lm.dispose();
  tokDir = tmpDir(); // checkpoints copy the tokenizer; a minimal one keeps saves fast
  fs.writeFileSync(path.join(tokDir, 'tokenizer_config.json'), '{}\n');
});
const newRm = () => RewardModel.fromCausalLM(lmDir, { padTokenId: PAD, seed: 1 });

/**
 * Rows of 4-9 random tokens in [6, 60) + EOS; half contain token 5 somewhere and score 1, the rest score 0. Rows 2k
 * and 2k + 1 form group k as a "reference" (positive) and a "mutant:no5" (negative), as prep:rm's rows of one prompt.
 */
function dataset(n: number, seed: string): RmExample[] {
  const random = dataRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    const len = 4 + Math.floor(random() * 6);
    const ids = Array.from({ length: len }, () => 6 + Math.floor(random() * 54));
    const positive = i % 2 === 0;
    if (positive) ids[Math.floor(random() * len)] = 5;
    return { ids: [...ids, EOS], score: positive ? 1 : 0, group: `${seed}:${i >> 1}`, source: positive ? 'reference' : 'mutant:no5' };
  });
}

test('rmLoss (right padding) is the MSE of rmPredict (left padding): both read the score at EOS', async () => {
  const rm = await newRm();
  const examples = dataset(6, 'loss').map((e, i) => ({ ...e, score: i * 0.3 - 0.5 }));
  expect(new Set(examples.map((e) => e.ids.length)).size).toBeGreaterThan(1); // padding really happens
  const pred = rmPredict(rm, examples, PAD, 4);
  expect(pred).toHaveLength(6);
  expect(new Set(pred.map((p) => p.toFixed(4))).size).toBe(6); // distinct rows, distinct scores
  const loss = tf.tidy(() => rmLoss(rm, examples, PAD).dataSync()[0]);
  const mse = pred.reduce((s, p, i) => s + (p - examples[i].score) ** 2, 0) / pred.length;
  expect(Math.abs(loss - mse)).toBeLessThan(1e-5 * Math.max(1, mse));
  rm.dispose();
});

test('the within-prompt terms by hand: squared error of differences (diff), Bradley-Terry on ordered pairs (bt)', async () => {
  const rm = await newRm();
  const examples = dataset(6, 'pairs').map((e, i) => ({ ...e, score: [1, 0.2, 0.2, 0.5, 0.9, 0][i], group: ['a', 'a', 'a', 'b', 'b', 'c'][i] }));
  const r = rmPredict(rm, examples, PAD);
  const mse = r.reduce((s, p, i) => s + (p - examples[i].score) ** 2, 0) / r.length;
  // Pairs of one group: a (0,1) (0,2) (1,2), b (3,4); c has one row. bt drops the tie (1,2) and orients 3-4 as 4 > 3.
  const diffTerm = ([[0, 1], [0, 2], [1, 2], [3, 4]] as const).reduce((s, [i, j]) => s + (r[i] - r[j] - (examples[i].score - examples[j].score)) ** 2, 0) / 4;
  const softplus = (x: number) => Math.log1p(Math.exp(x));
  const btTerm = ([[0, 1], [0, 2], [4, 3]] as const).reduce((s, [i, j]) => s + softplus(-(r[i] - r[j])), 0) / 3;
  const loss = (kind: 'none' | 'diff' | 'bt', coef: number) => tf.tidy(() => rmLoss(rm, examples, PAD, kind, coef).dataSync()[0]);
  expect(loss('diff', 2)).toBeCloseTo(mse + 2 * diffTerm, 5);
  expect(loss('bt', 0.5)).toBeCloseTo(mse + 0.5 * btTerm, 5);
  expect(loss('diff', 0)).toBeCloseTo(mse, 5);
  expect(loss('bt', 1) - loss('none', 1)).toBeCloseTo(btTerm, 5);
  rm.dispose();
});

test('groupedOrder: a permutation that keeps each group together, the same for the same seed', () => {
  const examples: RmExample[] = dataset(40, 'order').map((e, i) => ({ ...e, group: `g${i % 7}` }));
  const a = groupedOrder(examples, 's1');
  expect([...a].sort((x, y) => examples.indexOf(x) - examples.indexOf(y))).toEqual(examples);
  const groupsInOrder = a.map((e) => e.group).filter((g, i, all) => i === 0 || all[i - 1] !== g);
  expect(groupsInOrder).toHaveLength(7); // each group appears as one run
  expect(groupedOrder(examples, 's1')).toEqual(a);
  expect(groupedOrder(examples, 's2').map((e) => e.ids)).not.toEqual(a.map((e) => e.ids));
});

test('runRmStage learns "contains token 5" and writes heldout.json', async () => {
  const train = dataset(64, 'train');
  const heldOut = dataset(32, 'heldout');
  const rm = await newRm();
  const before = rmHeldOutMetrics(rmPredict(rm, heldOut, PAD), heldOut);
  const out = tmpDir();
  const t0 = Date.now();
  const result = await runRmStage({
    rm,
    padId: PAD,
    tokenizerDir: tokDir,
    outDir: out,
    train,
    heldOut,
    epochs: 4,
    batchSize: 8,
    gradAccum: 1,
    optim: { lr: 3e-3, schedule: 'cosine', minLr: 3e-4, warmupSteps: 3, weightDecay: 0, beta1: 0.9, beta2: 0.99, maxGradNorm: 1 },
    saveEvery: 0,
    seed: 7,
    resume: false,
    quiet: true,
    extraFiles: { 'rm_config.json': { seed: 7 } },
  });
  const after = result.heldout!;
  console.log(
    `held-out mse ${before.mse.toFixed(4)} -> ${after.mse.toFixed(4)}, pearson ${before.pearson?.toFixed(3)} -> ${after.pearson?.toFixed(3)}, ` +
      `pairwise accuracy ${before.pairwise_accuracy} -> ${after.pairwise_accuracy} ` +
      `(${result.position.step} steps, ${Date.now() - t0} ms)`,
  );
  expect(result.position.step).toBe(32);
  expect(result.interrupted).toBe(false);
  // Predicting the mean score (0.5) everywhere would give 0.25: the model must beat that clearly.
  expect(after.mse).toBeLessThan(0.5 * before.mse);
  expect(after.mse).toBeLessThan(0.15);
  expect(after.pearson!).toBeGreaterThan(0.7);
  // 16 held-out groups of one reference and one mutant; the trained RM puts nearly every reference first.
  expect(after.pairwise_n).toBe(16);
  expect(after.pairwise_accuracy!).toBeGreaterThanOrEqual(14 / 16);
  // The reported metrics are those of the final weights.
  const again = rmHeldOutMetrics(rmPredict(rm, heldOut, PAD), heldOut);
  expect(again.mse).toBeCloseTo(after.mse, 10);
  expect(again.pairwise_accuracy).toBe(after.pairwise_accuracy);

  const heldoutJson = JSON.parse(fs.readFileSync(path.join(out, 'heldout.json'), 'utf8'));
  expect(heldoutJson).toEqual({
    heldout: { n: 32, mse: after.mse, pearson: after.pearson, pairwise_accuracy: after.pairwise_accuracy, pairwise_n: 16, prompts: 16, se: after.se },
  });
  expect(JSON.parse(fs.readFileSync(path.join(out, 'rm_config.json'), 'utf8'))).toEqual({ seed: 7 });
  const evalLines = fs
    .readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => 'eval/mse' in l);
  expect(evalLines.map((l) => l.step)).toEqual([8, 16, 24, 32]);
  expect(evalLines[3]['eval/mse']).toBe(after.mse);
  expect(evalLines[3]['eval/pairwise_accuracy']).toBe(after.pairwise_accuracy);
  expect(evalLines[3]['eval/pairwise_n']).toBe(16);

  // The folder is a reward-model checkpoint that predicts what the trained model predicts.
  const loaded = await RewardModel.load(out);
  const p1 = rmPredict(loaded, heldOut, PAD);
  const p0 = rmPredict(rm, heldOut, PAD);
  expect(Math.max(...p1.map((p, i) => Math.abs(p - p0[i])))).toBeLessThan(1e-6);
  loaded.dispose();
  rm.dispose();
});
