// `eval base-compare`: two `eval base` runs of the same settings (e.g. models/base v1 and v2), figure by figure, each
// difference (candidate - baseline) paired over the same held-out windows, FIM examples and functions, with its SE
// and 95% interval. Pairing removes the items' own difficulty from the noise; the held-out windows of one file are
// not independent, so the loss intervals are lower bounds (as eval base's loss_se).
import { existsSync, readFileSync, statSync } from 'fs';
import * as path from 'path';
import { paired } from '@rlhf-code/stats';
import { BASE_OUTPUT_FILES, type BaseEvalReport } from './base-eval';

export interface BaseCompareRow {
  figure: string;
  /** Windows, examples or functions both runs share. */
  n: number;
  baseline: number;
  candidate: number;
  /** candidate - baseline, of the reported figures. */
  diff: number;
  /** SE of the paired difference; null when a run lacks the per-item values (an eval base of before 2026-11-30). */
  se: number | null;
  ci95: [number, number] | null;
}

export class BaseCompareError extends Error {}

/** Read an `eval base` output: its folder (holding base_eval.json) or the file itself. */
export function readBaseEval(where: string, flag: string): BaseEvalReport {
  const file = existsSync(where) && statSync(where).isDirectory() ? path.join(where, BASE_OUTPUT_FILES.json) : where;
  if (!existsSync(file)) throw new BaseCompareError(`${flag}: ${file} does not exist (an eval base output folder, or its ${BASE_OUTPUT_FILES.json})`);
  let report: BaseEvalReport;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as BaseEvalReport;
  } catch (e) {
    throw new BaseCompareError(`${flag}: ${file} is not JSON (${(e as Error).message})`);
  }
  if (!report || typeof report !== 'object' || !report.heldout || !report.fim) throw new BaseCompareError(`${flag}: ${file} is not an eval base report (no heldout and fim sections)`);
  return report;
}

/** The figures of both runs, each difference paired over the items both measured. */
export function compareBaseEvals(baseline: BaseEvalReport, candidate: BaseEvalReport): BaseCompareRow[] {
  const rows: BaseCompareRow[] = [];
  // figure: its name; a, b: the two reported values; pa, pb: per-item values (undefined when a run lacks them).
  const add = (figure: string, a: number, b: number, pa: readonly number[] | undefined, pb: readonly number[] | undefined, n: number) => {
    let se: number | null = null;
    let half: number | null = null;
    if (pa && pb) {
      if (pa.length !== pb.length) {
        throw new BaseCompareError(`${figure}: the baseline has ${pa.length} items and the candidate ${pb.length}: run eval base on both with the same --corpus, --seq-len, --heldout-windows, --fim, --fim-split, --limit, --functions and --seed`);
      }
      // The interval's half-width from the per-item differences, centred on the difference of the reported figures
      // (the same for shares; a token-weighted loss differs from the mean of its windows by a hair).
      const p = paired(pb, pa);
      se = p.se;
      half = p.ci95 ? p.diff - p.ci95[0] : null;
    }
    rows.push({ figure, n, baseline: a, candidate: b, diff: b - a, se, ci95: half === null ? null : [b - a - half, b - a + half] });
  };
  const sameCount = (figure: string, na: number, nb: number) => {
    if (na !== nb) throw new BaseCompareError(`${figure}: the baseline measured ${na} and the candidate ${nb}: run eval base on both with the same settings`);
  };
  const h0 = baseline.heldout;
  const h1 = candidate.heldout;
  sameCount('heldout.n_windows', h0.n_windows, h1.n_windows);
  if (h0.seq_len !== h1.seq_len) throw new BaseCompareError(`heldout.seq_len: ${h0.seq_len} against ${h1.seq_len}: pass the same --seq-len to both runs`);
  add('heldout.loss', h0.loss, h1.loss, h0.window_losses, h1.window_losses, h0.n_windows);
  sameCount('heldout.n_windows_fim', h0.n_windows_fim, h1.n_windows_fim);
  add('heldout.loss_fim', h0.loss_fim, h1.loss_fim, h0.window_losses_fim, h1.window_losses_fim, h0.n_windows_fim);

  const f0 = baseline.fim;
  const f1 = candidate.fim;
  sameCount('fim.n', f0.n, f1.n);
  for (const key of ['max_new_tokens', 'min_new_tokens'] as const) {
    if (f0[key] !== f1[key]) throw new BaseCompareError(`fim.${key}: ${f0[key]} against ${f1[key]}: pass the same --${key.replace(/_/g, '-')} to both runs`);
  }
  add('fim.first_line_exact', f0.first_line_exact, f1.first_line_exact, f0.per_example?.first_line_exact, f1.per_example?.first_line_exact, f0.n);
  add('fim.syntax_valid', f0.syntax_valid, f1.syntax_valid, f0.per_example?.syntax_valid, f1.per_example?.syntax_valid, f0.n);
  add('fim.accepted_per_request', f0.accepted_per_request, f1.accepted_per_request, f0.per_example?.accepted, f1.per_example?.accepted, f0.n);

  const g0 = baseline.functions;
  const g1 = candidate.functions;
  if (g0 && g1) {
    sameCount('functions.n', g0.n, g1.n);
    add('functions.syntax_valid', g0.syntax_valid, g1.syntax_valid, g0.per_example?.syntax_valid, g1.per_example?.syntax_valid, g0.n);
    add('functions.mean_body_lines', g0.mean_body_lines, g1.mean_body_lines, g0.per_example?.body_lines, g1.per_example?.body_lines, g0.n);
    // Older base_eval.json files have no repetitive_rate: the row is then left out.
    if (g0.repetitive_rate !== undefined && g1.repetitive_rate !== undefined) {
      add('functions.repetitive_rate', g0.repetitive_rate, g1.repetitive_rate, g0.per_example?.repetitive, g1.per_example?.repetitive, g0.n);
    }
  }
  return rows;
}

/** The rows as a markdown table. */
export function formatBaseCompare(rows: readonly BaseCompareRow[], names: { baseline: string; candidate: string }): string {
  const f = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(1) : x.toFixed(3));
  const lines = [
    `| figure | n | ${names.baseline} | ${names.candidate} | difference (SE) | 95% interval |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${r.n} | ${f(r.baseline)} | ${f(r.candidate)} | ${r.diff >= 0 ? '+' : ''}${f(r.diff)} (${r.se === null ? 'unpaired' : f(r.se)}) | ` +
        `${r.ci95 ? `${f(r.ci95[0])}, ${f(r.ci95[1])}` : ''} |`,
    ),
  ];
  return lines.join('\n');
}
