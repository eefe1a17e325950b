// eval.json from the summarised decoding passes of every row (the models, then the stubs): each row's headline figures
// (the pass at its chosen temperature: greedy at 0, else the sampled one) with SEs, pass@k from the sampled pass, the
// dev figures the temperature was chosen by, the paired differences against the SFT model at its own chosen
// temperature with the problems that went up and down (flips), and per group of problems the same per-problem values
// restricted to the group; and per_problem.json, each row's per-problem headline outcomes (what eval:seeds averages).
import { flips, meanSe, paired, type Flips, type MeanSe, type PairedDiff } from '@rlhf-code/stats';
import type { EvalProblem } from './data';
import { compareModels, comparePassAtK, MetricKey, ModelMetrics, ModelSummary, PassAtK } from './metrics';

/** Stub rows are named `stub:<what>` (STUB_NAMES); a model's name cannot hold ':' (see models-flag.ts). */
export const isStubName = (name: string): boolean => name.startsWith('stub:');

/**
 * The control row: the SFT model trained on its own data for as many more optimizer steps as the RL rows (run_all.sh's
 * sft_more). When a row has this name, every other model (not SFT, not a stub) gets `vs_sft_more`: what RL adds
 * beyond more SFT.
 */
export const CONTROL_ROW = 'sft_more';

/** Rows compared with the control: models other than the SFT row and the control itself. */
export const comparedWithControl = (name: string, sftName: string | null): boolean => name !== CONTROL_ROW && name !== sftName && !isStubName(name);

/** How a row's answers were made: sampled at a temperature, greedy, or a stub's fixed program. */
export type Decoding = 'sampled' | 'greedy' | 'stub';

/** Greedy decoding's figures, reported beside the sampled ones (a greedy log-ratio is not a KL estimate). */
export type GreedyMetrics = Omit<ModelMetrics, 'kl_to_sft'> & { greedy_log_ratio: number | null };

/** pass@k keyed by k ("1", "2", "4", ...). */
export type PassAtKReport = Record<string, MeanSe>;

/** Dev pass@1 at one temperature. */
export interface DevReport {
  pass_at_1: number;
  se: number | null;
}

/**
 * This row minus the SFT model on the same problems, each at its chosen temperature; `flips`: the problems whose
 * pass@1 is above (up) and below (down) SFT's, with the exact sign test (McNemar's for 0/1 outcomes).
 */
export type Comparison = Record<MetricKey, PairedDiff | null> & { flips: Flips; pass_at_k?: Record<string, PairedDiff> };

/** pass@1 minus the SFT model's, paired per problem, with the flips (a group's comparison). */
export type PassAt1VsSft = PairedDiff & { flips: Flips };

/** pass@1 of `a` minus `b`, paired per problem, and its flips. */
export const passAt1VsSft = (a: readonly number[], b: readonly number[]): PassAt1VsSft => ({ ...paired(a, b), flips: flips(a, b) });

/** eval.json's entry for one model or stub: the headline figures' means, their SEs, and comparisons. */
export type ModelReport = ModelMetrics & {
  se: Record<MetricKey, number | null>;
  /** pass_at_1 of each seed's run (one value for a single run; eval:seeds: pass_at_1 is their mean). */
  pass_at_1_by_seed: number[];
  /** The seed-to-seed SD of pass_at_1 (null for a single run). */
  seed_sd: number | null;
  /** The decoding behind the figures above: 0 = greedy; null for a stub. */
  temperature: number | null;
  /** The temperature of the sampled pass (pass@k's), null when none ran (greedy only, stubs). */
  sampling_temperature: number | null;
  /** With dev data: dev pass@1 per candidate temperature (keyed "0", "0.2", ...), which chose `temperature`. */
  dev?: Record<string, DevReport>;
  /** From the sampled pass; absent for greedy-only models and stubs. */
  pass_at_k?: PassAtKReport;
  /** Absent for the SFT model itself and without one. */
  vs_sft?: Comparison;
  /** pass@1 minus the control row's (CONTROL_ROW), paired per problem, with the flips; models only, when the control ran. */
  vs_sft_more?: PassAt1VsSft;
  greedy?: GreedyMetrics;
  /** When the headline is greedy: log p_model - log p_sft of the greedy answer, averaged; kl_to_sft is then null. */
  greedy_log_ratio?: number | null;
};

/** One row's figures on one group of problems. */
export interface GroupModelReport {
  pass_at_1: number;
  /** pass_at_1's. */
  se: number | null;
  tests_passed: number;
  pass_at_1_by_seed: number[];
  seed_sd: number | null;
  /** pass_at_1 minus the SFT model's, paired on the group's problems, with the flips. */
  vs_sft?: PassAt1VsSft;
  /** pass_at_1 minus the control row's (CONTROL_ROW) on the group's problems, with the flips. */
  vs_sft_more?: PassAt1VsSft;
  pass_at_k?: PassAtKReport;
}

export interface GroupReport {
  n_problems: number;
  models: Record<string, GroupModelReport>;
}

/** eval.json */
export interface EvalReport {
  n_problems: number;
  /** Runs of the pipeline averaged (eval:seeds); 1 for one eval:run. */
  n_seeds: number;
  /** Answers per problem of the sampled passes (0: greedy only, then the means are the greedy figures). */
  samples_per_problem: number;
  /** The models' common temperature; null when they were compared at different ones (or greedy only, as before). */
  temperature: number | null;
  models: Record<string, ModelReport>;
  /** Problems that carry a `group`, by group (absent when none does). */
  groups?: Record<string, GroupReport>;
}

/** per_problem.json: each row's per-problem headline outcomes, in the problems' order (eval:seeds averages them). */
export interface PerProblemReport {
  task_ids: (number | string)[];
  /** Each problem's group (null: none); absent when no problem has one. */
  groups?: (string | null)[];
  /** The row the others are compared with (vs_sft), or null. */
  sft: string | null;
  models: Record<string, { pass_at_1: number[]; tests_passed: number[] }>;
}

/** One row's summarised passes and how its headline was chosen. */
export interface Row {
  name: string;
  passes: Partial<Record<Decoding, ModelSummary>>;
  headline: Decoding;
  temperature: number | null;
  samplingTemperature: number | null;
  dev?: Record<string, DevReport>;
}

const headline = (r: Row): ModelSummary => r.passes[r.headline]!;

const passAtKReport = (curve: Record<string, PassAtK>): PassAtKReport =>
  Object.fromEntries(Object.entries(curve).map(([k, { mean, se }]) => [k, { mean, se }]));

function modelReport(row: Row, sft: Row | undefined, control: Row | undefined): ModelReport {
  const s = headline(row);
  const model: ModelReport = { ...s.metrics, se: s.se, pass_at_1_by_seed: [s.metrics.pass_at_1], seed_sd: null, temperature: row.temperature, sampling_temperature: row.samplingTemperature };
  if (row.dev) model.dev = row.dev;
  const sampled = row.passes.sampled;
  if (sampled) model.pass_at_k = passAtKReport(sampled.passAtK);
  if (sft && sft !== row) {
    model.vs_sft = { ...compareModels(s, headline(sft)), flips: flips(s.perProblem.pass_at_1!, headline(sft).perProblem.pass_at_1!) };
    if (sampled && sft.passes.sampled) model.vs_sft.pass_at_k = comparePassAtK(sampled, sft.passes.sampled);
  }
  if (control && comparedWithControl(row.name, sft?.name ?? null)) model.vs_sft_more = passAt1VsSft(s.perProblem.pass_at_1!, headline(control).perProblem.pass_at_1!);
  if (row.headline === 'greedy') {
    // the log-ratio of one greedy answer per problem is not an estimate of the KL, so it is not named one
    model.greedy_log_ratio = model.kl_to_sft;
    model.kl_to_sft = null;
    model.se = { ...model.se, kl_to_sft: null };
  }
  if (sampled && row.passes.greedy) {
    const { kl_to_sft: greedyLogRatio, ...rest } = row.passes.greedy.metrics;
    model.greedy = { ...rest, greedy_log_ratio: greedyLogRatio };
  }
  return model;
}

/** Each group's problem indices (from each problem's group, if any), groups in order of first appearance. */
export function problemGroups(labels: readonly (string | null | undefined)[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  labels.forEach((g, i) => {
    if (g !== undefined && g !== null) groups.set(g, [...(groups.get(g) ?? []), i]);
  });
  return groups;
}

function groupModelReport(row: Row, sft: Row | undefined, control: Row | undefined, indices: readonly number[]): GroupModelReport {
  const pick = (xs: readonly number[]) => indices.map((i) => xs[i]);
  const s = headline(row);
  const pass = meanSe(pick(s.perProblem.pass_at_1!));
  const out: GroupModelReport = { pass_at_1: pass.mean, se: pass.se, tests_passed: meanSe(pick(s.perProblem.tests_passed!)).mean, pass_at_1_by_seed: [pass.mean], seed_sd: null };
  if (sft && sft !== row) out.vs_sft = passAt1VsSft(pick(s.perProblem.pass_at_1!), pick(headline(sft).perProblem.pass_at_1!));
  if (control && comparedWithControl(row.name, sft?.name ?? null)) out.vs_sft_more = passAt1VsSft(pick(s.perProblem.pass_at_1!), pick(headline(control).perProblem.pass_at_1!));
  const sampled = row.passes.sampled;
  if (sampled) out.pass_at_k = Object.fromEntries(Object.entries(sampled.passAtK).map(([k, v]) => [k, meanSe(pick(v.perProblem))]));
  return out;
}

export interface ReportContext {
  problems: readonly EvalProblem[];
  /** --samples (0: greedy only). */
  samples: number;
  /** The row every other is compared with (the KL reference when it is one of the models), or null. */
  sftName: string | null;
}

export function assembleReport(rows: readonly Row[], ctx: ReportContext): EvalReport {
  const sft = rows.find((r) => r.name === ctx.sftName);
  const control = rows.find((r) => r.name === CONTROL_ROW);
  const temperatures = new Set(rows.filter((r) => r.headline !== 'stub').map((r) => r.temperature));
  const report: EvalReport = {
    n_problems: ctx.problems.length,
    n_seeds: 1,
    samples_per_problem: ctx.samples,
    temperature: ctx.samples > 0 && temperatures.size === 1 ? [...temperatures][0] : null,
    models: Object.fromEntries(rows.map((r) => [r.name, modelReport(r, sft, control)])),
  };
  const groups = problemGroups(ctx.problems.map((p) => p.group));
  if (groups.size > 0) {
    report.groups = Object.fromEntries(
      [...groups].map(([name, indices]) => [name, { n_problems: indices.length, models: Object.fromEntries(rows.map((r) => [r.name, groupModelReport(r, sft, control, indices)])) }]),
    );
  }
  return report;
}

/** per_problem.json of the rows assembleReport reported. */
export function perProblemReport(rows: readonly Row[], ctx: ReportContext): PerProblemReport {
  const grouped = ctx.problems.some((p) => p.group !== undefined);
  return {
    task_ids: ctx.problems.map((p) => p.taskId),
    ...(grouped ? { groups: ctx.problems.map((p) => p.group ?? null) } : {}),
    sft: rows.find((r) => r.name === ctx.sftName)?.name ?? null,
    models: Object.fromEntries(rows.map((r) => [r.name, { pass_at_1: headline(r).perProblem.pass_at_1!, tests_passed: headline(r).perProblem.tests_passed! }])),
  };
}
