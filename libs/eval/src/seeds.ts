// eval:seeds: one eval.json / eval.md from several runs of the whole pipeline (one per seed), each an eval:run output
// folder. Per model, pass_at_1 is the mean of the runs' pass@1 (pass_at_1_by_seed, seed_sd beside it); the comparison
// with SFT (paired difference, SE over problems, CI95, flips) is computed on each problem's outcome averaged over the
// runs (their per_problem.json); the other figures are the runs' means without an SE. The same per group.
import * as fs from 'fs';
import * as path from 'path';
import { flips, meanSe, paired } from '@rlhf-code/stats';
import type { EvalReport, GroupModelReport, ModelReport, PerProblemReport } from './evaluate';
import { comparedWithControl, CONTROL_ROW, passAt1VsSft, problemGroups } from './eval-json';
import { METRIC_KEYS, MetricKey } from './metrics';
import { formatMarkdown } from './report';
import { OUTPUT_FILES, writeReport } from './write';

/** A run folder that cannot be averaged with the others; the message names the folder. */
export class SeedRunsError extends Error {}

/** One eval:run output folder: its eval.json and per_problem.json. */
export interface SeedRun {
  dir: string;
  report: EvalReport;
  perProblem: PerProblemReport;
}

/** Read an eval:run output folder. */
export function readSeedRun(dir: string): SeedRun {
  const read = (file: string, missing: string) => {
    const f = path.join(dir, file);
    if (!fs.existsSync(f)) throw new SeedRunsError(`${dir}: no ${file} (${missing})`);
    return JSON.parse(fs.readFileSync(f, 'utf8'));
  };
  const report: EvalReport = read(OUTPUT_FILES.json, 'give folders that eval:run --out wrote');
  if (report.n_seeds !== 1) throw new SeedRunsError(`${dir}: already the mean of ${report.n_seeds ?? 'an unknown number of'} seeds; give the folders of single eval:run runs`);
  const perProblem: PerProblemReport = read(OUTPUT_FILES.perProblem, 'older eval:run folders lack it; evaluate again');
  return { dir, report, perProblem };
}

const mean = (xs: readonly number[]) => meanSe(xs).mean;

/** The mean over runs; null when any run has none. */
const runsMean = (xs: readonly (number | null | undefined)[]): number | null => (xs.every((x) => typeof x === 'number') ? mean(xs as number[]) : null);

/** The value every run has, or null when they differ (e.g. a temperature chosen on dev). */
const common = <T>(xs: readonly T[]): T | null => (xs.every((x) => x === xs[0]) ? xs[0] : null);

/** Each problem's mean over the runs. */
const perProblemMean = (vectors: readonly (readonly number[])[]) => vectors[0].map((_, i) => mean(vectors.map((v) => v[i])));

/** The seed-to-seed standard deviation (n - 1); null with one run. */
function seedSd(bySeed: readonly number[]): number | null {
  const { se } = meanSe(bySeed);
  return se === null ? null : se * Math.sqrt(bySeed.length);
}

/** pass@k as the runs' means (no SE), when every run has it. */
function passAtKMean(tables: readonly (Record<string, { mean: number }> | undefined)[]) {
  if (!tables.every((t) => t)) return undefined;
  const ks = Object.keys(tables[0]!).filter((k) => tables.every((t) => k in t!));
  return Object.fromEntries(ks.map((k) => [k, { mean: mean(tables.map((t) => t![k].mean)), se: null }]));
}

const names = (xs: readonly string[]) => xs.join(', ') || 'none';

/** The runs must have evaluated the same problems (and groups) and the same rows, compared with the same SFT row. */
function checkRuns(runs: readonly SeedRun[]): void {
  if (runs.length === 0) throw new SeedRunsError('no runs to average');
  const first = runs[0];
  for (const r of runs) {
    const evalNames = Object.keys(r.report.models);
    const problemNames = Object.keys(r.perProblem.models);
    if (names(evalNames) !== names(problemNames)) {
      throw new SeedRunsError(`${r.dir}: eval.json has rows ${names(evalNames)} but per_problem.json ${names(problemNames)}; write both with one eval:run`);
    }
    if (r === first) continue;
    const [a, b] = [first.perProblem.task_ids, r.perProblem.task_ids];
    const at = a.findIndex((id, i) => i < b.length && id !== b[i]);
    if (a.length !== b.length || at >= 0) {
      const where = at >= 0 ? `; problem ${at + 1} is task ${JSON.stringify(b[at])} against ${JSON.stringify(a[at])}` : '';
      throw new SeedRunsError(`${r.dir}: ${b.length} problems against ${a.length} in ${first.dir}${where}; every run must evaluate the same problems`);
    }
    if (JSON.stringify(first.perProblem.groups) !== JSON.stringify(r.perProblem.groups)) {
      throw new SeedRunsError(`${r.dir}: the problems' groups differ from those in ${first.dir}; every run must evaluate the same problems`);
    }
    const rows = Object.keys(first.report.models);
    if (names(rows) !== names(evalNames)) throw new SeedRunsError(`${r.dir}: rows ${names(evalNames)} against ${names(rows)} in ${first.dir}; every run must evaluate the same models`);
    if (r.perProblem.sft !== first.perProblem.sft) {
      throw new SeedRunsError(`${r.dir}: compared with ${r.perProblem.sft ?? 'no SFT row'} against ${first.perProblem.sft ?? 'no SFT row'} in ${first.dir}`);
    }
  }
}

/** The runs' eval.json and per_problem.json averaged: the same shapes as one run's, with n_seeds = runs.length. */
export function averageSeeds(runs: readonly SeedRun[]): { report: EvalReport; perProblem: PerProblemReport } {
  checkRuns(runs);
  const first = runs[0].perProblem;
  const sft = first.sft;
  const rows = Object.keys(first.models);
  const control = rows.includes(CONTROL_ROW) ? CONTROL_ROW : null;
  // Each row's per-problem outcomes averaged over the runs.
  const outcomes = Object.fromEntries(
    rows.map((m) => [
      m,
      {
        pass_at_1: perProblemMean(runs.map((r) => r.perProblem.models[m].pass_at_1)),
        tests_passed: perProblemMean(runs.map((r) => r.perProblem.models[m].tests_passed)),
      },
    ]),
  );

  const modelReport = (m: string): ModelReport => {
    const reports = runs.map((r) => r.report.models[m]);
    const bySeed = reports.map((x) => x.pass_at_1);
    const metrics = Object.fromEntries(METRIC_KEYS.map((k) => [k, runsMean(reports.map((x) => x[k]))]));
    const se = Object.fromEntries(METRIC_KEYS.map((k) => [k, null])) as Record<MetricKey, number | null>;
    se.pass_at_1 = meanSe(outcomes[m].pass_at_1).se;
    se.tests_passed = meanSe(outcomes[m].tests_passed).se;
    const out = {
      ...metrics,
      pass_at_1: mean(bySeed),
      se,
      pass_at_1_by_seed: bySeed,
      seed_sd: seedSd(bySeed),
      temperature: common(reports.map((x) => x.temperature)),
      sampling_temperature: common(reports.map((x) => x.sampling_temperature)),
    } as ModelReport;
    const passAtK = passAtKMean(reports.map((x) => x.pass_at_k));
    if (passAtK) out.pass_at_k = passAtK;
    if (sft !== null && m !== sft) {
      const [a, b] = [outcomes[m], outcomes[sft]];
      const none = Object.fromEntries(METRIC_KEYS.map((k) => [k, null])) as Record<MetricKey, null>;
      out.vs_sft = { ...none, pass_at_1: paired(a.pass_at_1, b.pass_at_1), tests_passed: paired(a.tests_passed, b.tests_passed), flips: flips(a.pass_at_1, b.pass_at_1) };
    }
    if (control && comparedWithControl(m, sft)) out.vs_sft_more = passAt1VsSft(outcomes[m].pass_at_1, outcomes[control].pass_at_1);
    if (reports.every((x) => x.greedy_log_ratio !== undefined)) out.greedy_log_ratio = runsMean(reports.map((x) => x.greedy_log_ratio));
    return out;
  };

  const groupModelReport = (m: string, g: string, indices: readonly number[]): GroupModelReport => {
    const pick = (xs: readonly number[]) => indices.map((i) => xs[i]);
    const bySeed = runs.map((r) => mean(pick(r.perProblem.models[m].pass_at_1)));
    const out: GroupModelReport = {
      pass_at_1: mean(bySeed),
      se: meanSe(pick(outcomes[m].pass_at_1)).se,
      tests_passed: mean(pick(outcomes[m].tests_passed)),
      pass_at_1_by_seed: bySeed,
      seed_sd: seedSd(bySeed),
    };
    if (sft !== null && m !== sft) out.vs_sft = passAt1VsSft(pick(outcomes[m].pass_at_1), pick(outcomes[sft].pass_at_1));
    if (control && comparedWithControl(m, sft)) out.vs_sft_more = passAt1VsSft(pick(outcomes[m].pass_at_1), pick(outcomes[control].pass_at_1));
    const passAtK = passAtKMean(runs.map((r) => r.report.groups?.[g]?.models[m]?.pass_at_k));
    if (passAtK) out.pass_at_k = passAtK;
    return out;
  };

  const reports = runs.map((r) => r.report);
  const report: EvalReport = {
    n_problems: first.task_ids.length,
    n_seeds: runs.length,
    samples_per_problem: reports[0].samples_per_problem,
    temperature: common(reports.map((r) => r.temperature)),
    models: Object.fromEntries(rows.map((m) => [m, modelReport(m)])),
  };
  const groups = problemGroups(first.groups ?? []);
  if (groups.size > 0) {
    report.groups = Object.fromEntries(
      [...groups].map(([g, indices]) => [g, { n_problems: indices.length, models: Object.fromEntries(rows.map((m) => [m, groupModelReport(m, g, indices)])) }]),
    );
  }
  return { report, perProblem: { ...first, models: outcomes } };
}

/** Average the eval:run folders `dirs` and write eval.json, per_problem.json and eval.md into `outDir`. */
export async function writeSeeds(dirs: readonly string[], outDir: string): Promise<{ report: EvalReport; written: string[] }> {
  const { report, perProblem } = averageSeeds(dirs.map(readSeedRun));
  const written = await writeReport(outDir, report, perProblem, formatMarkdown(report, { runs: [...dirs] }));
  return { report, written };
}
