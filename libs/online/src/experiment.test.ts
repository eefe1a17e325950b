// The online experiment on a tiny model: a run that trains no policy version is an error (it would compare the start
// model with itself and report 1.00x), and a run that trains writes the comparison of start and trained.
import { initBackend } from '@rlhf-code/backend';
import { tempDir } from '@rlhf-code/model/testing';
import { runOnlineExperiment } from './experiment';
import { makeTinyModelDir } from './testing/tiny-model';

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
  const run = runOnlineExperiment({ ...base, model: modelDir, stateDir: tempDir(), events: 3, config: { training: { batchSize: 64 }, completion: { maxTokensCap: 8 } } });
  await expect(run).rejects.toThrow('online experiment: 3 training requests produced no policy update');
});

test('a run that trains compares the start model with its newest version on the held-out examples', async () => {
  const r = await runOnlineExperiment({ ...base, model: modelDir, stateDir: tempDir(), events: 4, config: { training: { batchSize: 2 }, completion: { maxTokensCap: 8 } } });
  expect(r.heldout.trained_version).toBeGreaterThan(0);
  expect(r.heldout.start.requests).toBe(2);
  expect(r.heldout.trained.requests).toBe(2);
});
