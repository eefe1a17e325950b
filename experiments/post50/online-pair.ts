// v2 against v1 in online:experiment's held-out replay (issue 50's online bar): each model's run holds one record per
// (position, arm) over the same positions of its --heldout file; this pairs one arm of the two runs by position with
// the experiment's own analysis (analyseArms: cluster bootstrap over files, sign-flip test over positions). The two
// runs were one after the other, not interleaved; the items are the same, so the pairing is by item only.
//   node --import tsx experiments/post50/online-pair.ts results/remeasure-v2 exact start
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyseArms } from '@rlhf-code/online-core';
import type { SimulationRecord } from '@rlhf-code/continue';

const [root = 'results/remeasure-v2', user = 'exact', arm = 'start'] = process.argv.slice(2);
// One run's records of `arm`, relabelled by model so that the two runs read as two arms of one measurement.
const load = (model: string): SimulationRecord[] => {
  const file = path.join(root, `online-${model}`, user, 'result.json');
  if (!existsSync(file)) {
    console.error(`online-pair: ${file} not found (usage: online-pair.ts ROOT USER ARM; ROOT holds online-v1/USER and online-v2/USER from online:experiment)`);
    process.exit(2);
  }
  const { records } = JSON.parse(readFileSync(file, 'utf8')) as { records: SimulationRecord[] };
  return records.filter((r) => r.arm === arm).map((r) => ({ ...r, arm: model }));
};
const a = analyseArms([...load('v1'), ...load('v2')], [['v2', 'v1']]);
const c = a.contrasts[0];
const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
console.log(`| ${user} / ${arm} (${c.positions} positions, ${c.files} files) | v1 | v2 | v2 - v1 [95% cluster CI] | p |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const k of ['accepted_per_request', 'utility_per_request', 'acceptance_rate'] as const) {
  const m = c[k];
  const ci = m.ci95 ? ` [${m.ci95[0].toFixed(3)}, ${m.ci95[1].toFixed(3)}]` : '';
  console.log(`| ${k} | ${f(m.versus)} | ${f(m.arm)} | ${m.diff !== null && m.diff >= 0 ? '+' : ''}${f(m.diff)}${ci} | ${m.p === null ? '' : m.p.toPrecision(2)} |`);
}
console.log(`| shown per request | ${f(a.arms.v1.suggestion_rate)} | ${f(a.arms.v2.suggestion_rate)} | | |`);
