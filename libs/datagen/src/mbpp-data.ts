// `prep data`: the pipeline's MBPP files (SFT pairs, PPO prompts, the validation and test problems) and a copy of
// MBPP with its README. The split is MBPP's own (libs/data mbppDatasets), which refuses test tasks in training sets.
import { promises as fs } from 'fs';
import * as path from 'path';
import { mbppDatasets, mbppReadme, readMbpp, writeJsonl } from '@rlhf-code/data';
import type { PrepDataSettings } from './settings';

/** Write the files; returns one summary line. */
export async function writeMbppData(s: PrepDataSettings): Promise<string> {
  const tasks = await readMbpp(s.mbpp);
  const d = mbppDatasets(tasks);
  const files = {
    sft: path.join(s.outDir, 'sft_data.jsonl'),
    ppo: path.join(s.outDir, 'ppo_prompts.jsonl'),
    validation: path.join(s.outDir, 'mbpp_validation.jsonl'),
    eval: path.join(s.outDir, 'eval_mbpp_test.jsonl'),
  };
  await writeJsonl(files.sft, d.sft);
  await writeJsonl(files.ppo, d.ppo);
  await writeJsonl(files.validation, d.validation);
  await writeJsonl(files.eval, d.eval);

  const mbppDir = path.join(s.outDir, 'mbpp');
  const copy = path.join(mbppDir, 'mbpp.jsonl');
  await fs.mkdir(mbppDir, { recursive: true });
  if (path.resolve(copy) !== path.resolve(s.mbpp)) {
    await fs.rm(copy, { force: true }); // the source may be read-only, and copyFile keeps its mode
    await fs.copyFile(s.mbpp, copy);
    await fs.chmod(copy, 0o644);
  }
  await fs.writeFile(path.join(mbppDir, 'README.md'), mbppReadme(d.excluded));
  const left = d.excluded.length ? `; left out ${d.excluded.map((e) => `${e.task_id} (repeats test task ${e.duplicates})`).join(', ')}` : '';
  return `${files.sft} ${d.sft.length}, ${files.ppo} ${d.ppo.length}, ${files.validation} ${d.validation.length}, ${files.eval} ${d.eval.length}, ${copy} ${tasks.length} tasks${left}`;
}
