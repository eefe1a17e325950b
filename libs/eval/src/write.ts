// Writing a finished evaluation to its folder: eval.json, per_problem.json, eval.md, samples.jsonl and (optionally)
// eval.svg; eval:seeds writes the first three.
import { promises as fs } from 'fs';
import * as path from 'path';
import { writeFileAtomic } from '@rlhf-code/model';
import { writeJsonl } from '@rlhf-code/data';
import type { EvalReport, EvalResult, PerProblemReport } from './evaluate';
import { formatMarkdown, ReportSettings } from './report';

export const OUTPUT_FILES = { json: 'eval.json', perProblem: 'per_problem.json', markdown: 'eval.md', chart: 'eval.svg', samples: 'samples.jsonl' } as const;

/** eval.json, per_problem.json (compact: one line) and eval.md into `outDir`. Returns the paths written. */
export async function writeReport(outDir: string, report: EvalReport, perProblem: PerProblemReport, markdown: string): Promise<string[]> {
  await fs.mkdir(outDir, { recursive: true });
  const files: [string, string][] = [
    [OUTPUT_FILES.json, JSON.stringify(report, null, 2) + '\n'],
    [OUTPUT_FILES.perProblem, JSON.stringify(perProblem) + '\n'],
    [OUTPUT_FILES.markdown, markdown],
  ];
  for (const [name, text] of files) await writeFileAtomic(path.join(outDir, name), text);
  return files.map(([name]) => path.join(outDir, name));
}

/** `svg` is the rendered chart (see chart.ts), or null to write none. Returns the paths written. */
export async function writeEvalOutputs(outDir: string, result: EvalResult, settings: Omit<ReportSettings, 'chart'>, svg: string | null): Promise<string[]> {
  const markdown = formatMarkdown(result.report, { ...settings, chart: svg === null ? null : OUTPUT_FILES.chart });
  const written = await writeReport(outDir, result.report, result.perProblem, markdown);
  if (svg !== null) {
    await writeFileAtomic(path.join(outDir, OUTPUT_FILES.chart), svg);
    written.push(path.join(outDir, OUTPUT_FILES.chart));
  }
  await writeJsonl(path.join(outDir, OUTPUT_FILES.samples), result.samples);
  written.push(path.join(outDir, OUTPUT_FILES.samples));
  return written;
}
