// The rm CLI end to end (real tsx, real backend) on a tiny random causal LM with the shipped 16k tokenizer:
// a bad data line as one error line, and a 2-step run that writes a sequence-classifier checkpoint + heldout.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readSafetensors, RewardModel } from '@rlhf-code/model';
import { BASE_MODEL as BASE, printedConfig, runApp } from '@rlhf-code/cli/testing';
import { saveTinyAppModel } from '@rlhf-code/model/testing';
import { RmSettings } from '@rlhf-code/train';

const rm = (...args: string[]) => runApp('rm', args);

// 8 prompts x (a correct and a broken response), tagged as prep:rm tags them.
const ROWS = Array.from({ length: 8 }, (_, i) => [
  { prompt: `# Write a function f${i} that returns ${i}.\n`, response: `def f${i}():\n    return ${i}\n`, score: 1, task_id: i, source: 'reference' },
  { prompt: `# Write a function f${i} that returns ${i}.\n`, response: `def f${i}(:\n  retur ${i}\n`, score: 0.1333, task_id: i, source: 'mutant:drop_colon' },
]).flat();

let dir: string;
let model: string;
let data: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rm-test-'));
  model = path.join(dir, 'sft');
  await saveTinyAppModel(model, 'tiny-rm');
  data = path.join(dir, 'rm.jsonl');
  writeFileSync(data, ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rm train', () => {
  it('names file:line and the field of a score that is not a number, without a stack trace', () => {
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, [ROWS[0], ROWS[1], { ...ROWS[2], score: 'high' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = rm('train', '--model', model, '--data', bad, '--out', path.join(dir, 'bad-out'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rm: error: ${bad}:3: field "score": expected number, received string\n`);
  });

  it('trains 2 steps from a causal-LM checkpoint: Qwen2ForSequenceClassification with score.weight, and heldout.json', async () => {
    const out = path.join(dir, 'rm-out');
    const r = rm('train', '--model', model, '--data', data, '--out', out, '--max-steps', '2', '--batch-size', '2', '--heldout-fraction', '0.25', '--quiet');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // 2 of 8 prompts held out with both their responses.
    expect(r.stderr).toContain(`rm train: backend wasm; 12 training / 4 held-out pairs from ${data}\n`);

    const heldout = JSON.parse(readFileSync(path.join(out, 'heldout.json'), 'utf8'));
    expect(Object.keys(heldout)).toEqual(['heldout']);
    expect(Object.keys(heldout.heldout).sort()).toEqual(['mse', 'n', 'pairwise_accuracy', 'pairwise_n', 'pearson', 'prompts', 'se']);
    expect(heldout.heldout.prompts).toBe(2);
    expect(Object.keys(heldout.heldout.se).sort()).toEqual(['mse', 'pairwise_accuracy', 'pearson']);
    expect(heldout.heldout.se.mse).toBeGreaterThanOrEqual(0);
    expect(heldout.heldout.n).toBe(4);
    expect(heldout.heldout.mse).toBeGreaterThan(0);
    expect(Number.isFinite(heldout.heldout.mse)).toBe(true);
    // Two distinct held-out targets and 4 different inputs: the correlation is defined.
    expect(typeof heldout.heldout.pearson).toBe('number');
    expect(Math.abs(heldout.heldout.pearson)).toBeLessThanOrEqual(1);
    // One (reference, mutant) pair per held-out prompt.
    expect(heldout.heldout.pairwise_n).toBe(2);
    expect([0, 0.5, 1]).toContain(heldout.heldout.pairwise_accuracy);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ stage: 'rm', out, step: 2, interrupted: false });
    expect(summary.heldout).toEqual(heldout.heldout);

    const config = JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'));
    expect(config.architectures).toEqual(['Qwen2ForSequenceClassification']);
    expect(config.num_labels ?? Object.keys(config.id2label).length).toBe(1);
    const weights = await readSafetensors(path.join(out, 'model.safetensors'));
    expect(weights.get('score.weight')?.shape).toEqual([1, 16]);
    expect(weights.has('lm_head.weight')).toBe(false);
    expect(weights.get('model.embed_tokens.weight')?.shape).toEqual([config.vocab_size, 16]);
    expect(readFileSync(path.join(out, 'tokenizer.json'), 'utf8')).toBe(readFileSync(path.join(BASE, 'tokenizer.json'), 'utf8'));

    const metrics = readFileSync(path.join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(metrics.filter((m) => 'loss' in m).map((m) => m.step)).toEqual([1, 2]);
    const evals = metrics.filter((m) => 'eval/mse' in m);
    expect(evals.map((m) => m.step)).toEqual([2]);
    expect(evals[0]['eval/mse']).toBe(heldout.heldout.mse);
    expect(evals[0]['eval/n']).toBe(4);
    expect(evals[0]['eval/pairwise_n']).toBe(2);
    expect(evals[0]['eval/pairwise_accuracy']).toBe(heldout.heldout.pairwise_accuracy);
    // The held-out line on stderr names it beside mse and pearson.
    expect(r.stderr).toMatch(/^rm step 2: eval\/mse=\S+ eval\/pearson=\S+ eval\/n=4 eval\/pairwise_accuracy=\S+ eval\/pairwise_n=2$/m);
  });

  it('--lora-rank: a PEFT adapter folder (adapter + score head, task SEQ_CLS) that resumes and scores as it was saved', async () => {
    const out = path.join(dir, 'rm-lora');
    const args = ['train', '--model', model, '--data', data, '--out', out, '--batch-size', '2', '--heldout-fraction', '0.25', '--quiet', '--lora-rank', '2', '--lora-targets', 'q_proj,v_proj'];
    const r = rm(...args, '--max-steps', '2');
    expect(r.code).toBe(0);
    // one layer: q_proj A [2, 16] + B [16, 2], v_proj (one kv head of 8) A [2, 16] + B [8, 2], the score head [1, 16]
    expect(r.stderr).toContain('rm train: LoRA r=2 alpha=16 on q_proj, v_proj + the score head: 128 trainable parameters\n');
    const cfg = JSON.parse(readFileSync(path.join(out, 'adapter_config.json'), 'utf8'));
    expect(cfg).toMatchObject({ peft_type: 'LORA', task_type: 'SEQ_CLS', modules_to_save: ['score'], r: 2, base_model_name_or_path: model, target_modules: ['q_proj', 'v_proj'] });
    const tensors = await readSafetensors(path.join(out, 'adapter_model.safetensors'));
    expect(tensors.get('base_model.model.score.weight')?.shape).toEqual([1, 16]);
    expect(tensors.get('base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight')?.shape).toEqual([8, 2]);
    expect(tensors.size).toBe(1 + 2 * 2);
    const merged = path.join(dir, 'rm-merged');
    const resumed = rm(...args, '--max-steps', '3', '--resume', '--merge-export', merged);
    expect(resumed.code).toBe(0);
    // The merged export is a plain Qwen2ForSequenceClassification checkpoint that scores as the adapter does.
    expect(JSON.parse(readFileSync(path.join(merged, 'config.json'), 'utf8')).architectures).toEqual(['Qwen2ForSequenceClassification']);
    const [adapted, full] = [await RewardModel.load(out), await RewardModel.load(merged)];
    const rows = [[5, 6, 7, 8], [9, 10, 11]];
    full.score(rows, 0).forEach((s, i) => expect(s).toBeCloseTo(adapted.score(rows, 0)[i], 4));
    adapted.dispose();
    full.dispose();
    expect(rm('train', '--model', model, '--data', data, '--out', path.join(dir, 'x'), '--merge-export', merged).stderr).toBe('rm: error: --merge-export: needs LoRA (--lora-rank > 0)\n');
    expect(JSON.parse(resumed.stdout.trim().split('\n').pop()!)).toMatchObject({ step: 3 });
    const wrong = rm(...args, '--max-steps', '4', '--resume', '--lora-rank', '4');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`rm: error: ${out}: cannot resume: its adapter has rank 2, --lora-rank is 4 (resume with the same settings)\n`);
  });

  it('--base-dtype int8 with --lora-rank: trains on an int8 backbone; --merge-export folds the adapter into --model\'s own fp32 weights', async () => {
    const out = path.join(dir, 'rm-int8');
    const merged = path.join(dir, 'rm-int8-merged');
    const r = rm('train', '--model', model, '--data', data, '--out', out, '--batch-size', '2', '--heldout-fraction', '0.25', '--quiet', '--lora-rank', '2', '--lora-targets', 'q_proj,v_proj', '--base-dtype', 'int8', '--max-steps', '2', '--merge-export', merged);
    expect(r.code).toBe(0);
    // Outside the adapter's targets the export is --model's weights to the bit (no int8 rounding); the targets moved.
    const [base, exported] = [await readSafetensors(path.join(model, 'model.safetensors')), await readSafetensors(path.join(merged, 'model.safetensors'))];
    const k = 'model.layers.0.mlp.down_proj.weight';
    expect(Array.from(exported.get(k)!.data)).toEqual(Array.from(base.get(k)!.data));
    expect(exported.has('score.weight')).toBe(true);
    expect(rm('train', '--model', model, '--data', data, '--out', path.join(dir, 'y'), '--base-dtype', 'int8').stderr).toBe('rm: error: --base-dtype: a base in int8 trains only through LoRA: set --lora-rank\n');
  });

  it('--print-config: the schema defaults, then flags; MODEL_PATH (run_all.sh\'s base model) is not its --model', () => {
    expect(printedConfig('rm', ['train'])).toEqual(RmSettings.parse({}));
    expect(printedConfig('rm', ['train'], { MODEL_PATH: '/elsewhere' })).toEqual(RmSettings.parse({}));
    expect(printedConfig('rm', ['train', '--pair-loss', 'bt', '--lr', '2e-5'])).toEqual(RmSettings.parse({ pairLoss: 'bt', lr: 2e-5 }));
  });
});

