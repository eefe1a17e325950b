// eval.md: the settings, one table row per model, and what each column means.
import type { EvalReport } from './evaluate';
import { METRIC_KEYS, ModelMetrics } from './metrics';

type MetricKey = (typeof METRIC_KEYS)[number];

/** Column header and number format of each metric. */
const COLUMNS: Record<MetricKey, { header: string; digits: number }> = {
  syntax_valid: { header: 'syntax_valid', digits: 3 },
  pass_at_1: { header: 'pass@1', digits: 3 },
  rm_score: { header: 'rm_score', digits: 3 },
  distinct_1: { header: 'distinct-1', digits: 3 },
  distinct_2: { header: 'distinct-2', digits: 3 },
  mean_len: { header: 'mean_len', digits: 1 },
  kl_to_sft: { header: 'kl_to_sft', digits: 2 },
};

export const METRIC_DESCRIPTIONS: Record<MetricKey, string> = {
  syntax_valid: 'fraction of responses that compile as Python (`compile()` in the sandbox); a blank response counts as invalid.',
  pass_at_1: 'fraction of problems whose single response passes every test assert in the sandbox (timeout, crash or any failed assert = fail).',
  rm_score: "mean reward-model score of (prompt, response), read at the end token as in the RM's training; n/a without a reward model. Only comparable between models scored by the same RM.",
  distinct_1: 'unique tokens / all tokens over all responses (n-grams never span two responses); low values mean repetition.',
  distinct_2: 'the same for token pairs.',
  mean_len: 'mean response length in tokens, without the end token.',
  kl_to_sft:
    'mean over responses of sum over its generated tokens (end token included) of log p_model - log p_sft, on the model\'s own responses. ' +
    'A one-sample estimate of KL(model || sft); with greedy decoding it is the log-likelihood ratio of the greedy response, so it can be ' +
    'negative. n/a for the SFT model itself and when there is no SFT model.',
};

function formatValue(v: number | null, digits: number): string {
  return v === null ? 'n/a' : v.toFixed(digits);
}

/** The markdown table of eval.md (also printed at the end of a run). */
export function formatTable(report: EvalReport): string {
  const header = ['model', ...METRIC_KEYS.map((k) => COLUMNS[k].header)];
  const rows = Object.entries(report.models).map(([name, m]) => [name, ...METRIC_KEYS.map((k) => formatValue(m[k as keyof ModelMetrics], COLUMNS[k].digits))]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => '| ' + cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(header), rule, ...rows.map(line)].join('\n');
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
  const lines = [
    '# Evaluation',
    '',
    `${report.n_problems} problems from \`${s.data}\`, one response per problem and model (${s.decoding}, at most ${s.maxNewTokens} new tokens, stop at the end token).`,
    `Reward model: ${s.rewardModel ? `\`${s.rewardModel}\`` : 'none'}. KL reference: ${s.klReference ? `\`${s.klReference}\`` : 'none'}.`,
    '',
    formatTable(report),
    '',
    ...(s.chart ? [`![rates per model](${s.chart})`, ''] : []),
    '## Metrics',
    '',
    ...METRIC_KEYS.map((k) => `- **${COLUMNS[k].header}**: ${METRIC_DESCRIPTIONS[k]}`),
    '',
    'Per-problem responses and outcomes are in `samples.jsonl`.',
    '',
  ];
  return lines.join('\n');
}
