// Coding problems in MBPP's own schema, from any source: MBPP itself, the task suite (data/suite), a user's own file.
// `{task_id, text, code?, test_list, test_setup_code?, challenge_test_list?}`, other fields kept. The pipeline's
// prompt is mbppPrompt (the statement and the first test as comments), the reference is `code`, the tests are
// `test_list`, run after `test_setup_code`. As a tool task (problemToolTask) the same problem is a question in plain
// text that ends with the declared form of the final answer (CODE_ANSWER_FORM), judged by all of `test_list`.
import { z } from 'zod';
import { readJsonl } from './jsonl';
import { mbppPrompt, normalizeCode } from './mbpp';

const nonBlank = z.string().refine((s) => s.trim() !== '', { error: 'must not be blank' });

export const ProblemRecordSchema = z.looseObject({
  task_id: z.union([z.number().int(), nonBlank]),
  text: nonBlank,
  /** The reference solution; absent (or empty) where a split gives prompts and tests only. */
  code: z.string().optional(),
  test_list: z.array(nonBlank).min(1, { error: 'must list at least one test' }),
  test_setup_code: z.string().default(''),
  challenge_test_list: z.array(z.string()).default([]),
});
export type ProblemRecord = z.infer<typeof ProblemRecordSchema>;

/**
 * A record in MBPP's schema, told apart from the pipeline's own `{prompt, ...}` records: no `prompt`, and a `text` or a
 * `test_list` (one is enough, so a problem that lacks the other is told which).
 */
const isProblemRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && !('prompt' in v) && ('text' in v || 'test_list' in v);

/**
 * A record in either shape, validated by the one it has: MBPP's (`problem`) or the pipeline's own (`pipeline`). A bad
 * record's issues are those of its own shape, so the error names the field it lacks (`text`, or `prompt`).
 */
export function problemOr<A, B>(problem: z.ZodType<A>, pipeline: z.ZodType<B>) {
  return z.unknown().transform((raw, ctx): A | B => {
    const parsed = (isProblemRecord(raw) ? problem : pipeline).safeParse(raw);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
    return z.NEVER;
  });
}

/** Problems in MBPP's schema; a bad line is a DataError naming file:line and field. */
export const readProblems = (file: string): Promise<ProblemRecord[]> => readJsonl(file, ProblemRecordSchema, { kind: 'problem' });

/** The pipeline's view of a problem: the prompt the model continues, its tests and setup, its reference if any. */
export function problemParts(p: Pick<ProblemRecord, 'text' | 'test_list' | 'test_setup_code' | 'code'>): { prompt: string; tests: string[]; setup?: string; reference?: string } {
  const setup = normalizeCode(p.test_setup_code ?? '');
  return {
    prompt: mbppPrompt(p),
    tests: p.test_list.map((t) => t.trim()),
    ...(setup.trim() ? { setup } : {}),
    ...(p.code && p.code.trim() ? { reference: normalizeCode(p.code) } : {}),
  };
}

/** The declared form of a programming task's final answer, the last line of its question. */
export const CODE_ANSWER_FORM = 'Reply with the function in a ```python block.';

/** A programming task's question: the pipeline's prompt (mbppPrompt: the statement, the first test) in plain text, then CODE_ANSWER_FORM. */
export function codeQuestion(prompt: string): string {
  const text = prompt.trimEnd().split('\n').map((line) => line.replace(/^# ?/, '')).join('\n');
  return `${text}\n${CODE_ANSWER_FORM}`;
}

/**
 * A problem as a tool task (libs/agent's programming family): the question, every test of `test_list` as the judge's
 * (the model sees only the first, in the question), the setup, and the reference when there is one (the warm-start's
 * traces write it). `kind` is the suite's operation (`op`) when the record has one; other fields (`group`, `split`,
 * `task_id`, ...) are kept.
 */
export function problemToolTask(p: ProblemRecord) {
  const { prompt, tests, setup, reference } = problemParts(p);
  const { text: _t, code: _c, test_list: _l, test_setup_code: _s, challenge_test_list: _ch, ...rest } = p;
  return {
    ...rest,
    id: p.task_id,
    ...(typeof p.op === 'string' ? { kind: p.op } : {}),
    question: codeQuestion(prompt),
    tests,
    ...(setup ? { setup } : {}),
    ...(reference ? { reference } : {}),
  };
}
