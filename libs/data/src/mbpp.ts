// MBPP (Austin et al. 2021, "Program Synthesis with Large Language Models", CC BY 4.0): 974 short Python
// problems with a reference solution and three assert tests. This file turns it into the pipeline's datasets
// and guards the evaluation split: tasks 11-510 (and anything repeating their problem text) never reach
// a training file.
import { z } from 'zod';
import { DataError } from './data-error';
import { readJsonlRecords } from './jsonl';

export const MbppTaskSchema = z.looseObject({
  task_id: z.number().int().min(1).max(974),
  text: z.string().trim().min(1, { error: 'must not be empty' }),
  code: z.string().refine((s) => s.trim() !== '', { error: 'must not be empty' }),
  test_list: z.array(z.string().trim().min(1, { error: 'must not be blank' })).min(1, { error: 'must not be empty' }),
  test_setup_code: z.string().default(''),
  challenge_test_list: z.array(z.string()).default([]),
});
export type MbppTask = z.infer<typeof MbppTaskSchema>;

export type MbppSplit = 'fewshot' | 'test' | 'validation' | 'train';

/** The canonical split by task id: 1-10 few-shot, 11-510 test, 511-600 validation, 601-974 train. */
export function mbppSplit(taskId: number): MbppSplit {
  if (!Number.isInteger(taskId) || taskId < 1 || taskId > 974) throw new Error(`mbppSplit: task_id must be an integer in 1..974, got ${taskId}`);
  return taskId <= 10 ? 'fewshot' : taskId <= 510 ? 'test' : taskId <= 600 ? 'validation' : 'train';
}

/** Tasks the pipeline may train on: MBPP's train and validation splits (511-974). */
export const isMbppTrainingTask = (taskId: number) => taskId >= 511 && taskId <= 974;

/**
 * The prompt: plain Python comments, so a code-only base model can continue it.
 *   "# <problem text>\n# Your code should pass this test:\n# <first assert>\n"
 */
export function mbppPrompt(task: { text: string; test_list: readonly string[] }): string {
  const comment = (s: string) =>
    s
      .trim()
      .split(/\r?\n/)
      .map((line) => `# ${line}`.trimEnd())
      .join('\n');
  return `${comment(task.text)}\n# Your code should pass this test:\n${comment(task.test_list[0])}\n`;
}

/** Reference code as a response: LF line endings, no trailing whitespace, no blank lines at either end, final "\n". */
export function normalizeCode(code: string): string {
  const lines = code.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n') + '\n';
}

/** Read and validate an MBPP JSONL file; duplicate task ids are an error. Tasks come back sorted by id. */
export async function readMbpp(file: string): Promise<MbppTask[]> {
  const records = await readJsonlRecords(file, MbppTaskSchema, { kind: 'mbpp' });
  const firstLine = new Map<number, number>();
  for (const { line, value } of records) {
    const seen = firstLine.get(value.task_id);
    if (seen !== undefined) throw DataError.of({ file, line, field: 'task_id', message: `duplicate task_id ${value.task_id} (first on line ${seen})` });
    firstLine.set(value.task_id, line);
  }
  return records.map((r) => r.value).sort((a, b) => a.task_id - b.task_id);
}

/** Problem text compared loosely (case, spacing, final full stop), for spotting the same problem twice. */
const problemKey = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '');

export interface SftRow {
  prompt: string;
  response: string;
  task_id: number;
}
export interface TestRow {
  prompt: string;
  tests: string[];
  /** MBPP's test_setup_code, run after the solution and before the tests; only when non-empty. */
  setup?: string;
  task_id: number;
}

export interface MbppDatasets {
  /** Reference solutions of the training tasks, for supervised fine-tuning. */
  sft: SftRow[];
  /** MBPP's train split (601-974) with its tests, for PPO rollouts. */
  ppo: TestRow[];
  /** MBPP's validation split (511-600) with its tests: PPO never trains on it, it measures PPO while it runs. */
  validation: TestRow[];
  /** MBPP test split (11-510), for evaluation only. */
  eval: TestRow[];
  /** Training tasks left out because their problem text repeats a test task's (MBPP has a few). */
  excluded: { task_id: number; duplicates: number }[];
}

function testRow(task: MbppTask): TestRow {
  const setup = normalizeCode(task.test_setup_code);
  return { prompt: mbppPrompt(task), tests: task.test_list.map((t) => t.trim()), ...(setup.trim() ? { setup } : {}), task_id: task.task_id };
}

/** Split MBPP into the pipeline's datasets, ordered by task id. */
export function mbppDatasets(tasks: readonly MbppTask[]): MbppDatasets {
  const sorted = [...tasks].sort((a, b) => a.task_id - b.task_id);
  const testTasks = sorted.filter((t) => mbppSplit(t.task_id) === 'test');
  const testByProblem = new Map(testTasks.map((t) => [problemKey(t.text), t.task_id]));
  const excluded: MbppDatasets['excluded'] = [];
  const training = sorted.filter((t) => {
    if (!isMbppTrainingTask(t.task_id)) return false;
    const dup = testByProblem.get(problemKey(t.text));
    if (dup !== undefined) excluded.push({ task_id: t.task_id, duplicates: dup });
    return dup === undefined;
  });
  const out = {
    sft: training.map((t) => ({ prompt: mbppPrompt(t), response: normalizeCode(t.code), task_id: t.task_id })),
    ppo: training.filter((t) => mbppSplit(t.task_id) === 'train').map(testRow),
    validation: training.filter((t) => mbppSplit(t.task_id) === 'validation').map(testRow),
    eval: testTasks.map(testRow),
    excluded,
  };
  const guard = new MbppLeakGuard(sorted);
  guard.check(out.sft, 'sft_data');
  guard.check(out.ppo, 'ppo_prompts');
  guard.check(out.validation, 'mbpp_validation');
  return out;
}

/**
 * Refuses training records that come from MBPP's test split: by task_id (11-510), by a prompt equal to a
 * test prompt, or by a prompt whose first comment line is a test problem's text.
 */
export class MbppLeakGuard {
  private readonly testPrompts = new Map<string, number>();
  private readonly testProblems = new Map<string, number>();

  constructor(tasks: readonly MbppTask[]) {
    for (const t of tasks) {
      if (mbppSplit(t.task_id) !== 'test') continue;
      this.testPrompts.set(mbppPrompt(t), t.task_id);
      this.testProblems.set(problemKey(t.text), t.task_id);
    }
  }

  /** Throws a DataError naming `file`, the record's 1-based line and the test task it leaks. */
  check(records: readonly { prompt: string; task_id?: unknown }[], file: string): void {
    records.forEach((r, i) => {
      const where = { file, line: i + 1 };
      const id = r.task_id;
      if (typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= 974 && mbppSplit(id) === 'test') {
        throw DataError.of({ ...where, field: 'task_id', message: `task ${id} is in the MBPP test split (11-510), which is for evaluation only` });
      }
      const samePrompt = this.testPrompts.get(r.prompt);
      const firstLine = r.prompt.split('\n', 1)[0].replace(/^#\s*/, '');
      const sameProblem = this.testProblems.get(problemKey(firstLine));
      const leaked = samePrompt ?? sameProblem;
      if (leaked !== undefined) {
        throw DataError.of({ ...where, field: 'prompt', message: `repeats MBPP test task ${leaked} (test split 11-510 is for evaluation only)` });
      }
    });
  }
}

/** data/mbpp/README.md, written next to the copy of the dataset; `excluded` as in MbppDatasets. */
export const mbppReadme = (excluded: readonly { task_id: number }[]) => `# MBPP — Mostly Basic Python Problems

\`mbpp.jsonl\` is an unmodified copy of the MBPP dataset: 974 crowd-sourced Python programming problems,
each with a problem statement (\`text\`), a reference solution (\`code\`), three assert tests (\`test_list\`),
optional \`test_setup_code\` and \`challenge_test_list\`.

- Source: https://github.com/google-research/google-research/tree/master/mbpp
- Citation: Jacob Austin, Augustus Odena, Maxwell Nye, Maarten Bosma, Henryk Michalewski, David Dohan,
  Ellen Jiang, Carrie Cai, Michael Terry, Quoc Le, Charles Sutton. "Program Synthesis with Large Language
  Models". arXiv:2108.07732, 2021.
- License: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); keep this attribution with any copy.

Canonical split by \`task_id\`: 1-10 few-shot prompts, 11-510 test, 511-600 validation, 601-974 train.
This project trains only on 511-974: SFT and the reward model on all of it (\`data/sft_data.jsonl\`,
\`data/rm_data.jsonl\`), PPO on 601-974 (\`data/ppo_prompts.jsonl\`), keeping 511-600 (\`data/mbpp_validation.jsonl\`)
to measure PPO while it trains. It evaluates on 11-510 (\`data/eval_mbpp_test.jsonl\`). Training tasks whose problem text repeats a test
problem are left out${excluded.length ? ` (${excluded.map((e) => e.task_id).join(', ')})` : ''}. Regenerate everything with \`npx nx run prep:all\`.
`;
