// Issue 52: the engines' GRPO arms of one eval:run (models grpo_<engine>_s<seed>), compared by their seeds' mean test
// pass@1: Welch's difference of means over seeds (each RL run one draw), and the per-problem paired difference of the
// seed-averaged outcomes (the problems' own noise; it treats the seeds as fixed).
//   node --import tsx experiments/grpo52/summary5.ts results/grpo52b/eval
import { readFileSync } from 'fs';
import * as path from 'path';
import { meanSe, paired } from '@rlhf-code/stats';

const dir = process.argv[2] ?? 'results/grpo52b/eval';
const evalJson = JSON.parse(readFileSync(path.join(dir, 'eval.json'), 'utf8')) as { models: Record<string, { pass_at_1: number }> };
const perProblem = JSON.parse(readFileSync(path.join(dir, 'per_problem.json'), 'utf8')) as { task_ids: number[]; models: Record<string, { pass_at_1: number[] }> };
const arms = new Map<string, string[]>();
for (const name of Object.keys(evalJson.models)) {
  const m = /^grpo_(.+)_s(\d+)$/.exec(name);
  if (m) arms.set(m[1], [...(arms.get(m[1]) ?? []), name]);
}
const engines = [...arms.keys()];
if (engines.length !== 2) throw new Error(`${dir}: expected the arms of two engines (grpo_<engine>_s<seed>), found ${engines.join(', ') || 'none'}`);
const f = (x: number) => x.toFixed(3);
console.log('| engine | seeds | test pass@1 per seed (vs sft) | mean (SD) |');
console.log('| --- | ---: | --- | ---: |');
const sft = evalJson.models.sft?.pass_at_1;
const stats = engines.map((e) => {
  const runs = arms.get(e)!.map((n) => evalJson.models[n].pass_at_1);
  const ms = meanSe(runs);
  const sd = ms.se === null ? null : ms.se * Math.sqrt(runs.length);
  console.log(`| ${e} | ${runs.length} | ${runs.map((p) => `${f(p)}${sft === undefined ? '' : ` (${p >= sft ? '+' : ''}${f(p - sft)})`}`).join(', ')} | ${f(ms.mean)} (${sd === null ? '-' : f(sd)}) |`);
  return { e, runs, ms };
});
const [a, b] = stats;
const welchSe = Math.hypot(a.ms.se ?? NaN, b.ms.se ?? NaN);
const diff = b.ms.mean - a.ms.mean;
console.log(`\n${b.e} - ${a.e}, over seeds (Welch): ${f(diff)} +- ${f(welchSe)} (${f(diff / welchSe)} SE)`);
// Per problem: each engine's pass@1 averaged over its seeds, then paired over problems.
for (const n of [...arms.values()].flat()) if (!perProblem.models[n]) throw new Error(`${dir}/per_problem.json has no row for ${n} (eval.json has)`);
const avg = (names: string[]) => perProblem.task_ids.map((_, i) => names.reduce((s, n) => s + perProblem.models[n].pass_at_1[i], 0) / names.length);
const p = paired(avg(arms.get(b.e)!), avg(arms.get(a.e)!));
console.log(`${b.e} - ${a.e}, paired over ${perProblem.task_ids.length} problems on the seed-averaged outcomes: ${f(p.diff)} +- ${f(p.se!)} [${f(p.ci95![0])}, ${f(p.ci95![1])}]`);
