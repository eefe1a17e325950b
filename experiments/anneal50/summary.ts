// The anneal arms against the start and against the run's own mix (cpython-stdlib=3), paired over the dev windows:
// node --import tsx experiments/anneal50/summary.ts results/anneal50
import { readFileSync, readdirSync } from 'fs';
import * as path from 'path';
import { paired } from '@rlhf-code/stats';

const R = process.argv[2] ?? 'results/anneal50';
const heldout = (dir: string) => JSON.parse(readFileSync(path.join(R, dir, 'base_eval.json'), 'utf8')).heldout as { loss: number; loss_se: number; window_losses: number[]; window_losses_fim: number[]; loss_fim: number };
const arms = readdirSync(R).filter((d) => d.endsWith('-dev')).map((d) => d.slice(0, -4));
const start = heldout('start-dev');
const own = arms.includes('stdlib3') ? heldout('stdlib3-dev') : null;
const f = (x: number) => x.toFixed(3);
console.log('| arm | dev loss (SE) | vs start, paired (95% CI) | vs stdlib=3, paired (95% CI) | dev FIM loss | FIM vs stdlib=3 |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const a of arms) {
  const h = heldout(`${a}-dev`);
  const vs = (b: typeof h | null, key: 'window_losses' | 'window_losses_fim') => {
    if (!b || b === h) return '';
    const p = paired(h[key], b[key]);
    return `${f(p.diff)} (${f(p.ci95![0])}, ${f(p.ci95![1])})`;
  };
  console.log(`| ${a} | ${f(h.loss)} (${f(h.loss_se)}) | ${a === 'start' ? '' : vs(start, 'window_losses')} | ${a === 'stdlib3' ? '' : vs(own, 'window_losses')} | ${f(h.loss_fim)} | ${a === 'stdlib3' ? '' : vs(own, 'window_losses_fim')} |`);
}
