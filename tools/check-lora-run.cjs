#!/usr/bin/env node
// Checks what a LoRA run of run_all.sh wrote (CI's LoRA smoke test, after `LORA_RANK=R MODEL_PATH=<another model>
// bash run_all.sh`): every training stage an adapter folder of rank R (sft on MODEL_PATH; rm, the RL stages the run
// ran and sft_more on the SFT adapter; the RM a SEQ_CLS adapter), the reward-model data rebuilt for the model in RESULTS/data (the samples of its
// SFT checkpoint are kept only when they differ from the stubs, so their count is not checked), and the evaluations of
// the adapters with the RM adapter's scores; with BASE_DTYPE, every training stage ran on a base in that dtype.
// Usage: node tools/check-lora-run.cjs RESULTS RANK MODEL_PATH [BASE_DTYPE]. Prints one line per problem and exits 1 when
// there is any.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const [results, rank, model, baseDtype = 'fp32'] = process.argv.slice(2);
if (!results || !rank || !model) {
  console.error('usage: node tools/check-lora-run.cjs RESULTS RANK MODEL_PATH [BASE_DTYPE]');
  process.exit(2);
}
const problems = [];
const json = (file) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(results, file), 'utf8'));
  } catch (e) {
    problems.push(`${file}: ${e.message}`);
    return null;
  }
};
const sft = path.join(results, 'sft');
// The RL stages of this run: the registry's algorithms (`rl algos`, as run_all.sh reads it) that have a stage config in
// RESULTS/logs/config. A rejection-sampling algorithm (rft) has the SFT adapter as its base when a round trained, or the
// model when no sample passed (its folder is then the SFT adapter as it was; the smoke preset's few steps rarely pass a
// test).
const algos = execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../apps/rl/src/main.ts'), 'algos'], { encoding: 'utf8' })
  .trim().split('\n').map((l) => l.split('\t'));
const ran = (stage) => fs.existsSync(path.join(results, 'logs', 'config', `${stage}.json`));
const adapters = {
  sft: ['CAUSAL_LM', [model]],
  rm: ['SEQ_CLS', [sft]],
  ...Object.fromEntries(algos.filter(([name]) => ran(name)).map(([name, kind]) => [name, ['CAUSAL_LM', kind === 'policy-gradient' ? [sft] : [sft, model]]])),
  ...(ran('sft_more') ? { sft_more: ['CAUSAL_LM', [sft]] } : {}),
};
if (Object.keys(adapters).length === 2) problems.push(`${results}/logs/config: no RL stage of ${algos.map(([n]) => n).join(', ')}`);
for (const [stage, [task, bases]] of Object.entries(adapters)) {
  if (fs.existsSync(path.join(results, stage, 'config.json'))) problems.push(`${stage}: a full checkpoint (config.json), not an adapter folder`);
  const a = json(path.join(stage, 'adapter_config.json'));
  if (!a) continue;
  if (a.r !== Number(rank)) problems.push(`${stage}/adapter_config.json: r is ${a.r}, expected ${rank}`);
  if (a.task_type !== task) problems.push(`${stage}/adapter_config.json: task_type is ${a.task_type}, expected ${task}`);
  if (!bases.some((b) => path.resolve(a.base_model_name_or_path) === path.resolve(b))) problems.push(`${stage}/adapter_config.json: base ${a.base_model_name_or_path}, expected ${bases.join(' or ')}`);
  const args = json(path.join(stage, 'training_args.json'));
  if (args && args.baseDtype !== baseDtype) problems.push(`${stage}/training_args.json: baseDtype is ${args.baseDtype}, expected ${baseDtype}`);
}
const rmData = path.join(results, 'data', 'rm_data.jsonl');
const rows = fs.existsSync(rmData) ? fs.readFileSync(rmData, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
if (!rows.some((r) => r.source === 'reference')) problems.push(`${rmData}: no reward-model data rebuilt for the model`);
for (const split of ['suite', 'mbpp']) {
  const e = json(path.join('eval', split, 'eval.json'));
  for (const name of Object.keys(adapters).filter((n) => n !== 'rm')) {
    const m = e?.models?.[name];
    if (e && !m) problems.push(`eval/${split}/eval.json: no model ${name}`);
    else if (m && typeof m.rm_score !== 'number') problems.push(`eval/${split}/eval.json: ${name} has no rm_score`);
  }
}
for (const p of problems) console.log(`check-lora-run: ${p}`);
if (problems.length === 0) console.log(`check-lora-run: ${results}: ${Object.keys(adapters).join(', ')} adapters of rank ${rank} on the base in ${baseDtype}, ${rows.length} rows of rebuilt RM data, both evaluations scored`);
process.exit(problems.length === 0 ? 0 : 1);
