// The training loop around the steps (run.ts, fit.ts, stage.ts, lm-stage.ts): metrics.jsonl, signals,
// when it evaluates and saves, maxSteps, interruption, and resuming to the very same weights.
// A 3-number toy model exercises the loop's bookkeeping; a tiny Qwen2 runs the real LM stage.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { makeConfig, Qwen2Model, saveTrainingState, TRAINER_STATE_FILE } from '@rlhf-code/model';
import { fit } from './fit';
import { LmExample } from './lm-data';
import { runLmStage } from './lm-stage';
import { MicroBatch, RunDir, RunPosition, Trainer, TrainingRun, type OptimSettings } from '@rlhf-code/trainer-core';
import { runStage, StageOptions } from './stage';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

// Deliver a signal to the handlers registered with process.on. Not process.emit: under `nx test`, nx has
// wrapped process.emit around the real process object, which is not the one jest gives the code under test.
const sendSignal = (signal: NodeJS.Signals) => process.listeners(signal).forEach((handler) => handler(signal));

const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'train-fit-'));
  tmpDirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

type Line = Record<string, number | string | boolean | null>;
const readMetrics = (dir: string): Line[] =>
  fs
    .readFileSync(path.join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Line);
const trainSteps = (dir: string) => readMetrics(dir).filter((l) => 'loss' in l).map((l) => l.step);
const evalSteps = (dir: string) => readMetrics(dir).filter((l) => 'eval/loss' in l || 'eval/d' in l).map((l) => l.step);
const readPosition = (dir: string) => (JSON.parse(fs.readFileSync(path.join(dir, TRAINER_STATE_FILE), 'utf8')) as { position: RunPosition }).position;

// ---------------------------------------------------------------------------------------------
// A toy model: w [3] pulled towards example k's target; loss = mean over the micro-batch of |w - t_k|^2 / 3.

const TARGETS = Array.from({ length: 16 }, (_, k) => [Math.sin(k), Math.cos(k), k / 16 - 0.5]);
type Toy = { w: tf.Variable };
const toy = (init: number[] = [0.5, -0.5, 0.25]): Toy => ({ w: tf.variable(tf.tensor1d(init)) });
const toyBatch = (p: Toy, start: number, end: number): MicroBatch => ({
  weight: end - start,
  loss: () => ({ loss: tf.tidy(() => tf.mean(tf.square(tf.sub(p.w, tf.tensor2d(TARGETS.slice(start, end)))))) as tf.Scalar }),
});
const toyTrainer = (p: Toy, totalSteps: number) =>
  new Trainer(p, {
    optimizer: { lr: 0.1, weightDecay: 0 },
    schedule: { minLr: 0.01, warmupSteps: 1, totalSteps, kind: 'cosine' },
    maxGradNorm: 1,
  });
const weightsOf = (p: Toy) => Array.from(p.w.dataSync());

describe('TrainingRun', () => {
  test('writes one JSON line per log; a new run starts the file afresh, append keeps it', () => {
    const dir = path.join(tmpDir(), 'nested', 'run');
    const run = new TrainingRun({ outDir: dir, label: 't', totalSteps: 3, quiet: true });
    run.log(1, { loss: 2.5, lr: 0.1, note: 'x' });
    run.log(2, { loss: 1.5 });
    run.close();
    const lines = readMetrics(dir);
    for (const l of lines) expect(typeof l.time_s).toBe('number');
    expect(lines.map(({ time_s: _t, ...rest }) => rest)).toEqual([
      { step: 1, loss: 2.5, lr: 0.1, note: 'x' },
      { step: 2, loss: 1.5 },
    ]);
    const again = new TrainingRun({ outDir: dir, label: 't', totalSteps: 3, quiet: true, append: true });
    again.log(3, { loss: 1 });
    again.close();
    expect(readMetrics(dir).map((l) => l.step)).toEqual([1, 2, 3]);
    new TrainingRun({ outDir: dir, label: 't', totalSteps: 3, quiet: true }).close();
    expect(readMetrics(dir)).toEqual([]);
  });

  test('the first SIGINT/SIGTERM requests a stop, a second exits with 130; close removes the handlers', () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const run = new TrainingRun({ outDir: tmpDir(), label: 't', totalSteps: 3, quiet: true });
      expect(process.listenerCount('SIGINT')).toBe(before[0] + 1);
      expect(run.stopRequested).toBe(false);
      sendSignal('SIGTERM');
      expect(run.stopRequested).toBe(true);
      expect(exit).not.toHaveBeenCalled();
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/SIGTERM: stopping after this step/);
      sendSignal('SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
      run.close();
      expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    } finally {
      exit.mockRestore();
      stderr.mockRestore();
    }
  });
});

describe('RunDir: the training state on disk', () => {
  test('round trip of moments, position and extra state; clear errors otherwise', async () => {
    const dir = tmpDir();
    const run = new RunDir(dir);
    expect(run.resumable).toBe(false);
    expect(run.resumeFrom(true)).toBeUndefined();
    const p = toy();
    const trainer = toyTrainer(p, 10);
    trainer.step([toyBatch(p, 0, 2)]);
    trainer.step([toyBatch(p, 2, 4)]);
    const pos = { step: 2, epoch: 1, stepInEpoch: 0 };
    const ts = RunDir.stateOf(trainer, pos, { rng: 'abc' });
    expect(ts.state).toEqual({ rng: 'abc', position: pos });
    await saveTrainingState(dir, ts);
    expect(run.resumable).toBe(true);
    expect(run.resumeFrom(true)).toBe(dir);
    expect(run.resumeFrom(false)).toBeUndefined();

    const p2 = toy(weightsOf(p));
    const t2 = toyTrainer(p2, 10);
    expect(await run.restore(t2)).toEqual({ position: pos, extra: { rng: 'abc' } });
    expect(t2.stepCount).toBe(2);
    // The restored optimizer takes exactly the step the original takes.
    trainer.step([toyBatch(p, 4, 6)]);
    t2.step([toyBatch(p2, 4, 6)]);
    expect(weightsOf(p2)).toEqual(weightsOf(p));

    const file = path.join(dir, 'trainer_state.json');
    const t3 = toyTrainer(toy(), 10);
    await saveTrainingState(dir, { tensors: ts.tensors, state: { rng: 'abc' } });
    await expect(run.restore(t3)).rejects.toThrow(`${file}: cannot resume: position: `);
    await saveTrainingState(dir, { tensors: ts.tensors, state: { position: { step: 2, epoch: -1, stepInEpoch: 0 } } });
    await expect(run.restore(t3)).rejects.toThrow(`${file}: cannot resume: position.epoch: Too small`);
    await saveTrainingState(dir, { tensors: ts.tensors, state: { position: { ...pos, step: 3 } } });
    await expect(new RunDir(dir).restore(toyTrainer(toy(), 10))).rejects.toThrow(`${dir}: cannot resume: the optimizer has 2 steps but the position is step 3`);
    [trainer, t2, t3].forEach((t) => t.dispose());
    tf.dispose([p.w, p2.w]);
  });
});

describe('fit', () => {
  function setup(totalSteps: number) {
    const p = toy();
    const trainer = toyTrainer(p, totalSteps);
    const run = new TrainingRun({ outDir: tmpDir(), label: 'toy', totalSteps, quiet: true });
    const saves: { position: RunPosition; final: boolean; evals: number }[] = [];
    const evals: RunPosition[] = [];
    const batches: [number, number][] = [];
    const common = {
      trainer,
      run,
      stepBatches: (epoch: number, i: number) => {
        batches.push([epoch, i]);
        return [toyBatch(p, 2 * i, 2 * i + 2)];
      },
      evaluate: (position: RunPosition) => {
        evals.push(position);
        return { 'eval/d': tf.tidy(() => tf.sum(tf.square(p.w)).dataSync()[0]) };
      },
      save: async (position: RunPosition, final: boolean) => {
        saves.push({ position, final, evals: evals.length });
      },
    };
    const done = () => {
      run.close();
      trainer.dispose();
      p.w.dispose();
    };
    return { p, trainer, run, saves, evals, batches, common, done };
  }

  test('evaluates and saves every saveEvery steps and at epoch ends, the last one final', async () => {
    const s = setup(6);
    const r = await fit({ ...s.common, epochs: 2, stepsPerEpoch: 3, saveEvery: 2 });
    expect(r).toEqual({ position: { step: 6, epoch: 2, stepInEpoch: 0 }, interrupted: false, outOfTime: false, lastEval: expect.any(Object), skippedSteps: 0 });
    expect(s.batches).toEqual([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    const at = (step: number, epoch: number, stepInEpoch: number) => ({ step, epoch, stepInEpoch });
    expect(s.saves).toEqual([
      { position: at(2, 0, 2), final: false, evals: 1 }, // every 2 steps, evaluated first
      { position: at(3, 1, 0), final: false, evals: 2 }, // end of epoch 0
      { position: at(4, 1, 1), final: false, evals: 3 },
      { position: at(6, 2, 0), final: true, evals: 4 }, // step 6 ends the run: one save, not two
    ]);
    const lines = readMetrics(s.run.opts.outDir);
    const train = lines.filter((l) => 'loss' in l);
    expect(train.map((l) => l.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(train.map((l) => l.epoch)).toEqual([0 + 1 / 3, 0 + 2 / 3, 0 + 3 / 3, 1 + 1 / 3, 1 + 2 / 3, 1 + 3 / 3]);
    for (const l of train) for (const k of ['grad_norm', 'lr', 'time_s']) expect(typeof l[k]).toBe('number');
    expect(lines.filter((l) => 'eval/d' in l).map((l) => [l.step, l.epoch])).toEqual([[2, 0], [3, 1], [4, 1], [6, 2]]);
    expect(r.lastEval).toEqual({ 'eval/d': lines[lines.length - 1]['eval/d'] });
    s.done();
  });

  test('logEvery thins the log but always logs an epoch end', async () => {
    const s = setup(5);
    await fit({ ...s.common, epochs: 1, stepsPerEpoch: 5, logEvery: 2, evaluate: undefined });
    expect(trainSteps(s.run.opts.outDir)).toEqual([2, 4, 5]);
    expect(s.saves.map((x) => [x.position.step, x.final])).toEqual([[5, true]]);
    s.done();
  });

  test('maxSteps stops, evaluates and saves as final; a start at or past maxSteps does nothing', async () => {
    const s = setup(10);
    const r = await fit({ ...s.common, epochs: 5, stepsPerEpoch: 2, maxSteps: 3 });
    expect(r.position).toEqual({ step: 3, epoch: 1, stepInEpoch: 1 });
    expect(r.interrupted).toBe(false);
    expect(s.trainer.stepCount).toBe(3);
    expect(s.saves.map((x) => [x.position.step, x.final])).toEqual([[2, false], [3, true]]);
    expect(s.evals.map((e) => e.step)).toEqual([2, 3]);
    const again = await fit({ ...s.common, epochs: 5, stepsPerEpoch: 2, maxSteps: 3, start: r.position });
    expect(again.position).toEqual(r.position);
    expect(s.trainer.stepCount).toBe(3);
    s.done();
  });

  test('a stop request (set from stepMetrics, or by SIGINT) saves after the step and returns interrupted', async () => {
    const s = setup(6);
    const r = await fit({
      ...s.common,
      epochs: 2,
      stepsPerEpoch: 3,
      stepMetrics: (_res, pos) => {
        if (pos.step === 2) s.run.stopRequested = true;
        return { seen: pos.step * 2 };
      },
    });
    expect(r).toMatchObject({ position: { step: 2, epoch: 0, stepInEpoch: 2 }, interrupted: true });
    expect(s.saves).toEqual([{ position: { step: 2, epoch: 0, stepInEpoch: 2 }, final: false, evals: 0 }]);
    expect(readMetrics(s.run.opts.outDir).map((l) => [l.step, l.seen])).toEqual([[1, 2], [2, 4]]);
    s.done();

    const t = setup(6);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const r2 = await fit({
        ...t.common,
        epochs: 2,
        stepsPerEpoch: 3,
        stepBatches: (epoch, i) => {
          if (epoch === 1 && i === 0) sendSignal('SIGINT'); // Ctrl-C during step 4
          return t.common.stepBatches(epoch, i);
        },
      });
      expect(r2).toMatchObject({ position: { step: 4, epoch: 1, stepInEpoch: 1 }, interrupted: true });
      expect(t.saves.map((x) => [x.position.step, x.final])).toEqual([[3, false], [4, false]]);
    } finally {
      stderr.mockRestore();
    }
    t.done();
  });

  test('a spent time budget (maxMinutes) evaluates, saves (not final) and returns outOfTime', async () => {
    const s = setup(6);
    const run = new TrainingRun({ outDir: tmpDir(), label: 'toy', totalSteps: 6, quiet: true, maxMinutes: 1 });
    jest.spyOn(run, 'elapsed', 'get').mockImplementation(() => (s.trainer.stepCount >= 2 ? 60 : 1));
    const r = await fit({ ...s.common, run, epochs: 2, stepsPerEpoch: 3 });
    expect(r).toMatchObject({ position: { step: 2, epoch: 0, stepInEpoch: 2 }, interrupted: false, outOfTime: true });
    expect(s.saves).toEqual([{ position: { step: 2, epoch: 0, stepInEpoch: 2 }, final: false, evals: 1 }]);
    run.close();
    s.done();
  });

  test('stepsPerEpoch Infinity: one endless epoch that maxSteps ends', async () => {
    const s = setup(4);
    const r = await fit({ ...s.common, epochs: 1, stepsPerEpoch: Infinity, maxSteps: 4 });
    expect(r.position).toEqual({ step: 4, epoch: 0, stepInEpoch: 4 });
    expect(s.batches).toEqual([[0, 0], [0, 1], [0, 2], [0, 3]]);
    expect(readMetrics(s.run.opts.outDir).filter((l) => 'eval/d' in l).map((l) => [l.step, l.epoch])).toEqual([[4, undefined]]);
    await expect(fit({ ...s.common, epochs: 1, stepsPerEpoch: Infinity })).rejects.toThrow('needs maxSteps');
    s.done();
  });

  test('non-finite gradients skip the update and are counted', async () => {
    const s = setup(3);
    const r = await fit({
      ...s.common,
      epochs: 1,
      stepsPerEpoch: 3,
      evaluate: undefined,
      stepBatches: (_e, i) => [i === 1 ? { loss: () => ({ loss: tf.tidy(() => tf.mul(tf.sum(s.p.w), NaN)) as tf.Scalar }) } : toyBatch(s.p, 0, 2)],
    });
    expect(r.skippedSteps).toBe(1);
    s.done();
  });
});

// ---------------------------------------------------------------------------------------------
// runStage with the toy model: resume after a crash or a stop gives the uninterrupted run's weights.

const optim: OptimSettings = { lr: 0.1, schedule: 'cosine', minLr: 0.01, warmupSteps: 1, weightDecay: 0, beta1: 0.9, beta2: 0.99, maxGradNorm: 1 };

/** A toy stage in `dir`: weights in w.json beside the training state. `failAt` throws inside the run's n-th step (1-based). */
function toyStage(dir: string, p: Toy, extra: Partial<StageOptions> & { failAt?: number } = {}): Promise<unknown> {
  const { failAt, ...rest } = extra;
  let step = 0;
  return runStage({
    label: 'toy',
    params: p,
    outDir: dir,
    numExamples: 16,
    batchSize: 2,
    gradAccum: 2,
    epochs: 2,
    optim,
    saveEvery: 0,
    resume: false,
    quiet: true,
    microBatch: (epoch, start, end) => {
      if (start % 4 === 0) step++;
      if (step === failAt) throw new Error('simulated crash');
      // Epoch 1 sees the examples in reverse, so an off-by-one in the resumed position would show.
      return epoch === 0 ? toyBatch(p, start, end) : toyBatch(p, 16 - end, 16 - start);
    },
    evaluate: () => ({ 'eval/d': tf.tidy(() => tf.sum(tf.square(p.w)).dataSync()[0]) }),
    save: async (ts) => {
      await saveTrainingState(dir, ts);
      fs.writeFileSync(path.join(dir, 'w.json'), JSON.stringify(weightsOf(p)));
    },
    ...rest,
  });
}
const loadToy = (dir: string) => toy(JSON.parse(fs.readFileSync(path.join(dir, 'w.json'), 'utf8')) as number[]);

describe('runStage', () => {
  test('crash after a save, then resume: the same weights as one run, each step logged once', async () => {
    const straightDir = tmpDir();
    const p0 = toy();
    await toyStage(straightDir, p0);
    const straight = weightsOf(p0);
    expect(trainSteps(straightDir)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(evalSteps(straightDir)).toEqual([4, 8]);

    // A checkpoint at step 4 (epoch end), then steps 5 and 6 are logged and step 7 crashes.
    const dir = tmpDir();
    const p1 = toy();
    await expect(toyStage(dir, p1, { failAt: 7 })).rejects.toThrow('simulated crash');
    expect(readPosition(dir)).toEqual({ step: 4, epoch: 1, stepInEpoch: 0 });
    expect(trainSteps(dir)).toEqual([1, 2, 3, 4, 5, 6]);

    const p2 = loadToy(dir);
    const r = (await toyStage(dir, p2, { resume: true })) as { position: RunPosition };
    // runStage always passes maxSteps (the total), so the run ends at the last step of the last epoch.
    expect(r.position).toEqual({ step: 8, epoch: 1, stepInEpoch: 4 });
    expect(weightsOf(p2)).toEqual(straight);
    // Steps 5 and 6 were redone: the lines the crashed run wrote for them must not stay beside the new ones.
    expect(trainSteps(dir)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(evalSteps(dir)).toEqual([4, 8]);
    tf.dispose([p0.w, p1.w, p2.w]);
  });

  test('resume refuses a checkpoint made with another number of steps per epoch', async () => {
    const dir = tmpDir();
    const p = toy();
    await toyStage(dir, p, { maxSteps: 2 });
    expect(readPosition(dir)).toEqual({ step: 2, epoch: 0, stepInEpoch: 2 });
    await expect(toyStage(dir, p, { resume: true, batchSize: 1 })).rejects.toThrow(/8 steps per epoch.*4/);
    p.w.dispose();
  });

  test('fewer examples than one step is an error', async () => {
    const p = toy();
    await expect(toyStage(tmpDir(), p, { numExamples: 3 })).rejects.toThrow(
      'toy: 3 training examples are fewer than one step (batch 2 x accumulation 2)',
    );
    p.w.dispose();
  });
});

// ---------------------------------------------------------------------------------------------
// runLmStage on a tiny Qwen2

const cfg = makeConfig({
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  vocab_size: 64,
  initializer_range: 0.2,
});
const PAD = 63;
/** Counting sequences t, t+k, t+2k, ... (mod 60) of varied lengths; the first two tokens are a prompt. */
const lmExample = (i: number): LmExample => {
  const len = 5 + (i % 4);
  const ids = Array.from({ length: len }, (_, t) => (i * 7 + t * (1 + (i % 3))) % 60);
  return { ids, lossMask: ids.map((_, t) => (t < 2 ? 0 : 1)) };
};
const TRAIN = Array.from({ length: 8 }, (_, i) => lmExample(i));
const HELD_OUT = [lmExample(20), lmExample(21), lmExample(22)];

let tokDir: string;
beforeAll(() => {
  // saveCheckpoint copies tokenizer files; a minimal one keeps the saves fast (the real one is 11 MB).
  tokDir = tmpDir();
  fs.writeFileSync(path.join(tokDir, 'tokenizer_config.json'), '{}\n');
});

function lmStage(model: Qwen2Model, outDir: string, extra: { resume?: boolean; maxSteps?: number; examplesOf?: (epoch: number) => LmExample[]; heldOut?: LmExample[] } = {}) {
  return runLmStage({
    label: 'lm',
    model,
    tokenizerDir: tokDir,
    padId: PAD,
    outDir,
    examplesOf: extra.examplesOf ?? (() => TRAIN),
    heldOut: extra.heldOut ?? HELD_OUT,
    epochs: 2,
    batchSize: 2,
    gradAccum: 2,
    maxSteps: extra.maxSteps,
    optim: { ...optim, lr: 0.03, weightDecay: 0.1 },
    saveEvery: 0,
    seed: 5,
    resume: extra.resume ?? false,
    quiet: true,
    extraFiles: { 'stage.json': { kind: 'test' } },
  });
}
const hostWeights = (m: Qwen2Model) => [...m.hostWeights()].map(([name, t]) => [name, Array.from(t.data)] as const);

function expectSameWeights(a: Qwen2Model, b: Qwen2Model) {
  const wb = new Map(hostWeights(b));
  let maxDiff = 0;
  for (const [name, xs] of hostWeights(a)) {
    const ys = wb.get(name)!;
    for (let i = 0; i < xs.length; i++) maxDiff = Math.max(maxDiff, Math.abs(xs[i] - ys[i]));
  }
  expect(maxDiff).toBeLessThanOrEqual(1e-6);
}

describe('runLmStage', () => {
  let straight: Qwen2Model;
  let initial: [string, number[]][];
  beforeAll(async () => {
    straight = Qwen2Model.init(cfg, { seed: 3 });
    initial = hostWeights(straight).map(([n, xs]) => [n, xs]);
    const dir = tmpDir();
    const r = await lmStage(straight, dir);
    expect(r.position).toEqual({ step: 4, epoch: 1, stepInEpoch: 2 });
    expect(trainSteps(dir)).toEqual([1, 2, 3, 4]);
    expect(evalSteps(dir)).toEqual([2, 4]);
    // The loss went down: the last eval is below the first (4 steps on a learnable pattern).
    const evals = readMetrics(dir).filter((l) => 'eval/loss' in l).map((l) => l['eval/loss'] as number);
    expect(evals[1]).toBeLessThan(evals[0]);
  });

  test('the training actually changed the weights', () => {
    const after = new Map(hostWeights(straight));
    expect(initial.some(([n, xs]) => xs.some((x, i) => x !== after.get(n)![i]))).toBe(true);
  });

  test('2 steps, crash, then a new model resumed from the checkpoint: the same weights, each step once', async () => {
    const dir = tmpDir();
    const first = Qwen2Model.init(cfg, { seed: 3 });
    const crash = (epoch: number) => {
      if (epoch === 1) throw new Error('simulated crash');
      return TRAIN;
    };
    await expect(lmStage(first, dir, { examplesOf: crash })).rejects.toThrow('simulated crash');
    expect(readPosition(dir)).toEqual({ step: 2, epoch: 1, stepInEpoch: 0 });
    first.dispose();

    const resumed = await Qwen2Model.load(dir);
    const r = await lmStage(resumed, dir, { resume: true });
    expect(r.position.step).toBe(4);
    expectSameWeights(resumed, straight);
    expect(trainSteps(dir)).toEqual([1, 2, 3, 4]);
    expect(evalSteps(dir)).toEqual([2, 4]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'stage.json'), 'utf8'))).toEqual({ kind: 'test' });
    resumed.dispose();
  });

  test('SIGINT mid-run saves and returns interrupted; resuming finishes with the same weights', async () => {
    const dir = tmpDir();
    const first = Qwen2Model.init(cfg, { seed: 3 });
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let r;
    try {
      const ctrlC = (epoch: number) => {
        if (epoch === 1) sendSignal('SIGINT'); // called as step 3 starts
        return TRAIN;
      };
      r = await lmStage(first, dir, { examplesOf: ctrlC });
    } finally {
      stderr.mockRestore();
    }
    expect(r).toMatchObject({ interrupted: true, position: { step: 3, epoch: 1, stepInEpoch: 1 } });
    expect(readPosition(dir)).toEqual({ step: 3, epoch: 1, stepInEpoch: 1 });
    expect(fs.existsSync(path.join(dir, 'model.safetensors'))).toBe(true);
    first.dispose();

    const resumed = await Qwen2Model.load(dir);
    const r2 = await lmStage(resumed, dir, { resume: true });
    expect(r2).toMatchObject({ interrupted: false, position: { step: 4 } });
    expectSameWeights(resumed, straight);
    expect(trainSteps(dir)).toEqual([1, 2, 3, 4]);
    resumed.dispose();
  });

  test('maxSteps stops early and leaves a final, evaluated checkpoint', async () => {
    const dir = tmpDir();
    const model = Qwen2Model.init(cfg, { seed: 3 });
    const r = await lmStage(model, dir, { maxSteps: 3 });
    expect(r).toMatchObject({ interrupted: false, position: { step: 3, epoch: 1, stepInEpoch: 1 } });
    expect(readPosition(dir)).toEqual({ step: 3, epoch: 1, stepInEpoch: 1 });
    expect(trainSteps(dir)).toEqual([1, 2, 3]);
    expect(evalSteps(dir)).toEqual([2, 3]);
    expect(r.lastEval?.['eval/loss']).toBe(readMetrics(dir).pop()!['eval/loss']);
    const saved = await Qwen2Model.load(dir);
    expectSameWeights(saved, model);
    saved.dispose();
    model.dispose();
  });

  test('no tensor leaks: the count is the same at every step, and back to the start after the run', async () => {
    const model = Qwen2Model.init(cfg, { seed: 4 });
    const counts: number[] = [];
    const forward = model.forward.bind(model);
    // One forward per step (gradAccum 1 below, no held-out set): count the live tensors as each step starts.
    jest.spyOn(model, 'forward').mockImplementation((ids, opts) => {
      counts.push(tf.memory().numTensors);
      return forward(ids, opts);
    });
    const before = tf.memory().numTensors;
    await runLmStage({
      label: 'lm',
      model,
      tokenizerDir: tokDir,
      padId: PAD,
      outDir: tmpDir(),
      examplesOf: () => TRAIN,
      heldOut: [],
      epochs: 3,
      batchSize: 2,
      gradAccum: 1,
      optim,
      saveEvery: 0,
      seed: 1,
      resume: false,
      quiet: true,
    });
    expect(counts.length).toBe(12);
    // Step 1 creates the Adam moments; from then on nothing accumulates.
    expect(new Set(counts.slice(1))).toEqual(new Set([counts[1]]));
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });
});
