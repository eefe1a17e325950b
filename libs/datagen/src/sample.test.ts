// prep rm --sft-model's sampling: each prompt's samples in order, seeded (the same seed draws the same text, in batches
// of any size), and the checkpoint held in the requested dtype (int8 moves the logits, so some sampled text moves).
import { saveTinyModel, tempDir } from '@rlhf-code/model/testing';
import * as path from 'path';
import { sampleFromCheckpoint, type CheckpointSampling } from './sample';

let dir: string;
beforeAll(async () => {
  dir = path.join(tempDir('sample-'), 'sft');
  await saveTinyModel(dir, { seed: 3 });
});

const opts = (o: Partial<CheckpointSampling> = {}): CheckpointSampling => ({
  modelDir: dir,
  prompts: ['def add(a, b):\n', 'def square(x):\n', 'def first(xs):\n'],
  samples: 2,
  maxNewTokens: 10,
  temperature: 0.8,
  template: 'raw',
  seed: 5,
  ...o,
});

test('samples per prompt, seeded (whatever the batch size); --base-dtype int8 samples from the int8 model', async () => {
  const a = await sampleFromCheckpoint(opts());
  expect(a.map((s) => s.length)).toEqual([2, 2, 2]);
  expect(a.flat().every((t) => typeof t === 'string')).toBe(true);
  expect(await sampleFromCheckpoint(opts())).toEqual(a);
  expect(await sampleFromCheckpoint(opts({ batchSize: 1 }))).toEqual(a);
  expect(await sampleFromCheckpoint(opts({ seed: 6 }))).not.toEqual(a);
  expect(await sampleFromCheckpoint(opts({ baseDtype: 'int8' }))).not.toEqual(a);
}, 60_000);
