// eval.md: the settings, the table of means with standard errors, the paired differences against the SFT model,
// the greedy figures, and what each column means.
import type { EvalReport, ModelReport } from './evaluate';
import { METRIC_KEYS, MetricKey } from './metrics';
import type { PairedDiff } from '@rlhf-code/stats';

/** Column header and number format of each metric. */
const COLUMNS: Record<MetricKey, { header: string; digits: number }> = {
  syntax_valid: { header: 'syntax_valid', digits: 3 },
  pass_at_1: { header: 'pass@1', digits: 3 },
  exec_score: { header: 'exec_score', digits: 3 },
  defines_called_function: { header: 'defines_fn', digits: 3 },
  rm_score: { header: 'rm_score', digits: 3 },
  distinct_1: { header: 'distinct-1', digits: 3 },
  distinct_2: { header: 'distinct-2', digits: 3 },
  mean_len: { header: 'mean_len', digits: 1 },
  kl_to_sft: { header: 'kl_to_sft', digits: 2 },
};

export const METRIC_DESCRIPTIONS: Record<MetricKey, string> = {
  syntax_valid: 'fraction of responses that compile as Python (`compile()` in the sandbox); a blank response counts as invalid.',
  pass_at_1:
    'probability that one response passes every test assert in the sandbox (timeout, crash or any failed assert = fail): per problem ' +
    'the unbiased pass@1 estimator from its k samples (Chen et al. 2021), c / k, then the mean over problems.',
  exec_score:
    "the sandbox's ground-truth score in 0..1, the formula that scores rm_data: 0.3 compiles + 0.5 share of tests passed + 0.2 quality " +
    '(ran cleanly, defines a function, reasonable size); 0 for an answer with no statement (blank or comments only).',
  defines_called_function: 'fraction of responses that define (`def name(`) the function(s) the tests call.',
  rm_score: "mean reward-model score of (prompt, response), read at the end token as in the RM's training; n/a without a reward model. Only comparable between models scored by the same RM.",
  distinct_1: 'unique tokens / all tokens over all responses (n-grams never span two responses); low values mean repetition. SE by the jackknife over problems.',
  distinct_2: 'the same for token pairs.',
  mean_len: 'mean response length in tokens, without the end token.',
  kl_to_sft:
    'estimate of KL(model || sft): the mean over sampled responses of the sum over their generated tokens (end token included) of ' +
    'log p_model - log p_sft, both at the sampling temperature. n/a for the SFT model itself and when there is no SFT model.',
};

const fmt = (v: number | null | undefined, digits: number) => (v === null || v === undefined ? 'n/a' : v.toFixed(digits));

/** A markdown table, first column left-aligned, the others right-aligned. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => '| ' + cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The markdown table of means +- SE (also printed at the end of a run). */
export function formatTable(report: EvalReport): string {
  const cell = (m: ModelReport, k: MetricKey) => {
    const v = fmt(m[k], COLUMNS[k].digits);
    const se = m.se[k];
    return v === 'n/a' || se === null || se === undefined ? v : `${v} ± ${se.toFixed(COLUMNS[k].digits)}`;
  };
  if (report.samples_per_problem === 0) {
    // greedy only: a log-ratio column instead of the KL estimate
    const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft');
    return table(
      ['model', ...keys.map((k) => COLUMNS[k].header), 'log_ratio'],
      Object.entries(report.models).map(([name, m]) => [name, ...keys.map((k) => cell(m, k)), fmt(m.greedy_log_ratio ?? null, 2)]),
    );
  }
  return table(['model', ...METRIC_KEYS.map((k) => COLUMNS[k].header)], Object.entries(report.models).map(([name, m]) => [name, ...METRIC_KEYS.map((k) => cell(m, k))]));
}

/** Paired differences against the SFT model: diff ± SE [95% CI], or '' when no model has them. */
export function formatComparisons(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.vs_sft);
  if (rows.length === 0) return '';
  const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft');
  const cell = (d: PairedDiff | null, k: MetricKey) => {
    if (!d) return 'n/a';
    const digits = COLUMNS[k].digits;
    const ci = d.ci95 ? ` [${d.ci95[0].toFixed(digits)}, ${d.ci95[1].toFixed(digits)}]` : '';
    return `${d.diff >= 0 ? '+' : ''}${d.diff.toFixed(digits)}${d.se === null ? '' : ` ± ${d.se.toFixed(digits)}`}${ci}`;
  };
  return table(['model - sft', ...keys.map((k) => COLUMNS[k].header)], rows.map(([name, m]) => [name, ...keys.map((k) => cell(m.vs_sft![k], k))]));
}

/** The greedy figures, or '' when there are none beside the sampled ones. */
export function formatGreedy(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.greedy);
  if (rows.length === 0) return '';
  const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft') as Exclude<MetricKey, 'kl_to_sft'>[];
  return table(
    ['model (greedy)', ...keys.map((k) => COLUMNS[k].header), 'log_ratio'],
    rows.map(([name, m]) => [name, ...keys.map((k) => fmt(m.greedy![k], COLUMNS[k].digits)), fmt(m.greedy!.greedy_log_ratio, 2)]),
  );
}

export interface ReportSettings {
  data: string;
  decoding: string;
  maxNewTokens: number;
  rewardModel: string | null;
  klReference: string | null;
  /** Chart file name next to eval.md, or null when none was written. */
  chart: string | null;
}

/** The whole eval.md. */
export function formatMarkdown(report: EvalReport, s: ReportSettings): string {
  const k = report.samples_per_problem;
  const what =
    k > 0
      ? `${k} responses per problem and model sampled at temperature ${report.temperature}`
      : 'one greedy response per problem and model (log_ratio: log p_model - log p_sft of the greedy response, not a KL estimate)';
  const comparisons = formatComparisons(report);
  const greedy = formatGreedy(report);
  const lines = [
    '# Evaluation',
    '',
    `${report.n_problems} problems from \`${s.data}\`, ${what} (${s.decoding}, at most ${s.maxNewTokens} new tokens, stop at the end token).`,
    `Reward model: ${s.rewardModel ? `\`${s.rewardModel}\`` : 'none'}. KL reference: ${s.klReference ? `\`${s.klReference}\`` : 'none'}.`,
    'Each cell is the mean over problems ± its standard error across problems.',
    '',
    formatTable(report),
    '',
    ...(comparisons
      ? ['## Against the SFT model', '', 'Paired per problem: mean difference ± SE [95% confidence interval]. An interval that excludes 0 is a difference beyond noise.', '', comparisons, '']
      : []),
    ...(greedy ? ['## Greedy decoding', '', 'One greedy response per problem (log_ratio: log p_model - log p_sft of the greedy response, not a KL estimate).', '', greedy, ''] : []),
    ...(s.chart ? [`![rates per model](${s.chart})`, ''] : []),
    '## Metrics',
    '',
    ...METRIC_KEYS.map((key) => `- **${COLUMNS[key].header}**: ${METRIC_DESCRIPTIONS[key]}`),
    '',
    'Per-response outcomes are in `samples.jsonl`.',
    '',
  ];
  return lines.join('\n');
}
