// The rl CLI end to end (real tsx, real backend, real python3 sandbox) on a tiny random Qwen2 with the shipped
// 16k tokenizer: --help against the flags schema, the clear errors about prompts and reward sources, and one
// tiny iteration with execution reward only and with a reward model.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readSafetensors, RewardModel } from '@rlhf-code/model';
import { printedConfig, printedRuntime, runApp } from '@rlhf-code/cli/testing';
import { saveTinyAppModel } from '@rlhf-code/model/testing';
import { ALGORITHMS, RlSettings } from '@rlhf-code/rl';

const rl = (...args: string[]) => runApp('rl', args);

const PROMPTS = Array.from({ length: 4 }, (_, i) => ({
  prompt: `# Write a function f${i} that returns ${i}.\ndef f${i}():\n`,
  tests: [`assert f${i}() == ${i}`],
}));
const HELD_OUT = [2, 3].map((i) => ({ prompt: `# Write a function g${i} that returns ${i}.\ndef g${i}():\n`, tests: [`assert g${i}() == ${i}`] }));
// One short iteration: 2 prompts, 8 new tokens, one optimizer step, no held-out measurement.
const TINY = ['--steps', '1', '--batch-size', '2', '--max-new-tokens', '8', '--max-prompt-len', '32', '--ppo-epochs', '1', '--mini-batches', '1', '--quiet', '--heldout-data', 'none'];

let dir: string;
let policy: string;
let rewardModel: string;
let withTests: string;
let noTests: string;
let heldOut: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rl-test-'));
  policy = path.join(dir, 'sft');
  await saveTinyAppModel(policy, 'tiny-policy', 'lm');
  rewardModel = path.join(dir, 'rm');
  await saveTinyAppModel(rewardModel, 'tiny-rm', 'rm');
  withTests = path.join(dir, 'prompts.jsonl');
  writeFileSync(withTests, PROMPTS.map((p) => JSON.stringify(p)).join('\n') + '\n');
  noTests = path.join(dir, 'prompts-no-tests.jsonl');
  writeFileSync(noTests, PROMPTS.map((p) => JSON.stringify({ prompt: p.prompt })).join('\n') + '\n');
  heldOut = path.join(dir, 'held-out.jsonl');
  writeFileSync(heldOut, HELD_OUT.map((p) => JSON.stringify(p)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const metricLines = (out: string) =>
  readFileSync(path.join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!);

describe('rl train: usage errors', () => {
  it('MODEL_PATH (run_all.sh\'s base model) does not move the policy: the SFT checkpoint unless --model or a --config file says', () => {
    expect(printedConfig('rl', ['train'], { MODEL_PATH: 'models/base' })).toMatchObject({ model: 'results/sft' });
    expect(printedConfig('rl', ['train', '--model', 'x'], { MODEL_PATH: 'models/base' })).toMatchObject({ model: 'x' });
  });

  it('--print-config shows the runtime settings, each with its environment variable', () => {
    expect(printedRuntime('rl', ['train'], { RLHF_NATIVE_THREADS: '2', RLHF_PYTHON: '/usr/bin/python3' })).toEqual({
      backend: 'auto',
      threads: 1, // runApp's RLHF_THREADS
      native: true,
      nativeThreads: 2,
      nativeGemm: 'own',
      avx512: true,
      bf16Gemm: 'auto',
      llamacppGpu: process.platform === 'darwin' && process.arch === 'arm64' ? 'metal' : 'cpu',
      python: '/usr/bin/python3',
      debug: false,
    });
    expect(printedRuntime('rl', ['train', '--backend', 'cpu'])).toMatchObject({ backend: 'cpu' });
  });

  it('--print-config: PPO by default, every algorithm of the registry with --algo, each variant\'s own settings', () => {
    expect(printedConfig('rl', ['train'])).toEqual(RlSettings.parse({}));
    for (const { name } of ALGORITHMS) expect(printedConfig('rl', ['train', '--algo', name])).toEqual(RlSettings.parse({ algo: name }));
    expect(printedConfig('rl', ['train', '--algo', 'grpo', '--group-size', '8'])).toEqual(RlSettings.parse({ algo: 'grpo', groupSize: 8 }));
    expect(printedConfig('rl', ['train', '--no-whiten-advantages'])).toMatchObject({ algo: 'ppo', whitenAdvantages: false });
    const r = rl('train', '--group-size', '8', '--print-config');
    expect(r.stderr).toBe('rl: error: --group-size: only with algo grpo or rloo, not algo ppo\n');
    const v = rl('train', '--algo', 'rloo', '--vf-coef', '1', '--print-config');
    expect(v.stderr).toBe('rl: error: --vf-coef: only with algo ppo, not algo rloo\n');
    const m = rl('train', '--min-lr', '1e-6', '--print-config');
    expect(m.stderr).toBe('rl: error: --min-lr: has no effect with a constant schedule (set schedule to cosine or linear)\n');
  });

  it('`rl algos` lists the registry, one name, kind and description per line; --help shows each in --algo', () => {
    const r = rl('algos');
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t'))).toEqual(ALGORITHMS.map((a) => [a.name, a.kind, a.description]));
    const help = rl('train', '--help').stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--algo <name>');
    for (const a of ALGORITHMS) expect(help).toContain(`${a.name}: ${a.description}`);
  });

  it('a --batch-size larger than the prompts is one clear line', () => {
    const r = rl('train', '--model', policy, '--reward-model', rewardModel, '--data', withTests, '--batch-size', '5', '--out', path.join(dir, 'x'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rl: error: --batch-size 5: ${withTests} has only 4 prompts (after --limit)\n`);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });

  it('--reward-model none without tests in the prompts, and an execution weight without tests, are clear lines', () => {
    const r = rl('train', '--model', policy, '--reward-model', 'none', '--data', noTests, '--batch-size', '2', '--out', path.join(dir, 'x'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('rl: error: --reward-model none needs an execution reward: prompts with tests and --exec-reward-weight > 0\n');

    const r2 = rl('train', '--model', policy, '--reward-model', rewardModel, '--data', noTests, '--exec-reward-weight', '0.5', '--batch-size', '2', '--out', path.join(dir, 'x'));
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(`rl: error: --exec-reward-weight 0.5: no prompt in ${noTests} has tests\n`);
  });

  it('--model and --reward-model: a folder that is not such a checkpoint or adapter folder is one line naming the flag', () => {
    const r = rl('train', '--model', rewardModel, '--reward-model', 'none', '--data', withTests, '--out', path.join(dir, 'x'));
    expect(r.stderr).toBe(`rl: error: --model: ${rewardModel}: a checkpoint of a reward model (Qwen2ForSequenceClassification), not a causal LM\n`);
    const r2 = rl('train', '--model', policy, '--reward-model', policy, '--data', withTests, '--out', path.join(dir, 'x'));
    expect(r2.stderr).toBe(`rl: error: --reward-model: ${policy}: a checkpoint of a causal LM, not a reward model (Qwen2ForSequenceClassification); train one with \`rm train\`\n`);
    expect(r2.code).toBe(1);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });

  it('held-out prompts that are training prompts, or a missing held-out file, are clear lines', () => {
    const r = rl('train', '--model', policy, '--reward-model', 'none', '--data', withTests, '--heldout-data', withTests, '--batch-size', '2', '--out', path.join(dir, 'x'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rl: error: --heldout-data ${withTests}: 4 of its prompts are also in --data ${withTests}; held-out prompts must not be trained on\n`);
    const missing = path.join(dir, 'nope.jsonl');
    const r2 = rl('train', '--model', policy, '--reward-model', 'none', '--data', withTests, '--heldout-data', missing, '--batch-size', '2', '--out', path.join(dir, 'x'));
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(`rl: error: --heldout-data ${missing}: file not found (pass --heldout-data none to train without held-out measurements)\n`);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });
});

describe('rl train: one tiny iteration', () => {
  it('--reward-model none: the score is the execution reward (1 x exec_score), minus the missing-EOS penalty', async () => {
    const out = path.join(dir, 'exec-only');
    const r = rl('train', '--model', policy, '--reward-model', 'none', '--data', withTests, '--out', out, ...TINY);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`rl: backend wasm; ppo on 4 prompts from ${withTests} (4 with tests); policy ${policy} `);
    expect(r.stderr).toContain('value head from random; score = 1 x exec_score\n');
    expect(lastJson(r.stdout)).toMatchObject({ stage: 'ppo', out, step: 1, interrupted: false });

    const metrics = metricLines(out);
    expect(metrics.map((m) => m.step)).toEqual([1]);
    const m = metrics[0];
    expect(m['env/exec_score_mean']).toBeGreaterThanOrEqual(-0.1);
    expect(m['env/exec_score_mean']).toBeLessThanOrEqual(1);
    expect(m['env/reward_mean']).toBeCloseTo(m['env/exec_score_mean'] - 1 * m['tokens/missing_eos_frac'], 6);
    expect(m['env/rm_score_mean']).toBeUndefined();
    expect(lastJson(r.stdout).last_reward_mean).toBe(m['env/reward_mean']);

    const weights = await readSafetensors(path.join(out, 'model.safetensors'));
    expect(weights.get('v_head.weight')?.shape).toEqual([1, 16]);
    expect(JSON.parse(readFileSync(path.join(out, 'trainer_state.json'), 'utf8')).position.step).toBe(1);
    const args = JSON.parse(readFileSync(path.join(out, 'training_args.json'), 'utf8'));
    expect(args).toMatchObject({ stage: 'ppo', reward_model: 'none', exec_reward_weight: 1 });
  });

  it('with a reward model: its score head starts the value head; it is scored beside the tests (weight 0) unless --rm-weight says otherwise', async () => {
    const out = path.join(dir, 'with-rm');
    const r = rl('train', '--model', policy, '--reward-model', rewardModel, '--data', withTests, '--out', out, ...TINY, '--lr', '1e-5');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(", value head from reward-model; score = 0 x rm_score + 1 x exec_score\n");
    const [m] = metricLines(out);
    expect(m.step).toBe(1);
    expect(Number.isFinite(m['env/rm_score_mean'])).toBe(true);
    expect(m['env/reward_mean']).toBeCloseTo(m['env/exec_score_mean'] - m['tokens/missing_eos_frac'], 6);
    const both = path.join(dir, 'with-rm-weight');
    const r2 = rl('train', '--model', policy, '--reward-model', rewardModel, '--data', withTests, '--out', both, ...TINY, '--lr', '1e-5', '--rm-weight', '0.5');
    expect(r2.code).toBe(0);
    expect(r2.stderr).toContain('score = 0.5 x rm_score + 1 x exec_score\n');
    const [m2] = metricLines(both);
    expect(m2['env/reward_mean']).toBeCloseTo(0.5 * m2['env/rm_score_mean'] + m2['env/exec_score_mean'] - m2['tokens/missing_eos_frac'], 6);
    expect(existsSync(path.join(out, 'heldout.jsonl'))).toBe(false);
    const rmHead = (await readSafetensors(path.join(rewardModel, 'model.safetensors'), ['score.weight'])).get('score.weight')!;
    const vHead = (await readSafetensors(path.join(out, 'model.safetensors'), ['v_head.weight'])).get('v_head.weight')!;
    expect(vHead.shape).toEqual([1, 16]);
    // Started from the reward model's head; one AdamW step at lr 1e-5 moves each weight by about 1e-5.
    const maxDiff = Math.max(...Array.from(vHead.data, (x, i) => Math.abs(x - rmHead.data[i])));
    expect(maxDiff).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(2e-5);
  });
});

describe('rl train --algo rft', () => {
  it('prompts without tests, and a replay file with nothing to replay, are clear lines', () => {
    const r = rl('train', '--algo', 'rft', '--model', policy, '--data', noTests, '--out', path.join(dir, 'x'));
    expect(r.stderr).toBe(`rl: error: --data ${noTests}: no prompt has tests; rft keeps the programs that pass them\n`);
    const empty = path.join(dir, 'fim-only.jsonl');
    writeFileSync(empty, JSON.stringify({ prompt: 'a = ', suffix: '\n', response: '1' }) + '\n');
    const r2 = rl('train', '--algo', 'rft', '--model', policy, '--data', withTests, '--replay-data', empty, '--out', path.join(dir, 'x'));
    expect(r2.stderr).toBe(`rl: error: --replay-data ${empty}: no {prompt, response} row to replay (or set --replay-ratio 0)\n`);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });

  it('a round where no sample passes leaves the policy as it is, says so, and logs the round', () => {
    const out = path.join(dir, 'rft');
    const replay = path.join(dir, 'replay.jsonl');
    writeFileSync(replay, PROMPTS.map((p, i) => JSON.stringify({ prompt: p.prompt, response: `    return ${i}\n` })).join('\n') + '\n');
    const r = rl('train', '--algo', 'rft', '--model', policy, '--data', withTests, '--replay-data', replay, '--samples', '2', '--max-new-tokens', '4', '--max-prompt-len', '32', '--out', out, '--quiet');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no sample of');
    const result = lastJson(r.stdout);
    expect(result).toMatchObject({ stage: 'rft', out, rounds: 1, optimizer_steps: 0, kept: 0 });
    const rounds = readFileSync(path.join(out, 'rft.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rounds).toEqual([expect.objectContaining({ round: 1, prompts: 4, samples: 8, kept: 0, replayed: 0, optimizer_steps: 0 })]);
    // the policy's own weights, unchanged
    expect(readFileSync(path.join(out, 'model.safetensors'))).toEqual(readFileSync(path.join(policy, 'model.safetensors')));
  });
});

describe('rl train --lora-rank', () => {
  it('one frozen base: the policy adapter, the reference without it, a reward-model adapter on the same base', async () => {
    const rmDir = path.join(dir, 'rm-lora');
    const rmModel = await RewardModel.fromCausalLM(policy, { padTokenId: 0, seed: 3 });
    rmModel.addLora({ r: 2, alpha: 4, dropout: 0, targets: ['q_proj'] }, 1);
    await rmModel.save(rmDir);
    rmModel.dispose();
    const out = path.join(dir, 'ppo-lora');
    const merged = path.join(dir, 'ppo-lora-merged');
    const r = rl('train', '--model', policy, '--reward-model', rmDir, '--data', withTests, '--out', out, ...TINY, '--lora-rank', '4', '--merge-export', merged);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/, LoRA r=4: [\d,]+ trainable, reference = the base without the adapter\); reward model \S+ \(an adapter on the same base\), value head from reward-model;/);
    const [m] = metricLines(out);
    expect(m['objective/kl']).toBe(0); // a fresh adapter: policy = reference at the first rollout
    expect(JSON.parse(readFileSync(path.join(out, 'adapter_config.json'), 'utf8'))).toMatchObject({ task_type: 'CAUSAL_LM', r: 4, base_model_name_or_path: policy });
    expect((await readSafetensors(path.join(out, 'value_head.safetensors'))).get('v_head.weight')?.shape).toEqual([1, 16]);
    expect(existsSync(path.join(out, 'model.safetensors'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(merged, 'config.json'), 'utf8')).architectures).toEqual(['Qwen2ForCausalLM']);
    expect((await readSafetensors(path.join(merged, 'model.safetensors'))).has('v_head.weight')).toBe(true);
  });
});

describe('rl train: held-out measurements', () => {
  it('measures the held-out prompts before the first iteration, every --heldout-every and at the end, and plots them', () => {
    const out = path.join(dir, 'held-out');
    const flags = TINY.filter((x, i) => !(x === '--heldout-data' || TINY[i - 1] === '--heldout-data' || x === '--steps' || TINY[i - 1] === '--steps'));
    const r = rl('train', '--model', policy, '--reward-model', rewardModel, '--data', withTests, '--out', out, ...flags,
      '--steps', '3', '--heldout-data', heldOut, '--heldout-every', '2', '--heldout-samples', '3');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`measured every 2 iterations on 2 held-out prompts of ${heldOut}`);
    const records = readFileSync(path.join(out, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((x) => x.step)).toEqual([0, 2, 3]);
    for (const rec of records) {
      expect(rec).toMatchObject({ prompts: 2, samples_per_prompt: 3, temperature: 0.7 });
      expect(Object.keys(rec.metrics).sort()).toEqual(['exec_score', 'missing_eos', 'response_len', 'rm_score', 'score']);
      // the mean over prompts of the per-prompt means, and its SE across the 2 prompts
      const pp: number[] = rec.per_prompt.exec_score;
      expect(pp).toHaveLength(2);
      expect(rec.metrics.exec_score.mean).toBeCloseTo((pp[0] + pp[1]) / 2, 10);
      expect(rec.metrics.exec_score.se).toBeCloseTo(Math.abs(pp[0] - pp[1]) / 2, 10);
    }
    expect(records[0].vs_start).toBeUndefined();
    const d = records[2].vs_start.exec_score;
    expect(d.diff).toBeCloseTo(records[2].metrics.exec_score.mean - records[0].metrics.exec_score.mean, 10);
    expect(r.stderr).toMatch(/held-out @ 0 \(2 prompts x 3\): exec_score -?\d\.\d{3} ± \d\.\d{3}, rm_score /);
    expect(lastJson(r.stdout).heldout).toMatchObject({ first_step: 0, last_step: 3 });
    const svg = readFileSync(path.join(out, 'heldout.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('RL iteration');
  });
});
