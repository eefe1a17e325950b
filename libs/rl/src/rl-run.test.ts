// The outer loop on disk: checkpoints in Hugging Face layout (+ v_head), metrics.jsonl, and a resumed run
// that continues exactly where an uninterrupted one would be.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tf from '@tensorflow/tfjs';
import { loadMergedWeights, loadTrainingState, Qwen2Model, readConfig, RewardModel, saveCheckpoint, type LoraConfig } from '@rlhf-code/model';
import { loadRlModels, saveRlCheckpoint } from './rl-models';
import { HeldOutProbe, HeldOutRecord } from './heldout';
import { runRlLoop } from './rl-run';
import { RlModels, RlPrompt, RlTrainer } from './rl-trainer';
import { policyGradientSettings, type PolicyGradientSettings } from './settings';
import { combineScorers } from './scorers';
import { createValueHead } from './value-head';
import { tinyConfig, TINY_EOS, TINY_PAD } from './testing/tiny';
import { useTestBackend } from '@rlhf-code/trainer-core/testing';

useTestBackend();

const scorer = combineScorers([{ name: 'len', weight: 1, scorer: (s) => s.map((x) => x.responseIds.length / 4) }]);
const prompts: RlPrompt[] = [[3, 4], [5], [6, 8, 9], [10, 11], [12], [13, 14]].map((ids, index) => ({ index, ids }));
const settings = {
  maxNewTokens: 4,
  ppoEpochs: 2,
  miniBatches: 2,
  microBatchSize: 2,
  missingEosPenalty: 0.5,
  initKlCoef: 0.1, // adaptive: its state must survive the resume
  klTarget: 0.01,
  klHorizon: 100,
  lr: 1e-2,
  schedule: 'cosine',
  minLr: 1e-3,
  warmupSteps: 1,
  weightDecay: 0.01,
  steps: 3,
  seed: 4,
};
const config = policyGradientSettings(settings);

let tmp: string;
let sft: string;
beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-run-'));
  sft = path.join(tmp, 'sft');
  const m = Qwen2Model.init(tinyConfig(), { seed: 2 });
  await saveCheckpoint(sft, { config: m.config, weights: m.hostWeights() });
  m.dispose();
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Prompts the runs never train on (the held-out measurement's).
const heldOutPrompts: RlPrompt[] = [[7], [15, 16], [17]].map((ids, index) => ({ index, ids }));

const LORA = { r: 2, alpha: 4, dropout: 0, targets: ['q_proj', 'v_proj', 'down_proj'] as LoraConfig['targets'] };

async function run(out: string, steps: number, resume: boolean, heldOut = false, lora: LoraConfig | null = null) {
  const models = await loadRlModels({ modelDir: sft, resumeDir: resume ? out : undefined, algo: 'ppo', seed: 1, lora });
  const rl = new RlTrainer(models, scorer, config, { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
  const probe = new HeldOutProbe({ prompts: heldOutPrompts, scorer, samples: 2, maxNewTokens: 4, temperature: 0.7, stopTokenIds: [TINY_EOS], vocabSize: models.policy.config.vocab_size, seed: 3 });
  try {
    const result = await runRlLoop({
      rl,
      prompts,
      batchSize: 4, // 6 prompts: one batch per epoch, so the run crosses epochs
      steps,
      outDir: out,
      saveEvery: 1,
      save: (trainingState) => saveRlCheckpoint(out, models, { trainingState, baseModel: sft }),
      resume,
      quiet: true,
      seed: 4,
      heldOut: heldOut ? { probe, every: 2 } : undefined,
    });
    return { result, source: models.valueHeadSource, kl: rl.kl.value, base: models.policy.hostWeights() };
  } finally {
    dispose(models, rl);
  }
}

function dispose(m: RlModels, t: RlTrainer): void {
  t.dispose();
  m.policy.dispose();
  m.reference.dispose();
  m.valueHead?.dispose();
}

describe('runRlLoop', () => {
  it('saves loadable checkpoints and metrics, and a resumed run continues exactly', async () => {
    const a = path.join(tmp, 'a');
    const full = await run(a, 3, false);
    expect(full.result).toMatchObject({ steps: 3, interrupted: false });
    const lines = fs.readFileSync(path.join(a, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.step)).toEqual([1, 2, 3]);
    expect(lines[0]).toHaveProperty(['objective/kl']);
    expect(lines[0]).toHaveProperty(['ppo/loss/value']);
    // A plain causal LM folder (transformers layout): loads as a Qwen2Model, v_head saved beside it.
    expect(readConfig(a).architectures).toEqual(['Qwen2ForCausalLM']);
    const back = await Qwen2Model.load(a);
    back.dispose();

    const b = path.join(tmp, 'b');
    const firstPart = await run(b, 2, false);
    expect(firstPart.source).toBe('random');
    const rest = await run(b, 3, true);
    expect(rest.source).toBe('checkpoint');
    expect(rest.result.history).toHaveLength(1);
    const resumed = rest.result.history[0];
    const uninterrupted = full.result.history[2];
    for (const k of ['env/reward_mean', 'objective/kl', 'objective/kl_coef', 'ppo/loss/total', 'ppo/val/vpred', 'ppo/learning_rate']) {
      expect(resumed[k]).toBeCloseTo(uninterrupted[k], 5);
    }
    expect(rest.kl).toBeCloseTo(full.kl, 10);
    const bLines = fs.readFileSync(path.join(b, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(bLines.map((l) => l.step)).toEqual([1, 2, 3]);
  });

  it('held-out measurements: at 0, every 2 and at the end; they leave the training identical and survive a resume', async () => {
    const readHeldOut = (dir: string): HeldOutRecord[] =>
      fs.readFileSync(path.join(dir, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const plain = await run(path.join(tmp, 'plain'), 3, false);
    const a = path.join(tmp, 'a');
    const full = await run(a, 3, false, true);
    // the probe has its own random streams: the rollouts and updates are those of a run without it
    full.result.history.forEach((m, i) => expect(m['ppo/loss/total']).toBeCloseTo(plain.result.history[i]['ppo/loss/total'], 6));
    const records = readHeldOut(a);
    expect(records.map((r) => r.step)).toEqual([0, 2, 3]);
    expect(full.result.heldOut.map((r) => r.step)).toEqual([0, 2, 3]);
    expect(records[2].metrics.len.mean).toBeCloseTo(records[2].per_prompt.len.reduce((x, y) => x + y, 0) / 3, 10);
    expect(records[2].vs_start!.len.diff).toBeCloseTo(records[2].metrics.len.mean - records[0].metrics.len.mean, 10);

    const b = path.join(tmp, 'b');
    await run(b, 2, false, true);
    expect(readHeldOut(b).map((r) => r.step)).toEqual([0, 2]);
    const rest = await run(b, 3, true, true);
    expect(rest.result.heldOut.map((r) => r.step)).toEqual([0, 2, 3]);
    const resumed = readHeldOut(b);
    expect(resumed.map((r) => r.step)).toEqual([0, 2, 3]);
    // measured against the first record of the run, read back from the file
    expect(resumed[2].vs_start!.len.diff).toBeCloseTo(records[2].vs_start!.len.diff, 5);
  });

  it('LoRA: one frozen base, the reference is the base without the adapter; adapter + value head saved and resumed exactly', async () => {
    const a = path.join(tmp, 'a');
    const full = await run(a, 3, false, false, LORA);
    // At the first rollout the adapter is zero, so policy and reference agree token for token.
    expect(full.result.history[0]['objective/kl']).toBe(0);
    expect(full.result.history[2]['objective/kl']).not.toBe(0);
    // The base weights never moved.
    const sftWeights = (await loadMergedWeights(sft)).weights;
    for (const [name, t] of full.base) expect(Array.from(t.data)).toEqual(Array.from(sftWeights.get(name)!.data));
    expect(fs.readdirSync(a)).toEqual(expect.arrayContaining(['adapter_config.json', 'adapter_model.safetensors', 'value_head.safetensors']));
    expect(fs.existsSync(path.join(a, 'model.safetensors'))).toBe(false);
    const b = path.join(tmp, 'b');
    await run(b, 2, false, false, LORA);
    const rest = await run(b, 3, true, false, LORA);
    expect(rest.source).toBe('checkpoint');
    for (const k of ['env/reward_mean', 'objective/kl', 'ppo/loss/total', 'ppo/val/vpred']) {
      expect(rest.result.history[0][k]).toBeCloseTo(full.result.history[2][k], 5);
    }
    await expect(run(b, 4, true, false, { ...LORA, r: 4 })).rejects.toThrow(`${b}: cannot resume: its adapter has rank 2, --lora-rank is 4`);
  });

  it('LoRA: a reward-model adapter made for the same base sits on the policy base (no second copy)', async () => {
    const rm = await RewardModel.fromCausalLM(sft, { padTokenId: TINY_PAD, seed: 9 });
    rm.addLora(LORA, 3);
    for (const v of Object.values(rm.trainableParams())) v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', 5));
    const rmDir = path.join(tmp, 'rm');
    await rm.save(rmDir);
    const rows = [[3, 4, TINY_EOS], [5, 6, 7, TINY_EOS]];
    const want = rm.score(rows, TINY_PAD);
    rm.dispose();
    const models = await loadRlModels({ modelDir: sft, algo: 'ppo', rewardModelDir: rmDir, lora: LORA, seed: 1 });
    expect(models.rmSharesBase).toBe(true);
    expect(models.rm!.backbone.params).toBe(models.policy.params); // a view of the policy's base: the same variables
    models.rm!.score(rows, TINY_PAD).forEach((x, i) => expect(x).toBeCloseTo(want[i], 5));
    expect(models.valueHeadSource).toBe('reward-model');
    models.rm!.dispose();
    models.policy.dispose();
    models.valueHead!.dispose();
    // Full fine-tuning moves the base: the reward model then gets its own copy.
    const full = await loadRlModels({ modelDir: sft, algo: 'grpo', rewardModelDir: rmDir });
    expect(full.rmSharesBase).toBe(false);
    expect(full.rm!.backbone.params).not.toBe(full.policy.params);
    full.rm!.score(rows, TINY_PAD).forEach((x, i) => expect(x).toBeCloseTo(want[i], 5));
    [full.rm!, full.policy, full.reference].forEach((m) => m.dispose());
  });

  it('LoRA GRPO: only the adapter trains (no value head), the reference is the base', async () => {
    const models = await loadRlModels({ modelDir: sft, algo: 'grpo', lora: LORA });
    expect(models.valueHead).toBeNull();
    expect(models.reference.params).toBe(models.policy.params);
    const rl = new RlTrainer(models, scorer, policyGradientSettings({ ...settings, algo: 'grpo', groupSize: 2 }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const base = models.policy.hostWeights();
    const m1 = await rl.step(prompts.slice(0, 2));
    const m2 = await rl.step(prompts.slice(2, 4));
    expect(m1['objective/kl']).toBe(0);
    expect(Number.isFinite(m2['ppo/loss/total'])).toBe(true);
    expect(Object.keys(rl.trainer.params).every((n) => n.includes('.lora_'))).toBe(true);
    for (const [name, t] of models.policy.hostWeights()) expect(Array.from(t.data)).toEqual(Array.from(base.get(name)!.data));
    expect(models.policy.adapterWeights().size).toBeGreaterThan(0);
    dispose(models, rl);
  });

  it('--base-dtype int8: the LoRA base (and so the reference) is int8 and trains its adapter; with full fine-tuning only the reference is', async () => {
    const models = await loadRlModels({ modelDir: sft, algo: 'grpo', lora: LORA, baseDtype: 'int8' });
    expect([models.policy.baseDtype, models.reference.baseDtype]).toEqual(['int8', 'int8']);
    const rl = new RlTrainer(models, scorer, policyGradientSettings({ ...settings, algo: 'grpo', groupSize: 2 }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    const m1 = await rl.step(prompts.slice(0, 2));
    const m2 = await rl.step(prompts.slice(2, 4));
    expect(m1['objective/kl']).toBe(0); // the adapter starts at zero: policy = reference
    expect(Number.isFinite(m2['ppo/loss/total'])).toBe(true);
    expect(Object.keys(rl.trainer.params).every((n) => n.includes('.lora_'))).toBe(true);
    dispose(models, rl);
    const full = await loadRlModels({ modelDir: sft, algo: 'grpo', baseDtype: 'int8' });
    expect([full.policy.baseDtype, full.reference.baseDtype]).toEqual(['fp32', 'int8']);
    full.policy.dispose();
    full.reference.dispose();
  });

  it('refuses fewer prompts than a batch', async () => {
    const models = await loadRlModels({ modelDir: sft, algo: 'grpo' });
    const rl = new RlTrainer(models, scorer, policyGradientSettings({ ...settings, algo: 'grpo' }), { padId: TINY_PAD, stopTokenIds: [TINY_EOS] });
    await expect(
      runRlLoop({ rl, prompts: prompts.slice(0, 2), batchSize: 4, steps: 1, outDir: path.join(tmp, 'c'), saveEvery: 0, save: async () => {}, quiet: true, seed: 0 }),
    ).rejects.toThrow('2 prompts are fewer than one batch of 4');
    dispose(models, rl);
  });
});

describe('value head initialisation', () => {
  it("copies the reward model's score head when the widths match, else starts at random", async () => {
    const rm = await RewardModel.fromCausalLM(sft, { padTokenId: TINY_PAD, seed: 9 });
    const { head, source } = createValueHead(16, rm.head);
    expect(source).toBe('reward-model');
    expect(Array.from(head.weight.dataSync())).toEqual(Array.from(rm.head.weight.dataSync()));
    expect(Array.from(head.bias!.dataSync())).toEqual([0]);
    rm.dispose(); // the copy outlives the reward model
    expect(head.weight.dataSync().length).toBe(16);
    head.dispose();
    const other = createValueHead(8, null);
    expect(other.source).toBe('random');
    other.head.dispose();
  });

  it('loadRlModels refuses a reward-model folder as the policy', async () => {
    const rm = await RewardModel.fromCausalLM(sft, { padTokenId: TINY_PAD });
    const dir = path.join(tmp, 'rm');
    await rm.save(dir);
    rm.dispose();
    await expect(loadRlModels({ modelDir: dir, algo: 'ppo' })).rejects.toThrow('is a reward model');
  });
});
