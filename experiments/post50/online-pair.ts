// v2 against v1 in online:experiment's held-out replay (issue 50's online bar): each model's run holds one record per
// (position, arm) over the same positions of data/fim/fim_test.jsonl; this pairs an arm of the two runs by position.
// Accepted per request: v2 - v1 with a cluster bootstrap over files (positions of a file are not independent) and the
// sign-flip test over positions. The two runs were one after the other, not interleaved; the items are the same and
// the simulated user is deterministic given the suggestion, so the pairing is by item only.
//   node --import tsx experiments/post50/online-pair.ts results/remeasure-v2 exact start
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { clusterBootstrap, signFlipTest } from '@rlhf-code/stats';

const [root = 'results/remeasure-v2', user = 'exact', arm = 'start'] = process.argv.slice(2);
interface Rec { position: number; file: string; arm: string; shown: boolean; accepted: boolean }
const load = (m: string): Map<number, Rec> => {
  const file = path.join(root, `online-${m}`, user, 'result.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as { records: Rec[] };
  return new Map(r.records.filter((x) => x.arm === arm).map((x) => [x.position, x]));
};
const v1 = load('v1');
const v2 = load('v2');
const positions = [...v1.keys()].filter((p) => v2.has(p)).sort((a, b) => a - b);
if (positions.length === 0) throw new Error(`online-pair: no common positions for arm ${arm}`);
const files = positions.map((p) => v1.get(p)!.file);
const measure = (f: (r: Rec) => number) => {
  const a = positions.map((p) => f(v1.get(p)!));
  const b = positions.map((p) => f(v2.get(p)!));
  const d = b.map((x, i) => x - a[i]);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ci = clusterBootstrap(files, (w) => {
    const tot = w.reduce((s, x) => s + x, 0);
    return tot === 0 ? null : d.reduce((s, x, i) => s + x * w[i], 0) / tot;
  });
  return { v1: mean(a), v2: mean(b), diff: mean(d), ci, p: signFlipTest(d).p };
};
const rows = { accepted_per_request: measure((r) => Number(r.accepted)), shown_per_request: measure((r) => Number(r.shown)) };
console.log(`| ${user} / ${arm} (${positions.length} positions, ${new Set(files).size} files) | v1 | v2 | v2 - v1 [95% cluster CI] | p |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [k, m] of Object.entries(rows)) {
  const ci = m.ci ? `[${m.ci[0].toFixed(3)}, ${m.ci[1].toFixed(3)}]` : '';
  console.log(`| ${k} | ${m.v1.toFixed(3)} | ${m.v2.toFixed(3)} | ${m.diff >= 0 ? '+' : ''}${m.diff.toFixed(3)} ${ci} | ${m.p.toPrecision(2)} |`);
}
