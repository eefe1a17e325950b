// The reward model: created from a causal LM, read at the last real token, saved and loaded as HF's
// Qwen2ForSequenceClassification.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '@rlhf-code/backend';
import { readConfig } from './config';
import { Qwen2Model } from './model';
import { RewardModel } from './reward';

const UNTIED = path.join(__dirname, '../../../test-fixtures/qwen2-tiny-f32-untied');
const PAD = 0;

beforeAll(async () => {
  await initBackend({ quiet: true });
});

describe('RewardModel', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rm-test-'))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('scores = score.weight . final hidden state at the last real token, for any padding', async () => {
    const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD, seed: 3 });
    const lm = await Qwen2Model.load(UNTIED);
    const rows = [[5, 6, 7, 8], [9, 10]];
    const got = rm.score(rows, PAD);
    // Reference: each row alone (no padding), hidden state of its last token times the head weight.
    const w = rm.head.weight.dataSync();
    for (const [b, row] of rows.entries()) {
      const h = Array.from(tf.tidy(() => lm.forward(tf.tensor2d([row], undefined, "int32")).slice([0, row.length - 1, 0], [1, 1, -1])).dataSync());
      const expected = h.reduce((s, x, i) => s + x * w[i], 0);
      expect(got[b]).toBeCloseTo(expected, 4);
    }
    // Right padding reads the same token.
    const right = tf.tidy(() =>
      rm.forward(tf.tensor2d([[5, 6, 7, 8], [9, 10, PAD, PAD]], undefined, 'int32'), tf.tensor2d([[1, 1, 1, 1], [1, 1, 0, 0]], undefined, 'int32')).dataSync(),
    );
    expect(right[1]).toBeCloseTo(got[1], 4);
    rm.dispose();
    lm.dispose();
  });

  it('saves as Qwen2ForSequenceClassification and loads back bit-exact', async () => {
    const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD });
    await rm.save(tmp);
    const cfg = readConfig(tmp);
    expect(cfg.architectures).toEqual(['Qwen2ForSequenceClassification']);
    expect(cfg.id2label).toEqual({ '0': 'LABEL_0' });
    expect(cfg.pad_token_id).toBe(PAD);
    const back = await RewardModel.load(tmp);
    expect(Object.keys(back.params)).toContain('score.weight');
    expect(Object.keys(back.params)).not.toContain('lm_head.weight');
    expect(Array.from(back.head.weight.dataSync())).toEqual(Array.from(rm.head.weight.dataSync()));
    expect(back.score([[1, 2, 3]], PAD)).toEqual(rm.score([[1, 2, 3]], PAD));
    rm.dispose();
    back.dispose();
  });

  it('refuses a causal LM folder with a clear message', async () => {
    await expect(RewardModel.load(UNTIED)).rejects.toThrow('not a reward model');
  });

  it('does not leak tensors', async () => {
    const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD });
    rm.score([[1, 2]], PAD);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) rm.score([[1, 2, 3], [4]], PAD);
    expect(tf.memory().numTensors).toBe(before);
    rm.dispose();
  });
});
