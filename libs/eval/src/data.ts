// Evaluation problems: `{prompt, tests, setup?, task_id?}` per JSONL line (default data/eval_mbpp_test.jsonl, the
// MBPP test split, tasks 11-510, never trained on). A bad line is a DataError naming file:line and field.
import { z } from 'zod';
import { readJsonlRecords } from '@rlhf-code/data';

const nonBlank = z.string().refine((s) => s.trim() !== '', { error: 'must not be blank' });

export const EvalRecordSchema = z.looseObject({
  prompt: nonBlank,
  /** Python statements run after the response, e.g. `assert add(1, 2) == 3`: all must pass for pass@1. */
  tests: z.array(nonBlank).min(1, { error: 'must list at least one test' }),
  /** Python run before the tests (imports, fixtures), MBPP's test_setup_code. */
  setup: z.string().optional(),
  /** Accepted as another name for `setup` (the field name of the PPO prompt files). */
  test_setup_code: z.string().optional(),
  task_id: z.union([z.number(), z.string()]).optional(),
});

export interface EvalProblem {
  /** task_id from the file, or "line N" when the record has none. */
  taskId: number | string;
  prompt: string;
  tests: string[];
  setup?: string;
}

export const DEFAULT_EVAL_DATA = 'data/eval_mbpp_test.jsonl';

/** Read and validate the whole file, then keep the first `limit` problems (file order, so runs are comparable). */
export async function readEvalProblems(file: string, limit?: number): Promise<EvalProblem[]> {
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error(`readEvalProblems: limit must be a positive integer, got ${limit}`);
  const records = await readJsonlRecords(file, EvalRecordSchema, { kind: 'eval' });
  return records.slice(0, limit).map(({ line, value }) => ({
    taskId: value.task_id ?? `line ${line}`,
    prompt: value.prompt,
    tests: value.tests,
    setup: value.setup ?? value.test_setup_code,
  }));
}
