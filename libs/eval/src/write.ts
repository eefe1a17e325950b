// Writing a finished evaluation to its folder: eval.json, eval.md, samples.jsonl and (optionally) eval.svg.
import { promises as fs } from 'fs';
import * as path from 'path';
import { writeFileAtomic } from '@rlhf-code/model';
import { writeJsonl } from '@rlhf-code/data';
import type { EvalResult } from './evaluate';
import { formatMarkdown, ReportSettings } from './report';

export const OUTPUT_FILES = { json: 'eval.json', markdown: 'eval.md', chart: 'eval.svg', samples: 'samples.jsonl' } as const;

/** `svg` is the rendered chart (see chart.ts), or null to write none. Returns the paths written. */
export async function writeEvalOutputs(outDir: string, result: EvalResult, settings: Omit<ReportSettings, 'chart'>, svg: string | null): Promise<string[]> {
  await fs.mkdir(outDir, { recursive: true });
  const file = (name: string) => path.join(outDir, name);
  const written: string[] = [];
  await writeFileAtomic(file(OUTPUT_FILES.json), JSON.stringify(result.report, null, 2) + '\n');
  written.push(file(OUTPUT_FILES.json));
  if (svg !== null) {
    await writeFileAtomic(file(OUTPUT_FILES.chart), svg);
    written.push(file(OUTPUT_FILES.chart));
  }
  await writeFileAtomic(file(OUTPUT_FILES.markdown), formatMarkdown(result.report, { ...settings, chart: svg === null ? null : OUTPUT_FILES.chart }));
  written.push(file(OUTPUT_FILES.markdown));
  await writeJsonl(file(OUTPUT_FILES.samples), result.samples);
  written.push(file(OUTPUT_FILES.samples));
  return written;
}
