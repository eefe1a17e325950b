// The dev table of experiments/post50/run.sh: every arm's checkpoints, one row each (eval base figures).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = process.argv[2] ?? 'results/post50';
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? '' : x.toFixed(3));
const f2 = (x: number | null | undefined) => (x === null || x === undefined ? '' : x.toFixed(2));
const rows = [
  '| arm | checkpoint | dev loss (SE) | dev FIM loss | FIM first-line exact (SE) | FIM syntax | bodies compile (SE) | body lines | repetitive | lines of usable bodies |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
const se = (p: number, n: number) => Math.sqrt((p * (1 - p)) / n);
for (const arm of readdirSync(root).sort()) {
  for (const ckpt of ['psm', 'spm', 'round1', 'base']) {
    const file = path.join(root, arm, `dev-${ckpt}`, 'base_eval.json');
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const { heldout: h, fim: f, functions: g } = r;
    rows.push(
      `| ${arm} | ${ckpt} | ${f3(h.loss)} (${f3(h.loss_se)}) | ${f3(h.loss_fim)} | ${f3(f.first_line_exact)} (${f3(se(f.first_line_exact, f.n))}) | ${f3(f.syntax_valid)} | ` +
        `${f2(g.syntax_valid)} (${f2(se(g.syntax_valid, g.n))}) | ${f2(g.mean_body_lines)} | ${f2(g.repetitive_rate)} | ${f2(g.mean_body_lines_usable)} |`,
    );
  }
}
console.log(rows.join('\n'));
