// eval.svg: grouped bars of the rate metrics (in 0..1, exec_score down to -0.1) per model with +-1 SE error bars (the
// stub rows are left out: eval.md has them, and eleven more bars per metric would hide the models); heldout.svg (PPO's
// folder): the held-out scores against the RL iteration with +-1 SE bars. Drawn by vega-lite -> vega -> SVG.
// vega and vega-lite are ES modules only (with top-level await), so they are loaded with a dynamic import();
// that works under tsx (the apps) but not inside jest's CommonJS sandbox, where only the spec is tested and
// chart.test.ts renders through a tsx child process.
import type { HeldOutRecord } from '@rlhf-code/rl';
import type { EvalReport } from './evaluate';
import { isStubName } from './eval-json';

export const RATE_METRICS = [
  { key: 'syntax_valid', label: 'syntax valid' },
  { key: 'pass_at_1', label: 'pass@1' },
  { key: 'exec_score', label: 'exec score' },
  { key: 'tests_passed', label: 'tests passed' },
  { key: 'defines_called_function', label: 'defines fn' },
  { key: 'distinct_1', label: 'distinct-1' },
  { key: 'distinct_2', label: 'distinct-2' },
] as const;

export interface ChartRow {
  metric: string;
  model: string;
  value: number;
  /** value -+ its standard error (the value itself when there is none). */
  lo: number;
  hi: number;
}

/** The models of the chart: every row but the stubs. */
const chartModels = (report: EvalReport) => Object.entries(report.models).filter(([name]) => !isStubName(name));

/** One row per (rate metric, model) with a value; metrics that are null for a model are left out. */
export function chartRows(report: EvalReport): ChartRow[] {
  return RATE_METRICS.flatMap(({ key, label }) =>
    chartModels(report).flatMap(([model, m]) => {
      const value = m[key];
      if (value === null || value === undefined) return [];
      const se = m.se?.[key] ?? 0;
      return [{ metric: label, model, value, lo: value - se, hi: value + se }];
    }),
  );
}

/** A vega-lite spec: x = metric, bars side by side per model (xOffset), y in 0..1 (below 0 when a value is), value printed on each bar. */
export function chartSpec(report: EvalReport): Record<string, unknown> {
  const models = chartModels(report).map(([name]) => name);
  const metrics = RATE_METRICS.map((m) => m.label);
  const rows = chartRows(report);
  const bottom = Math.min(0, ...rows.map((r) => r.lo));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Evaluation on ${report.n_problems} problems (mean ± SE)`,
    data: { values: rows },
    width: { step: 26 }, // with xOffset, the step is one bar's band
    height: 240,
    encoding: {
      x: { field: 'metric', type: 'nominal', sort: metrics, title: null, axis: { labelAngle: 0 } },
      xOffset: { field: 'model', type: 'nominal', sort: models },
      y: { field: 'value', type: 'quantitative', scale: { domain: [bottom, 1] }, title: 'rate' },
    },
    layer: [
      { mark: 'bar', encoding: { color: { field: 'model', type: 'nominal', sort: models, title: 'model' } } },
      { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
      { mark: { type: 'text', dy: -8, fontSize: 9 }, encoding: { y: { field: 'hi', type: 'quantitative' }, text: { field: 'value', type: 'quantitative', format: '.2f' } } },
    ],
    config: { background: 'white' },
  };
}

/** The score sources plotted in heldout.svg, when the run has them. */
export const HELDOUT_CURVES = [
  { key: 'exec_score', label: 'exec score (ground truth)' },
  { key: 'rm_score', label: 'reward model score' },
  { key: 'score', label: 'reward (weighted sum)' },
] as const;

export interface HeldOutRow {
  step: number;
  metric: string;
  value: number;
  lo: number;
  hi: number;
}

/** heldout.svg's rows: one per (measurement, plotted source) with mean, mean -+ SE. */
export function heldOutRows(records: readonly HeldOutRecord[]): HeldOutRow[] {
  return records.flatMap((r) =>
    HELDOUT_CURVES.filter(({ key }) => r.metrics[key]).map(({ key, label }) => {
      const { mean, se } = r.metrics[key];
      return { step: r.step, metric: label, value: mean, lo: mean - (se ?? 0), hi: mean + (se ?? 0) };
    }),
  );
}

/** A vega-lite spec: x = RL iteration, one line (with points and +-1 SE bars) per score source. */
export function heldOutSpec(records: readonly HeldOutRecord[]): Record<string, unknown> {
  const first = records[0];
  const what = first ? `${first.prompts} held-out prompts x ${first.samples_per_prompt} samples at temperature ${first.temperature}` : 'no measurements';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'PPO on held-out prompts (mean ± SE)', subtitle: what },
    data: { values: heldOutRows(records) },
    width: 420,
    height: 240,
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'RL iteration' },
      color: { field: 'metric', type: 'nominal', title: null, sort: HELDOUT_CURVES.map((c) => c.label) },
    },
    layer: [
      { mark: { type: 'line', point: true }, encoding: { y: { field: 'value', type: 'quantitative', title: 'score', scale: { zero: false } } } },
      { mark: 'rule', encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } } },
    ],
    config: { background: 'white' },
  };
}

/** Render a vega-lite spec to an SVG string (headless, no canvas needed). */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  // vega-lite's package.json has no top-level "types", which this repo's node10 module resolution needs: the
  // one function used is typed here.
  const vl = (await import('vega-lite' as string)) as { compile(spec: unknown): { spec: import('vega').Spec } };
  const vega = await import('vega');
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
