// eval.md: the settings, the table of means with standard errors (each model at its chosen temperature, the stubs
// beside them, the problems up and down against SFT), the seeds table (eval:seeds), pass@k, the dev pass@1 each
// temperature was chosen by, the paired differences against the SFT model, the greedy figures, one pass@1 table per
// group of problems, and what each column means.
import type { EvalReport, ModelReport } from './evaluate';
import { CONTROL_ROW, isStubName } from './eval-json';
import { METRIC_KEYS, MetricKey } from './metrics';
import { markdownTable } from '@rlhf-code/cli';
import type { Flips, MeanSe, PairedDiff } from '@rlhf-code/stats';

/** Column header and number format of each metric. */
const COLUMNS: Record<MetricKey, { header: string; digits: number }> = {
  syntax_valid: { header: 'syntax_valid', digits: 3 },
  pass_at_1: { header: 'pass@1', digits: 3 },
  exec_score: { header: 'exec_score', digits: 3 },
  tests_passed: { header: 'tests_passed', digits: 3 },
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
    'the unbiased pass@1 estimator from its k samples (Chen et al. 2021), c / k, then the mean over problems. The headline metric.',
  exec_score:
    'the default RL reward: 1 when every test passes, -0.1 when the code does not compile, else 0 ' +
    "(libs/sandbox executionScore; 0 for an answer with no statement, blank or comments only).",
  tests_passed:
    'share of the problem\'s test asserts that passed, averaged over samples then problems. A diagnostic, not a goal: trivial programs earn it ' +
    '(`return False` passes `assert is_prime(4) == False`), see the stub rows.',
  defines_called_function: 'fraction of responses that define (`def name(`) the function(s) the tests call.',
  rm_score: "mean reward-model score of (prompt, response), read at the end token as in the RM's training; n/a without a reward model. Only comparable between models scored by the same RM.",
  distinct_1: 'unique tokens / all tokens over all responses (n-grams never span two responses); low values mean repetition. SE by the jackknife over problems.',
  distinct_2: 'the same for token pairs.',
  mean_len: 'mean response length in tokens, without the end token (for stubs, in tokens of the first model\'s tokenizer).',
  kl_to_sft:
    'estimate of KL(model || sft): the mean over sampled responses of the sum over their generated tokens (end token included) of ' +
    'log p_model - log p_sft, both at the sampling temperature. n/a for the SFT model itself, for stubs, and when there is no SFT model.',
};

const fmt = (v: number | null | undefined, digits: number) => (v === null || v === undefined ? 'n/a' : v.toFixed(digits));

/** `mean ± se`, or the mean alone without an SE. */
const withSe = (v: number | null | undefined, se: number | null | undefined, digits: number) => {
  const m = fmt(v, digits);
  return m === 'n/a' || se === null || se === undefined ? m : `${m} ± ${se.toFixed(digits)}`;
};

/** A paired difference: `+diff ± SE [95% CI]`. */
const diffCell = (d: PairedDiff | null | undefined, digits: number) => {
  if (!d) return 'n/a';
  const ci = d.ci95 ? ` [${d.ci95[0].toFixed(digits)}, ${d.ci95[1].toFixed(digits)}]` : '';
  return `${d.diff >= 0 ? '+' : ''}${d.diff.toFixed(digits)}${d.se === null ? '' : ` ± ${d.se.toFixed(digits)}`}${ci}`;
};

/** Flips against SFT: `up / down (p)`. */
const flipsCell = (f: Flips | undefined) => (f ? `${f.up} / ${f.down} (${f.p < 0.001 ? f.p.toExponential(1) : f.p.toFixed(3)})` : 'n/a');

const FLIPS_HEADER = 'up / down (p)';

const FLIPS_DESCRIPTION =
  "problems whose pass@1 is above (up) and below (down) the SFT model's, each at its chosen temperature (ties left out), " +
  "and p, the exact two-sided sign test of up against down, p = min(1, 2 P(X <= min(up, down))), X ~ Bin(up + down, 1/2). For 0/1 outcomes " +
  "(greedy) it is McNemar's exact test; with fractional outcomes (sampled pass@1, or the mean over seeds) any difference of a problem's rate counts.";

/** A decoding temperature as a table cell: 0 is greedy; null (stubs) is n/a. */
const temperatureCell = (t: number | null | undefined) => (t === null || t === undefined ? 'n/a' : t === 0 ? 'greedy' : String(t));

/** The numeric keys (k of pass@k, temperatures) some row has, in increasing order. */
const sortedKeys = (tables: readonly Record<string, unknown>[]) => [...new Set(tables.flatMap((t) => Object.keys(t)))].sort((a, b) => Number(a) - Number(b));

/**
 * The markdown table of means +- SE (also printed at the end of a run), with each model's temperature. A greedy
 * headline has log_ratio (log p_model - log p_sft of the greedy response) instead of a KL estimate; greedy-only runs
 * have no kl_to_sft column.
 */
export function formatTable(report: EvalReport): string {
  const models = Object.entries(report.models);
  const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft' || report.samples_per_problem > 0);
  const logRatio = models.some(([, m]) => m.greedy_log_ratio !== undefined);
  const vsSft = models.some(([, m]) => m.vs_sft);
  const cells = (m: ModelReport) =>
    keys.flatMap((k) => [withSe(m[k], m.se[k], COLUMNS[k].digits), ...(k === 'pass_at_1' && vsSft ? [flipsCell(m.vs_sft?.flips)] : [])]);
  return markdownTable(
    ['model', 'temperature', ...keys.flatMap((k) => [COLUMNS[k].header, ...(k === 'pass_at_1' && vsSft ? [FLIPS_HEADER] : [])]), ...(logRatio ? ['log_ratio'] : [])],
    models.map(([name, m]) => [name, temperatureCell(m.temperature), ...cells(m), ...(logRatio ? [fmt(m.greedy_log_ratio, 2)] : [])]),
  );
}

/** pass@1 of every run (eval:seeds) per model, their mean and seed-to-seed SD; '' for a single run. */
export function formatSeeds(report: EvalReport): string {
  if (report.n_seeds < 2) return '';
  const runs = Array.from({ length: report.n_seeds }, (_, i) => `run ${i + 1}`);
  return markdownTable(
    ['model', ...runs, 'mean', 'seed sd'],
    Object.entries(report.models).map(([name, m]) => [name, ...m.pass_at_1_by_seed.map((x) => fmt(x, 3)), fmt(m.pass_at_1, 3), fmt(m.seed_sd, 3)]),
  );
}

/** Paired differences against the SFT model: diff ± SE [95% CI], or '' when no model has them. */
export function formatComparisons(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.vs_sft);
  if (rows.length === 0) return '';
  const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft');
  return markdownTable(['model - sft', ...keys.map((k) => COLUMNS[k].header)], rows.map(([name, m]) => [name, ...keys.map((k) => diffCell(m.vs_sft![k], COLUMNS[k].digits))]));
}

/**
 * pass@1 minus the control row's (more SFT for as many steps as RL), paired per problem, with the flips: on all problems
 * and on each group; '' when no model has the comparison.
 */
export function formatControl(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.vs_sft_more);
  if (rows.length === 0) return '';
  const groups = Object.entries(report.groups ?? {});
  const pair = (d: (PairedDiff & { flips: Flips }) | undefined) => [diffCell(d, 3), flipsCell(d?.flips)];
  return markdownTable(
    [`model - ${CONTROL_ROW}`, `pass@1 (${report.n_problems})`, FLIPS_HEADER, ...groups.flatMap(([g, r]) => [`${g} (${r.n_problems})`, FLIPS_HEADER])],
    rows.map(([name, m]) => [name, ...pair(m.vs_sft_more), ...groups.flatMap(([, r]) => pair(r.models[name]?.vs_sft_more))]),
  );
}

/** pass@k ± SE per model (from its sampled answers), then the paired differences with SFT; '' when no model has pass@k. */
export function formatPassAtK(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.pass_at_k);
  if (rows.length === 0) return '';
  const ks = sortedKeys(rows.map(([, m]) => m.pass_at_k!));
  const cell = (v: MeanSe | undefined) => withSe(v?.mean, v?.se, 3);
  const means = markdownTable(
    ['model', 'sampled at', ...ks.map((k) => `pass@${k}`)],
    rows.map(([name, m]) => [name, temperatureCell(m.sampling_temperature), ...ks.map((k) => cell(m.pass_at_k![k]))]),
  );
  const diffs = rows.filter(([, m]) => m.vs_sft?.pass_at_k);
  if (diffs.length === 0) return means;
  return [means, '', markdownTable(['model - sft', ...ks.map((k) => `pass@${k}`)], diffs.map(([name, m]) => [name, ...ks.map((k) => diffCell(m.vs_sft!.pass_at_k![k], 3))]))].join('\n');
}

/** Dev pass@1 ± SE per model and candidate temperature, the chosen one marked `*`; '' without dev data. */
export function formatDev(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.dev);
  if (rows.length === 0) return '';
  const temperatures = sortedKeys(rows.map(([, m]) => m.dev!));
  const cell = (m: ModelReport, t: string) => {
    const d = m.dev![t];
    if (!d) return 'n/a';
    return withSe(d.pass_at_1, d.se, 3) + (Number(t) === m.temperature ? ' *' : '');
  };
  return markdownTable(['model', ...temperatures.map((t) => temperatureCell(Number(t)))], rows.map(([name, m]) => [name, ...temperatures.map((t) => cell(m, t))]));
}

/** The greedy figures, or '' when there are none beside the sampled ones. */
export function formatGreedy(report: EvalReport): string {
  const rows = Object.entries(report.models).filter(([, m]) => m.greedy);
  if (rows.length === 0) return '';
  const keys = METRIC_KEYS.filter((k) => k !== 'kl_to_sft') as Exclude<MetricKey, 'kl_to_sft'>[];
  return markdownTable(
    ['model (greedy)', ...keys.map((k) => COLUMNS[k].header), 'log_ratio'],
    rows.map(([name, m]) => [name, ...keys.map((k) => fmt(m.greedy![k], COLUMNS[k].digits)), fmt(m.greedy!.greedy_log_ratio, 2)]),
  );
}

/** One section per group of problems: pass@1 ± SE, tests_passed, and pass@1 minus SFT's; '' without groups. */
export function formatGroups(report: EvalReport): string {
  const groups = Object.entries(report.groups ?? {});
  return groups
    .map(([name, g]) => {
      const rows = Object.entries(g.models);
      const vsSft = rows.some(([, m]) => m.vs_sft);
      const t = markdownTable(
        ['model', 'pass@1', 'tests_passed', ...(vsSft ? ['pass@1 - sft', FLIPS_HEADER] : [])],
        rows.map(([model, m]) => [model, withSe(m.pass_at_1, m.se, 3), fmt(m.tests_passed, 3), ...(vsSft ? [diffCell(m.vs_sft, 3), flipsCell(m.vs_sft?.flips)] : [])]),
      );
      return [`### ${name} (${g.n_problems} problem${g.n_problems === 1 ? '' : 's'})`, '', t].join('\n');
    })
    .join('\n\n');
}

export interface ReportSettings {
  data: string;
  decoding: string;
  maxNewTokens: number;
  rewardModel: string | null;
  klReference: string | null;
  /** Chart file name next to eval.md, or null when none was written. */
  chart: string | null;
  /** The dev data each model's temperature was chosen on, when there was some. */
  dev?: { data: string; problems: number; samples: number } | null;
}

/** eval:seeds' eval.md: the run folders averaged (each run's own eval.md has its settings). */
export interface SeedsReportSettings {
  runs: string[];
}

/** What the main table's answers are. */
function decodingSummary(report: EvalReport): string {
  const k = report.samples_per_problem;
  if (k === 0) return 'one greedy response per problem and model (log_ratio: log p_model - log p_sft of the greedy response, not a KL estimate)';
  if (report.temperature !== null && report.temperature > 0) return `${k} responses per problem and model sampled at temperature ${report.temperature}`;
  return `each model at its own temperature (the temperature column: greedy is one response per problem, else ${k} sampled responses per problem)`;
}

/** A section: its heading, an explanation and its table; nothing when the table is empty. */
const section = (heading: string, text: string, body: string) => (body ? [heading, '', text, '', body, ''] : []);

/** The first lines of eval.md: what was evaluated, how. */
function intro(report: EvalReport, s: ReportSettings | SeedsReportSettings): string[] {
  if ('runs' in s) {
    return [
      `${report.n_problems} problems; the mean of ${s.runs.length} runs of the pipeline (one per seed): ${s.runs.map((d) => `\`${d}\``).join(', ')} (each run's eval.md has its settings).`,
      "Per problem, a model's outcome is its mean over the runs: pass@1 and tests_passed ± SE, the differences against SFT and the flips are over problems of these means; the other figures are the runs' means, without SE or comparison.",
    ];
  }
  return [
    `${report.n_problems} problems from \`${s.data}\`, ${decodingSummary(report)} (${s.decoding}, at most ${s.maxNewTokens} new tokens, stop at the end token).`,
    `Reward model: ${s.rewardModel ? `\`${s.rewardModel}\`` : 'none'}. KL reference: ${s.klReference ? `\`${s.klReference}\`` : 'none'}.`,
  ];
}

/** The whole eval.md: of one eval:run (ReportSettings) or of eval:seeds (SeedsReportSettings). */
export function formatMarkdown(report: EvalReport, s: ReportSettings | SeedsReportSettings): string {
  const stubs = Object.keys(report.models).some(isStubName);
  const run = 'runs' in s ? null : s;
  const lines = [
    '# Evaluation',
    '',
    ...intro(report, s),
    'Each cell is the mean over problems ± its standard error across problems.',
    ...(stubs
      ? ['Rows `stub:*` are trivial programs (nothing, the called function with `pass` or a constant return, echoing its first argument, the prompt itself): a metric on which a stub comes close to a model measures something other than solving the problem.']
      : []),
    '',
    formatTable(report),
    '',
    ...section(
      '## Seeds',
      "pass@1 of each run, their mean (the table's pass@1) and the seed-to-seed standard deviation (n - 1): how far one run of one seed moves the figure.",
      formatSeeds(report),
    ),
    ...section(
      '## Temperature',
      `Each model's temperature is the one with the best pass@1 on ${run?.dev ? `${run.dev.problems} dev problems from \`${run.dev.data}\` (${run.dev.samples} samples per temperature above 0, greedy once)` : 'dev problems'}; ties go to the lower temperature. * = chosen.`,
      formatDev(report),
    ),
    ...section(
      '## pass@k',
      `The unbiased estimator (Chen et al. 2021) per problem from the ${report.samples_per_problem} sampled responses (at each model's best sampling temperature), then mean ± SE over problems; below it the paired difference with the SFT model ± SE [95% CI].`,
      formatPassAtK(report),
    ),
    ...section(
      '## Against the SFT model',
      `Paired per problem, each model at its chosen temperature: mean difference ± SE [95% confidence interval]. An interval that excludes 0 is a difference beyond noise. The problems up and down are the main table's \`${FLIPS_HEADER}\`.`,
      formatComparisons(report),
    ),
    ...section(
      `## Against ${CONTROL_ROW}`,
      `pass@1 minus the control row \`${CONTROL_ROW}\` (the SFT model trained on its own data for as many more optimizer steps as RL took), paired per problem, each model at its chosen temperature: ± SE [95% CI], on all problems and per group, with the problems up and down against it: what RL adds beyond more SFT.`,
      formatControl(report),
    ),
    ...section('## Greedy decoding', 'One greedy response per problem (log_ratio: log p_model - log p_sft of the greedy response, not a KL estimate).', formatGreedy(report)),
    ...section('## Groups', 'The problems of each group alone: pass@1 ± SE, tests_passed, and pass@1 minus the SFT model\'s, paired per problem, ± SE [95% CI].', formatGroups(report)),
    ...(run?.chart ? [`![rates per model](${run.chart})`, ''] : []),
    '## Metrics',
    '',
    ...METRIC_KEYS.map((key) => `- **${COLUMNS[key].header}**: ${METRIC_DESCRIPTIONS[key]}`),
    `- **${FLIPS_HEADER}**: ${FLIPS_DESCRIPTION}`,
    '',
    run ? 'Per-response outcomes are in `samples.jsonl`.' : "Per-response outcomes are in each run's `samples.jsonl`.",
    '',
  ];
  return lines.join('\n');
}
