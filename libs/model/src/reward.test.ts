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

  it('draws the score head from its seed, seed 0 (the default) included', async () => {
    const head = async (seed?: number) => {
      const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD, seed });
      const w = Array.from(rm.head.weight.dataSync());
      rm.dispose();
      return w;
    };
    expect(await head()).toEqual(await head(0));
    expect(await head(0)).toEqual(await head(0));
    expect(await head(0)).not.toEqual(await head(1));
  });

  it('saves as Qwen2ForSequenceClassification and loads back bit-exact', async () => {
    const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD });
    await rm.save(tmp);
    const cfg = readConfig(tmp);
    expect(cfg.architectures).toEqual(['Qwen2ForSequenceClassification']);
    expect(cfg.id2label).toEqual({ '0': 'LABEL_0' });
    expect(cfg.pad_token_id).toBe(PAD);
    const back = await RewardModel.load(tmp);
    expect(Object.keys(back.trainableParams())).toContain('score.weight');
    expect(Object.keys(back.trainableParams())).not.toContain('lm_head.weight');
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

  it('LoRA: adapter + score head train, saved in PEFT layout (SEQ_CLS), loaded back alone or on a shared base', async () => {
    const rm = await RewardModel.fromCausalLM(UNTIED, { padTokenId: PAD, seed: 2 });
    rm.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['q_proj', 'v_proj'] }, 5);
    const trainable = Object.keys(rm.trainableParams());
    expect(trainable).toContain('score.weight');
    expect(trainable.filter((n) => n.includes('lora_'))).toHaveLength(2 * 2 * rm.config.num_hidden_layers);
    expect(trainable).toHaveLength(1 + 2 * 2 * rm.config.num_hidden_layers); // the base is frozen
    let seed = 1;
    for (const [n, v] of Object.entries(rm.trainableParams())) v.assign(tf.randomNormal(v.shape, 0, n === 'score.weight' ? 1 : 0.3, 'float32', seed++));
    const rows = [[5, 6, 7, 8], [9, 10]];
    const want = rm.score(rows, PAD);
    await rm.save(tmp);
    const json = JSON.parse(fs.readFileSync(path.join(tmp, 'adapter_config.json'), 'utf8'));
    expect(json).toMatchObject({ peft_type: 'LORA', task_type: 'SEQ_CLS', modules_to_save: ['score'], r: 2, base_model_name_or_path: UNTIED });
    expect(fs.existsSync(path.join(tmp, 'config.json'))).toBe(false);
    const back = await RewardModel.load(tmp, { trainable: false });
    back.score(rows, PAD).forEach((x, i) => expect(x).toBeCloseTo(want[i], 5));
    // On a policy's base: the reward adapter is a second set, active only inside the reward model's forward pass.
    const policy = await Qwen2Model.load(UNTIED);
    policy.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['o_proj'] }, { seed: 3 });
    const before = tf.tidy(() => policy.logits(tf.tensor2d([[5, 6, 7]], undefined, 'int32')).dataSync());
    const shared = await RewardModel.onSharedBase(policy, tmp);
    expect(policy.activeAdapter).toBe('default');
    shared.score(rows, PAD).forEach((x, i) => expect(x).toBeCloseTo(want[i], 5));
    expect(policy.activeAdapter).toBe('default');
    expect(Array.from(tf.tidy(() => policy.logits(tf.tensor2d([[5, 6, 7]], undefined, 'int32')).dataSync()))).toEqual(Array.from(before));
    shared.dispose(); // frees its head only
    expect(policy.logits(tf.tensor2d([[5]], undefined, 'int32')).shape).toEqual([1, 1, policy.config.vocab_size]);
    await expect(RewardModel.onSharedBase(policy, path.join(tmp, 'nothing'))).rejects.toThrow('not a LoRA adapter folder');
    [rm, back, policy].forEach((m) => m.dispose());
  });
});
