// Evaluation problems, per JSONL line in either of two shapes (default data/eval_mbpp_test.jsonl, the MBPP test split,
// tasks 11-510, never trained on):
//   the pipeline's  {prompt, tests, setup? | test_setup_code?, task_id?, group?}
//   MBPP's own      {task_id, text, code?, test_list, test_setup_code?, challenge_test_list?, group?}
//                   (libs/data's ProblemRecordSchema, read by problemParts: prompt = mbppPrompt(record), as prep writes
//                   it; a non-blank `code` is kept as the reference the stubs take parameter names from)
// A line is read as MBPP's when it has no `prompt` but a `text` or a `test_list` (libs/data's problemOr), else as the
// pipeline's: a bad line is a DataError naming file:line and the field its shape misses. Extra fields are allowed.
import { z } from 'zod';
import { problemOr, problemParts, ProblemRecordSchema, readJsonlRecords } from '@rlhf-code/data';

const nonBlank = z.string().refine((s) => s.trim() !== '', { error: 'must not be blank' });
const testList = z.array(nonBlank).min(1, { error: 'must list at least one test' });
/** Problems that share a group (e.g. a source or a difficulty) get their own pass@1 table. */
const group = nonBlank.optional();

export const EvalRecordSchema = z.looseObject({
  prompt: nonBlank,
  /** Python statements run after the response, e.g. `assert add(1, 2) == 3`: all must pass for pass@1. */
  tests: testList,
  /** Python run before the tests (imports, fixtures), MBPP's test_setup_code. */
  setup: z.string().optional(),
  /** Accepted as another name for `setup` (the field name of the PPO prompt files). */
  test_setup_code: z.string().optional(),
  task_id: z.union([z.number(), z.string()]).optional(),
  group,
});

/** MBPP's schema as published (any task id, the reference optional), and a group. */
export const MbppEvalRecordSchema = ProblemRecordSchema.extend({ group });

export interface EvalProblem {
  /** task_id from the file, or "line N" when the record has none. */
  taskId: number | string;
  prompt: string;
  tests: string[];
  setup?: string;
  /** A reference solution (MBPP's `code`), when the record has a non-blank one: stubPrograms takes its parameter names. */
  code?: string;
  group?: string;
}

/** A record's problem; taskId is filled in from the line number when the record has none. */
type ProblemFields = Omit<EvalProblem, 'taskId'> & { taskId?: number | string };

const withGroup = (group: string | undefined) => (group === undefined ? {} : { group });

function fromPipeline(r: z.output<typeof EvalRecordSchema>): ProblemFields {
  return { taskId: r.task_id, prompt: r.prompt, tests: r.tests, setup: r.setup ?? r.test_setup_code, ...withGroup(r.group) };
}

function fromMbpp(r: z.output<typeof MbppEvalRecordSchema>): ProblemFields {
  const { prompt, tests, setup, reference } = problemParts(r);
  return { taskId: r.task_id, prompt, tests, setup, ...(reference === undefined ? {} : { code: reference }), ...withGroup(r.group) };
}

const MbppProblem = MbppEvalRecordSchema.transform(fromMbpp);
const PipelineProblem = EvalRecordSchema.transform(fromPipeline);

/** Either shape, validated by the one it has, as a problem. */
const AnyEvalRecordSchema = problemOr(MbppProblem, PipelineProblem);

export const DEFAULT_EVAL_DATA = 'data/eval_mbpp_test.jsonl';

/** Read and validate the whole file, then keep the first `limit` problems (file order, so runs are comparable). */
export async function readEvalProblems(file: string, limit?: number): Promise<EvalProblem[]> {
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error(`readEvalProblems: limit must be a positive integer, got ${limit}`);
  const records = await readJsonlRecords(file, AnyEvalRecordSchema, { kind: 'eval' });
  return records.slice(0, limit).map(({ line, value }) => ({ ...value, taskId: value.taskId ?? `line ${line}` }));
}
