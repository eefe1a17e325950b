// Renders the chart through tsx in a child process: jest's CommonJS sandbox cannot import vega's ES modules.
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '../../..');

it('renders eval.svg with one bar and one error bar per (rate metric, model) and the models in the legend', () => {
  const se = { syntax_valid: 0.1, pass_at_1: 0.05, exec_score: 0.02, defines_called_function: 0.1, rm_score: null, distinct_1: 0.01, distinct_2: null, mean_len: 1, kl_to_sft: null };
  const report = {
    n_problems: 3,
    samples_per_problem: 4,
    temperature: 0.7,
    models: {
      base: { syntax_valid: 0.5, pass_at_1: 0, exec_score: 0.4, defines_called_function: 0.5, rm_score: null, distinct_1: 0.3, distinct_2: null, mean_len: 4, kl_to_sft: null, se },
      ppo_final: { syntax_valid: 1, pass_at_1: 1 / 3, exec_score: 0.7, defines_called_function: 1, rm_score: 1, distinct_1: 0.6, distinct_2: 0.9, mean_len: 4, kl_to_sft: 2, se },
    },
  };
  const svg = execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(__dirname, 'testing/render-chart.ts')], {
    cwd: ROOT,
    input: JSON.stringify(report),
    encoding: 'utf8',
  });
  expect(svg.startsWith('<svg')).toBe(true);
  expect(svg.trim().endsWith('</svg>')).toBe(true);
  // vega draws each bar as a path in the "mark-rect role-mark" group: 6 + 5 values (distinct_2 of base is null),
  // and each error bar as a line in the "mark-rule role-mark" group.
  const bars = svg.match(/<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/)![1].match(/<path /g)!;
  expect(bars).toHaveLength(11);
  const rules = svg.match(/<g class="mark-rule role-mark[^"]*"[^>]*>(.*?)<\/g>/)![1].match(/<line /g)!;
  expect(rules).toHaveLength(11);
  expect(svg).toContain('ppo_final');
  expect(svg).toContain('pass@1');
  expect(svg).toContain('0.33'); // the value label of ppo_final's pass@1
});

it('renders heldout.svg: one point and one error bar per (measurement, score source), sources in the legend', () => {
  const rec = (step: number, exec: number) => ({
    step,
    prompts: 3,
    samples_per_prompt: 2,
    temperature: 0.7,
    metrics: { exec_score: { mean: exec, se: 0.01 }, rm_score: { mean: 0.2, se: 0.02 }, score: { mean: 0.3, se: null }, missing_eos: { mean: 0.1, se: 0.05 } },
    per_prompt: {},
  });
  const svg = execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(__dirname, 'testing/render-chart.ts'), 'heldout'], {
    cwd: ROOT,
    input: JSON.stringify([rec(0, 0.3), rec(10, 0.35), rec(20, 0.41)]),
    encoding: 'utf8',
  });
  expect(svg.startsWith('<svg')).toBe(true);
  // 3 measurements x 3 plotted sources (missing_eos is not plotted): 9 points, 9 error bars, 3 lines
  const group = (mark: string) => svg.match(new RegExp(`<g class="mark-${mark} role-mark[^"]*"[^>]*>(.*?)</g>`))![1];
  expect(group('symbol').match(/<path /g)).toHaveLength(9);
  expect(group('rule').match(/<line /g)).toHaveLength(9);
  // vega draws each series' line in a group of its own
  expect(svg.match(/<g class="mark-line role-mark[^"]*"[^>]*><path /g)).toHaveLength(3);
  expect(svg).toContain('exec score (ground truth)');
  expect(svg).toContain('RL iteration');
});
