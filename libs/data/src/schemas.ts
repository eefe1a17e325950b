// Record schemas for every dataset the pipeline reads. All are loose objects: unknown fields are kept
// (and written back by writeJsonl) so nothing the user put in a record is lost on the way through.
//
// Empty strings, decided per field:
// - sft.prompt may be empty: a prompt-less record is plain continuation data (pretraining-like text in `response`).
// - sft.response must not be empty: the SFT loss is taken on response tokens only, so there would be nothing to learn.
// - rm.prompt and rm.response may be empty: "empty answer, low score" is a real preference signal.
// - ppo.prompt must not be empty: the policy needs something to continue.
// - ppo.tests, when present, must list at least one non-blank line: an empty test list passes any program,
//   which would reward anything. Leave the field out for prompts scored by the reward model alone.
// - fim prefix/suffix/middle may all be empty: completing at the very start/end of a file, or inserting nothing,
//   are cases the model has to learn.
import { z } from 'zod';
import { problemOr, problemParts, ProblemRecordSchema, problemToolTask, type ProblemRecord } from './problems';

const nonEmpty = { error: 'must not be empty' };

/** A problem in MBPP's schema as the pipeline's record: its prompt, its reference as the response, its tests and setup. */
function asPipelineRecord(p: ProblemRecord) {
  const { prompt, tests, setup, reference } = problemParts(p);
  const { test_setup_code: _setup, ...rest } = p;
  return { ...rest, prompt, response: reference ?? '', tests, ...(setup ? { test_setup_code: setup } : {}) };
}
/** Records of `fields`, or problems in MBPP's schema read as such records (`fields` takes the problem turned into one). */
const orProblem = <T>(fields: z.ZodType<T, any>) => problemOr(ProblemRecordSchema.transform(asPipelineRecord).pipe(fields), fields);

/** `{prompt, response, suffix?}`, or a problem in MBPP's schema with its reference (`code`) as the response. */
export const SftRecordSchema = orProblem(
  z.looseObject({
    prompt: z.string(),
    response: z.string().min(1, nonEmpty), // in MBPP's schema: `code`, the reference
    // Present: a fill-in-the-middle example (prompt = the text before the cursor, suffix = after, response = the middle).
    suffix: z.string().optional(),
  }),
);

export const RmRecordSchema = z.looseObject({
  prompt: z.string(),
  response: z.string(),
  // z.number() already rejects NaN and ±Infinity (JSON like 1e400 parses to Infinity).
  score: z.number(),
  /** The problem the row answers (prep:rm writes MBPP's task id; one prompt per task). */
  task_id: z.union([z.number(), z.string()]).optional(),
  /**
   * Where the response comes from; prep:rm writes "reference", "mutant:<kind>" or "sft". The rm app's held-out
   * pairwise accuracy compares each prompt's references with its mutants.
   */
  source: z.string().optional(),
});

/** `{prompt, tests?, test_setup_code?}`, or a problem in MBPP's schema (its tests; no reference needed). */
export const PpoRecordSchema = orProblem(z.looseObject({
  prompt: z.string().min(1, nonEmpty),
  /** Python statements run after the completion, one per entry, e.g. `assert add(1, 2) == 3`. */
  tests: z
    .array(z.string().refine((line) => line.trim() !== '', { error: 'must not be blank' }))
    .min(1, nonEmpty)
    .optional(),
  /** Python run before the tests (imports, fixtures), as in MBPP. */
  test_setup_code: z.string().optional(),
  task_id: z.union([z.number(), z.string()]).optional(),
}));

export const FimRecordSchema = z.looseObject({
  prefix: z.string(),
  suffix: z.string(),
  middle: z.string(),
  /** Source file the example was cut from. */
  path: z.string().optional(),
  /** e.g. "train" / "test", as assigned by whoever built the dataset. */
  split: z.string().optional(),
});

/**
 * A tool-use task: a question, and how success is judged: `answer` (the final turn states this value in
 * the declared form) or `tests` (the final turn's ```python block passes every one of these asserts, after `setup`).
 * `calls` are reference tool calls and `reference` reference code (the SFT warm-start's traces make the calls, or
 * write the code); `kind` names the operation, `group` who trained on it (the task suite's groups). A problem in
 * MBPP's schema is read as a programming task (problemToolTask: its tests hidden but the first, its reference if any).
 */
const ToolTaskFields = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    kind: z.string().optional(),
    group: z.string().optional(),
    question: z.string().min(1, nonEmpty),
    answer: z.string().min(1, nonEmpty).optional(),
    calls: z.array(z.string().min(1, nonEmpty)).min(1, nonEmpty).optional(),
    tests: z
      .array(z.string().refine((line) => line.trim() !== '', { error: 'must not be blank' }))
      .min(1, nonEmpty)
      .optional(),
    setup: z.string().optional(),
    reference: z.string().min(1, nonEmpty).optional(),
  })
  .refine((r) => r.answer !== undefined || r.tests !== undefined, { error: 'needs "answer" or "tests" (how success is judged)' });
export const ToolTaskRecordSchema = problemOr(ProblemRecordSchema.transform(problemToolTask).pipe(ToolTaskFields as z.ZodType<ToolTaskRecord, any>), ToolTaskFields);

export type ToolTaskRecord = z.output<typeof ToolTaskFields>;
export type SftRecord = z.infer<typeof SftRecordSchema>;
export type RmRecord = z.infer<typeof RmRecordSchema>;
export type PpoRecord = z.infer<typeof PpoRecordSchema>;
export type FimRecord = z.infer<typeof FimRecordSchema>;
