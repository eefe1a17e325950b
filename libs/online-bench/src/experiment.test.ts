// The online experiment on a tiny model: a run that trains no policy version is an error (it would compare the start
// model with itself and report 1.00x), and a run that trains compares the six arms on the held-out positions.
import { initBackend } from '@rlhf-code/backend';
import { tempDir } from '@rlhf-code/model/testing';
import { EXPERIMENT_ARMS } from '@rlhf-code/online-core';
import { formatExperiment, runOnlineExperiment } from './experiment';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';

beforeAll(() => initBackend({ quiet: true }));

let modelDir: string;
beforeAll(async () => {
  modelDir = await makeTinyModelDir(5);
});

const examples = Array.from({ length: 6 }, (_, i) => ({ prefix: `def f${i}(x):\n    y = x + ${i}\n    `, suffix: '\n    return y\n', middle: `y = y * ${i}`, path: `m${i}.py` }));
const base = {
  train: examples.slice(0, 4),
  heldOut: examples.slice(4),
  user: 'coin' as const,
  form: 'v139' as const,
  countTokens: (t: string) => t.length,
};

test('a run whose training produced no policy version is an error, not a 1.00x result', async () => {
  // A batch larger than the run: no update ever happens.
  const run = runOnlineExperiment({ ...base, model: modelDir, stateDir: tempDir(), events: 3, config: { training: { objective: 'outcome', batchSize: 64 }, completion: { maxTokensCap: 8 } } });
  await expect(run).rejects.toThrow('online experiment: 3 training requests produced no policy update');
});

test('a run that trains serves every held-out position once per arm in one service and compares the arms pairwise', async () => {
  const r = await runOnlineExperiment({ ...base, model: modelDir, stateDir: tempDir(), events: 4, config: { training: { objective: 'outcome', batchSize: 2 }, completion: { maxTokensCap: 8 } } });
  expect(r.heldout).toMatchObject({ positions: 2, files: 2 });
  expect(r.heldout.trained_version).toBeGreaterThan(0);
  expect(r.heldout.gate_active).toBe(false); // 4 outcomes fit no gate: its arms serve as their models stream
  expect(Object.keys(r.arms).sort()).toEqual(EXPERIMENT_ARMS.map((a) => a.name).sort());
  for (const c of Object.values(r.arms)) expect(c.requests).toBe(2);
  // Each arm minus start, then rank - hold-cut, hide - hold-cut, all - update; every one over both positions.
  expect(r.contrasts.map((c) => `${c.arm} - ${c.versus}`)).toEqual([
    'hold-cut - start', 'rank - start', 'hide - start', 'update - start', 'all - start', 'rank - hold-cut', 'hide - hold-cut', 'all - update',
  ]);
  expect(r.contrasts.every((c) => c.positions === 2 && c.files === 2)).toBe(true);
  // With the gate inactive the start model's arms serve the same thing (one sampling seed per position): no difference.
  for (const arm of ['hold-cut', 'rank', 'hide']) expect(r.contrasts.find((c) => c.arm === arm && c.versus === 'start')!.accepted_per_request.diff).toBe(0);
  expect(formatExperiment(r)).toMatch(/^\| contrast +\| positions \(files\) \|/m);
  // --limit-positions: a seeded subset.
  const one = await runOnlineExperiment({ ...base, model: modelDir, stateDir: tempDir(), events: 2, limitPositions: 1, config: { training: { objective: 'outcome', batchSize: 2 }, completion: { maxTokensCap: 8 } } });
  expect(one.heldout.positions).toBe(1);
  expect(one.arms.start.requests).toBe(1);
});

test('pace trainer: a training request waits for the update that is due, so the requests after it are served by the new policy', async () => {
  // The exact user rejects everything this tiny model says: every outcome is a reject, posted 5 requests later. With a
  // batch of 1 the first update is due once request 6's reject arrives (the one of request 1), and pace trainer
  // holds request 7 until it is done: from then on no request is served by v0.
  const r = await runOnlineExperiment({ ...base, user: 'exact', pace: 'trainer', model: modelDir, stateDir: tempDir(), events: 10, config: { training: { objective: 'outcome', batchSize: 1 }, completion: { maxTokensCap: 8 } } });
  expect(r.pace).toBe('trainer');
  expect(r.train.by_version['0']).toBeDefined();
  const shown = r.train.totals.shown;
  expect(shown).toBeGreaterThanOrEqual(7); // the tiny model's suggestions are shown (not blank): the outcomes exist
  expect(r.train.by_version['0']?.requests ?? 0).toBeLessThanOrEqual(6);
});
