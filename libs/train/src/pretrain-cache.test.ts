// `sft pretrain --cache`: pretraining streamed from a token cache, in chunks. A tiny cache written here and a tiny
// Qwen2 (width 16, one layer) on the shipped 16k tokenizer: resuming gives the same weights and position as one run,
// --max-minutes stops cleanly, a wsd run extended with a larger --max-steps keeps its rate, --init goes on from an
// export's position (optimizer restarted or its bf16 moments carried), bf16 precision is honoured, no tensor leaks,
// and bad caches are refused in one line.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { gemmPrecision } from '@rlhf-code/backend';
import { dataRandom, TokenCacheWriter, tokenizerSha256, openTokenCache } from '@rlhf-code/data';
import { Qwen2Model, readSafetensors, readSafetensorsHeader, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { TOKENIZER_DIR } from '@rlhf-code/model/testing';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import { BF16_MOMENTS_FILE, POSITION_FILE, Trainer } from '@rlhf-code/trainer-core';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';
import { CacheWindows } from './lm-stream';
import { PretrainSettings } from './settings';
import { runPretrain } from './stages';

useTestBackend();

const sendSignal = (signal: NodeJS.Signals) => process.listeners(signal).forEach((handler) => handler(signal));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pretrain-cache-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const logs: string[] = [];
const log = (line: string) => logs.push(line);

let cache: string;
beforeAll(() => {
  const tok = loadTokenizer(TOKENIZER_DIR);
  cache = path.join(tmp, 'cache');
  const w = new TokenCacheWriter(cache, { dtype: 'uint16', tokenizer: { dir: TOKENIZER_DIR, sha256: tokenizerSha256(TOKENIZER_DIR), vocab_size: tok.vocabSize } });
  const file = (seed: number, n: number) => {
    const random = dataRandom(`pretrain-cache:${seed}`);
    return Array.from({ length: n }, (_, f) => `def g${seed}_${f}(a, b):\n    c = a * ${Math.floor(random() * 50)} + b\n    return c\n\n`).join('');
  };
  for (let i = 0; i < 10; i++) w.add('train', tok.encode(file(i, 1 + (i % 4)), { parseSpecialTokens: false }), { path: `p${i}.py`, package: i % 2 ? 'odd' : 'even' });
  w.add('heldout', tok.encode(file(99, 8), { parseSpecialTokens: false }), { path: 'h.py', package: 'even' });
  w.close();
});

/** The settings of a tiny run on the cache: wsd held at lr 1e-2 after a 1-step warmup (decaySteps 0: no decay). */
const settings = (out: string, extra: Record<string, unknown> = {}) =>
  PretrainSettings.parse({
    cache,
    out,
    tokenizer: TOKENIZER_DIR,
    hiddenSize: 16,
    layers: 1,
    heads: 2,
    kvHeads: 1,
    intermediateSize: 32,
    seqLen: 32,
    batchSize: 2,
    lr: 1e-2,
    schedule: 'wsd',
    decaySteps: 0,
    warmupSteps: 1,
    saveEvery: 0,
    quiet: true,
    ...extra,
  });

type Line = Record<string, number>;
const metrics = (dir: string): Line[] =>
  fs.readFileSync(path.join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
const trainLines = (dir: string) => metrics(dir).filter((l) => 'loss' in l);
const state = (dir: string, file = TRAINER_STATE_FILE) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
async function maxDiff(a: string, b: string): Promise<number> {
  const [wa, wb] = await Promise.all([readSafetensors(path.join(a, 'model.safetensors')), readSafetensors(path.join(b, 'model.safetensors'))]);
  let d = 0;
  for (const [name, t] of wa) t.data.forEach((v, i) => (d = Math.max(d, Math.abs(v - wb.get(name)!.data[i]))));
  return d;
}
/** What `fn` prints on stderr (run.print: resuming, notes), kept off the console. */
async function stderrOf<T>(fn: () => Promise<T>): Promise<{ result: T; printed: string }> {
  const printed: string[] = [];
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((text) => printed.push(String(text)) > 0);
  try {
    return { result: await fn(), printed: printed.join('') };
  } finally {
    stderr.mockRestore();
  }
}
/** Runs `fn` with Trainer.step wrapped: `after(trainer)` is called after each step. */
async function withStepHook<T>(after: (t: Trainer) => void, fn: () => Promise<T>): Promise<T> {
  const step = Trainer.prototype.step;
  const spy = jest.spyOn(Trainer.prototype, 'step').mockImplementation(function (this: Trainer, mbs) {
    const r = step.call(this, mbs);
    after(this);
    return r;
  });
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
    stderr.mockRestore();
  }
}

describe('sft pretrain --cache', () => {
  const straight = path.join(tmp, 'straight');
  beforeAll(async () => {
    const r = await runPretrain(settings(straight, { maxSteps: 4 }), log);
    expect(r).toMatchObject({ stage: 'pretrain', step: 4, interrupted: false, outOfTime: false, tokens: 4 * 2 * 32 });
  });

  test('metrics.jsonl: tokens/s, loss, lr, wall seconds and tokens seen per step; the held-out loss at the end', () => {
    const lines = trainLines(straight);
    expect(lines.map((l) => l.step)).toEqual([1, 2, 3, 4]);
    lines.forEach((l, i) => {
      expect(l.tokens).toBe((i + 1) * 64);
      for (const k of ['tokens_per_s', 'loss', 'lr', 'wall_s', 'time_s', 'epoch']) expect(Number.isFinite(l[k])).toBe(true);
    });
    expect(lines.map((l) => l.lr)).toEqual([5e-3, 1e-2, 1e-2, 1e-2]);
    const evals = metrics(straight).filter((l) => 'eval/loss' in l);
    expect(evals.map((l) => l.step)).toEqual([4]);
    expect(evals[0]['eval/loss']).toBeGreaterThan(0);
    // The stream's position: 8 windows drawn, as a stream of the same settings says.
    const s = new CacheWindows(loadTokenizer(TOKENIZER_DIR), openTokenCache(cache).split('train'), { seqLen: 32, fimRate: 0.5, seed: 0 });
    for (let i = 0; i < 8; i++) s.next();
    const { stream } = state(straight);
    expect({ epoch: stream.epoch, cursor: stream.cursor, offset: stream.offset, tokens: stream.tokens }).toEqual({ ...s.position, tokens: 256 });
    expect(stream.data).toMatchObject({ docs: 10, seed: 0, packageWeights: [] });
  });

  test('stopped (SIGINT) after step 2 and resumed: the same position and weights as the straight run', async () => {
    const dir = path.join(tmp, 'stopped');
    const first = await withStepHook((t) => t.stepCount === 2 && sendSignal('SIGINT'), () => runPretrain(settings(dir, { maxSteps: 4 }), log));
    expect(first).toMatchObject({ step: 2, interrupted: true });
    expect(state(dir).position.step).toBe(2);
    const second = await runPretrain(settings(dir, { maxSteps: 4, resume: true }), log);
    expect(second).toMatchObject({ step: 4, interrupted: false });
    expect(state(dir).stream).toEqual(state(straight).stream);
    expect(trainLines(dir).map((l) => [l.step, l.tokens, l.lr])).toEqual(trainLines(straight).map((l) => [l.step, l.tokens, l.lr]));
    expect(await maxDiff(dir, straight)).toBeLessThanOrEqual(1e-6);
  });

  test('--max-minutes: evaluates, saves and returns; a wsd run resumed with a larger --max-steps keeps its rate, then decays', async () => {
    const dir = path.join(tmp, 'chunks');
    const logged: string[] = [];
    const chunk = await runPretrain(settings(dir, { maxSteps: 100000, maxMinutes: 0.001, decaySteps: 2000, warmupSteps: 0 }), (l) => logged.push(l));
    expect(chunk).toMatchObject({ interrupted: false, outOfTime: true });
    const k = chunk.step;
    expect(k).toBeGreaterThanOrEqual(1);
    expect(k).toBeLessThan(50);
    expect(state(dir).position.step).toBe(k);
    expect(metrics(dir).filter((l) => 'eval/loss' in l).map((l) => l.step)).toEqual([k]);
    expect(logged.join('\n')).toMatch(new RegExp(`--max-minutes 0.001 spent at step ${k}; checkpoint saved in ${dir}\\. Continue with the same command and --resume`));

    // The final chunk: --max-steps k + 3, the last 2 steps decaying to --min-lr.
    const { result: final, printed } = await stderrOf(() => runPretrain(settings(dir, { maxSteps: k + 3, decaySteps: 2, minLr: 1e-3, warmupSteps: 0, resume: true }), log));
    expect(printed).toContain(`pretrain: resuming from ${dir} at step ${k}\n`);
    expect(final).toMatchObject({ step: k + 3, outOfTime: false });
    const lr = new Map(trainLines(dir).map((l) => [l.step, l.lr]));
    expect(lr.get(k + 1)).toBe(lr.get(k)); // no jump at the resume
    expect(lr.get(k + 1)).toBe(1e-2);
    expect(lr.get(k + 2)).toBeCloseTo(1e-3 + 9e-3, 12); // the decay's first step: ratio 0
    expect(lr.get(k + 3)).toBeCloseTo(1e-3 + 9e-3 / 2, 12);
    expect(printed).not.toContain('the learning rate jumps');
    expect(trainLines(dir).map((l) => l.step)).toEqual(Array.from({ length: k + 3 }, (_, i) => i + 1));

    // Resumed under a cosine schedule instead, the rate of the step before the resume changes: the run says so.
    const cosine = await stderrOf(() => runPretrain(settings(dir, { maxSteps: k + 4, schedule: 'cosine', decaySteps: undefined, minLr: 1e-3, warmupSteps: 0, resume: true }), log));
    expect(cosine.printed).toMatch(new RegExp(`pretrain: the learning rate jumps at step ${k + 3}: the checkpoint's schedule gave step ${k + 2} lr 0\\.005500, these settings give it `));
  });

  test('--init from an fp32 export: its step, data position and tokens go on, the optimizer restarted or carried in bf16', async () => {
    const first = path.join(tmp, 'first');
    const exported = path.join(tmp, 'export');
    await runPretrain(settings(first, { maxSteps: 2, export: exported, exportDtype: 'F32', exportMoments: true }), log);
    expect(new Set([...(await readSafetensorsHeader(path.join(exported, 'model.safetensors'))).tensors.values()].map((t) => t.dtype))).toEqual(new Set(['F32']));
    expect(new Set([...(await readSafetensorsHeader(path.join(exported, BF16_MOMENTS_FILE))).tensors.values()].map((t) => t.dtype))).toEqual(new Set(['BF16']));
    expect(state(exported, POSITION_FILE)).toEqual(state(first));
    expect(fs.existsSync(path.join(exported, TRAINER_STATE_FILE))).toBe(false); // not a folder to --resume

    const restarted = path.join(tmp, 'restarted');
    const logged: string[] = [];
    await withStepHook(() => undefined, () => runPretrain(settings(restarted, { maxSteps: 4, init: exported }), (l) => logged.push(l)));
    expect(trainLines(restarted).map((l) => [l.step, l.lr])).toEqual([[3, 5e-3], [4, 1e-2]]); // the warmup again from step 2
    expect(state(restarted).optimizerStart).toBe(2);
    expect(state(restarted).stream).toEqual(state(straight).stream);
    expect(trainLines(restarted)[1].tokens).toBe(256);
    expect(await maxDiff(restarted, straight)).toBeGreaterThan(1e-4); // fresh moments: another path

    const carried = path.join(tmp, 'carried');
    await runPretrain(settings(carried, { maxSteps: 4, init: exported, initOptimizer: 'carry' }), log);
    expect(trainLines(carried).map((l) => [l.step, l.lr])).toEqual([[3, 1e-2], [4, 1e-2]]);
    expect(state(carried).optimizerStart).toBeUndefined();
    expect(state(carried).stream).toEqual(state(straight).stream);
    expect(await maxDiff(carried, straight)).toBeLessThan(1e-3); // the straight run, but for the moments' bf16 rounding

    // A run folder (its trainer_state.json) carries its position too.
    const fromRun = path.join(tmp, 'from-run-folder');
    await runPretrain(settings(fromRun, { maxSteps: 4, init: first }), log);
    expect(state(fromRun).stream).toEqual(state(straight).stream);
    expect(state(fromRun).optimizerStart).toBe(2);

    // Resuming the --init run's own checkpoint keeps its optimizer's start.
    const more = await runPretrain(settings(restarted, { maxSteps: 5, resume: true, init: exported }), log);
    expect(more.step).toBe(5);
    expect(state(restarted).optimizerStart).toBe(2);
  });

  test('--precision bf16 in the training steps only; no tensor accumulates from step to step', async () => {
    const seen: { inStep: boolean; precision: string; tensors: number }[] = [];
    let inStep = false;
    const forward = Qwen2Model.prototype.forward;
    const fwd = jest.spyOn(Qwen2Model.prototype, 'forward').mockImplementation(function (this: Qwen2Model, ...args: Parameters<Qwen2Model['forward']>) {
      seen.push({ inStep, precision: gemmPrecision(), tensors: tf.memory().numTensors });
      return forward.apply(this, args);
    });
    const step = Trainer.prototype.step;
    const st = jest.spyOn(Trainer.prototype, 'step').mockImplementation(function (this: Trainer, mbs) {
      inStep = true;
      try {
        return step.call(this, mbs);
      } finally {
        inStep = false;
      }
    });
    try {
      await runPretrain(settings(path.join(tmp, 'bf16'), { maxSteps: 5, precision: 'bf16' }), log);
    } finally {
      fwd.mockRestore();
      st.mockRestore();
    }
    const training = seen.filter((s) => s.inStep);
    expect(training.length).toBe(5);
    expect(new Set(training.map((s) => s.precision))).toEqual(new Set(['bf16']));
    expect(new Set(seen.filter((s) => !s.inStep).map((s) => s.precision))).toEqual(new Set(['fp32'])); // the held-out loss
    // Step 1 creates the AdamW moments; from then on the count stays.
    expect(new Set(training.slice(1).map((s) => s.tensors))).toEqual(new Set([training[1].tensors]));
  });

  test('refuses, in one line, a folder that is not a cache, a cache of another tokenizer, unknown packages', async () => {
    const notCache = path.join(tmp, 'not-a-cache');
    fs.mkdirSync(notCache);
    await expect(runPretrain(settings(path.join(tmp, 'never'), { cache: notCache }), log)).rejects.toThrow(`${notCache}: not a token cache (no meta.json`);

    const other = path.join(tmp, 'other-cache');
    fs.cpSync(cache, other, { recursive: true });
    const meta = JSON.parse(fs.readFileSync(path.join(other, 'meta.json'), 'utf8'));
    fs.writeFileSync(path.join(other, 'meta.json'), JSON.stringify({ ...meta, tokenizer: { dir: 'models/other-tok', sha256: 'f00d', vocab_size: 151936 } }));
    const sha = tokenizerSha256(TOKENIZER_DIR);
    await expect(runPretrain(settings(path.join(tmp, 'never'), { cache: other }), log)).rejects.toThrow(
      `--cache ${other} was made with the tokenizer models/other-tok (tokenizer.json sha256 f00d, 151936 tokens), not with --tokenizer ${TOKENIZER_DIR} (sha256 ${sha}, 16384 tokens)`,
    );
    await expect(runPretrain(settings(path.join(tmp, 'never'), { packageWeights: ['odd=2', 'python3-nope=1'] }), log)).rejects.toThrow(
      "--package-weights: python3-nope not in " + `${cache}'s train split (it has even, odd)`,
    );
    expect(fs.existsSync(path.join(tmp, 'never'))).toBe(false);
    expect(() => settings(path.join(tmp, 'never'), { cache: undefined, packageWeights: ['odd=2'] })).toThrow('needs --cache');
  });
});
