// The SFT warm-start's examples: synthetic tool-use traces that teach the format before GRPO. For each task the
// "model" makes the task's reference calls, one per turn, reading each response, then gives its final turn in the
// task's declared form (judge.ts):
//   question        user question -> <tool_call>{python_interpreter, call 1}</tool_call> -> <tool_response>...
//                   </tool_response> -> ... -> "The answer is value."
//   programming     user problem -> a call that writes the reference and checks it (codeTraceCalls: prints the call
//                   of the test the question shows, or runs that assert) -> its output -> the reference in a
//                   ```python block; some traces first run a wrong attempt (brokenAttempt: the reference with one
//                   operation swapped for a sibling, the slip a small model makes), read the failure, then run the
//                   reference: after a failed check, write a different body
// The traces are built by the episode loop itself with the turns scripted, so the sequence, the tool turns and the
// mask are exactly what GRPO samples; the loss mask is the episode's train mask (the model's own tokens). Two-call
// traces run in the interpreter the caller gives (a stateful one keeps the first call's variables).
//
// `direct: true` marks a task whose trace answers at once, without the tool (the answer stated as if computed in the
// head, the code written without running it): a warm-start that mixes both teaches a policy that sometimes trusts
// itself, as instruct models do before RL.
import type { ToolTaskRecord } from '@rlhf-code/data';
import type { Rng } from '@rlhf-code/model';
import type { Tokenizer } from '@rlhf-code/tokenizer';
import type { LmExample } from '@rlhf-code/train';
import { runEpisodes, taskMessages, type EpisodeTool, type TurnGenerator } from './episode';
import { answerText, codeAnswerText } from './judge';
import type { CallForm } from './settings';

export interface SolvedTask {
  question: string;
  /** Python of each tool call, in order. */
  calls: string[];
  /** The final turn: the answer in the task's declared form (answerText, codeAnswerText). */
  final: string;
  /** Answer without the tool. */
  direct?: boolean;
  /** The first call runs a wrong attempt (brokenAttempt) before the reference. */
  wrongFirst?: boolean;
}

/**
 * The assistant's tool call for `code`: `json` as Qwen2.5-style templates write one (Python's JSON spacing), `code`
 * the code itself in a ```python block (written exactly as the final answer's code).
 */
export const toolCallText = (code: string, form: CallForm = 'json') =>
  form === 'json'
    ? `<tool_call>\n{"name": "python_interpreter", "arguments": {"code": ${JSON.stringify(code)}}}\n</tool_call>`
    : `<tool_call>\n\`\`\`python\n${code.trimEnd()}\n\`\`\`\n</tool_call>`;

/**
 * The calls of a programming trace: the reference, then a check against the test the question shows: `print` of the
 * call it asserts on (its value to compare with the assert's), or, with `assert`, the assert itself (no output when it
 * holds, a traceback when not). A test that is not `assert <call> == <value>` is always run as it is. With `broken`
 * (brokenAttempt) the trace first runs that wrong attempt with the same check, reads the wrong value or the
 * AssertionError, and then runs the reference.
 */
export function codeTraceCalls(reference: string, shownTest: string, o: { assert: boolean; broken?: string | null }): string[] {
  const lhs = /^assert\s+(.+?)\s+==\s+/.exec(shownTest.trim())?.[1];
  const balanced = lhs !== undefined && [...'([{'].every((open, k) => lhs.split(open).length === lhs.split(')]}'[k]).length);
  const check = o.assert || !balanced ? shownTest.trim() : `print(${lhs})`;
  const run = (code: string) => `${code.trimEnd()}\n\n${check}`;
  return [...(o.broken ? [run(o.broken)] : []), run(reference)];
}

/**
 * Slips of one operation, each a pattern and what it becomes: the confusions a small model makes between the suite's
 * operations (plus for minus, max for min, the even filter for the odd one, doubling for squaring, first for last).
 */
const SLIPS: [RegExp, string][] = [
  [/ \+ /, ' - '],
  [/ - /, ' + '],
  [/ \* (?!2\b)/, ' + '],
  [/ \/\/ /, ' % '],
  [/ % (?!2 ==)/, ' // '],
  [/\bmax\(/, 'min('],
  [/\bmin\(/, 'max('],
  [/% 2 == 0/, '% 2 == 1'],
  [/% 2 == 1/, '% 2 == 0'],
  [/ > /, ' < '],
  [/ < /, ' > '],
  [/(\w+) \* \1\b/, '$1 * 2'],
  [/(\w+) \* 2\b/, '$1 * $1'],
  [/\babs\((\w+)\)/, '$1'],
  [/\[0\]/, '[-1]'],
  [/\[-1\]/, '[0]'],
  [/\[::-1\]/, ''],
  [/\.upper\(\)/, '.lower()'],
  [/\.startswith\(/, '.endswith('],
  [/\.endswith\(/, '.startswith('],
  [/reverse=True/, 'reverse=False'],
  [/\bsum\(/, 'max('],
  [/\blen\(/, 'sum('],
];

/**
 * A wrong first attempt at `reference`: its body with one operation swapped for a sibling (SLIPS; `pick` in [0, 1)
 * chooses among the slips that apply), or, when none applies, the last `return x` turned into a bare `x` (returns
 * None); null when neither applies. The attempt may still pass the shown test (a slip the test cannot see): the
 * warm-start drops such traces.
 */
export function brokenAttempt(reference: string, pick = 0): string | null {
  const lines = reference.trimEnd().split('\n');
  const head = lines.findIndex((l) => /^\s*def\s/.test(l)) + 1; // the body starts after the (first) def line
  const body = lines.slice(head).join('\n');
  const slips = SLIPS.filter(([pattern]) => pattern.test(body));
  if (slips.length > 0) {
    const [pattern, to] = slips[Math.min(slips.length - 1, Math.floor(pick * slips.length))];
    return [...lines.slice(0, head), body.replace(pattern, to)].join('\n') + '\n';
  }
  const k = lines.map((l) => /^\s+return\s+\S/.test(l)).lastIndexOf(true);
  if (k < 0) return null;
  lines[k] = lines[k].replace(/return\s+/, '');
  return lines.join('\n') + '\n';
}

/**
 * The warm-start trace of a task, or null when it has none: a question with reference calls and its answer, or a
 * programming task with its reference (codeTraceCalls; the task's own `calls` when it has them). `fix` (a number in
 * [0, 1) that picks the slip, or false) makes it a trace that first runs a wrong attempt (brokenAttempt).
 */
export function solvedTask(t: ToolTaskRecord, o: { direct: boolean; assert: boolean; fix: number | false }): SolvedTask | null {
  if (t.answer !== undefined && t.calls) return { question: t.question, calls: t.calls, final: answerText(t.answer), direct: o.direct };
  if (t.tests && t.reference) {
    if (t.calls) return { question: t.question, calls: t.calls, final: codeAnswerText(t.reference), direct: o.direct };
    const broken = o.fix === false ? null : brokenAttempt(t.reference, o.fix);
    return { question: t.question, calls: codeTraceCalls(t.reference, t.tests[0], { assert: o.assert, broken }), final: codeAnswerText(t.reference), direct: o.direct, ...(broken ? { wrongFirst: true } : {}) };
  }
  return null;
}

/** Each task's trace (null where it has none), drawing `direct`, `assert` and `fix` (and its slip) from `rng` in task order. */
export function solvedTasks(tasks: readonly ToolTaskRecord[], rng: Rng, shares: { directShare: number; assertShare: number; fixShare: number }): (SolvedTask | null)[] {
  return tasks.map((t) => {
    const direct = rng.next() < shares.directShare;
    const assert = rng.next() < shares.assertShare;
    const fix = rng.next() < shares.fixShare;
    const pick = rng.next();
    return solvedTask(t, { direct, assert, fix: fix ? pick : false });
  });
}

export async function warmStartExamples(
  tasks: readonly SolvedTask[],
  o: { tokenizer: Tokenizer; template: string; toolFor: (episode: number) => EpisodeTool; system?: string; callForm?: CallForm },
): Promise<{ examples: LmExample[]; toolOutputs: string[][] }> {
  const tok = o.tokenizer;
  const scripts = tasks.map((t) => [...(t.direct ? [] : t.calls.map((c) => toolCallText(c, o.callForm))), t.final]);
  const examples: LmExample[] = new Array(tasks.length);
  const toolOutputs: string[][] = new Array(tasks.length);
  // Episodes with the same number of turns run together in lockstep: at step `turn`, sequence k is group member k's.
  const lengths = [...new Set(scripts.map((s) => s.length))];
  for (const n of lengths) {
    const members = scripts.flatMap((s, i) => (s.length === n ? [i] : []));
    let turn = 0;
    const generate: TurnGenerator = async (sequences) => {
      const out = sequences.map((_, k) => {
        const ids = tok.encode(scripts[members[k]][turn], { parseSpecialTokens: false });
        return { ids, stopId: tok.chat.imEnd, logprobs: [...ids, 0].map(() => 0) };
      });
      turn++;
      return out;
    };
    const prompts = members.map((i) => taskMessages(tasks[i], o.system));
    const episodes = await runEpisodes(generate, prompts, { tokenizer: tok, template: o.template, maxTurns: n, maxTurnTokens: 1 << 16, maxTotalTokens: 1 << 20, toolFor: o.toolFor });
    episodes.forEach((e, k) => {
      examples[members[k]] = { ids: e.ids, lossMask: e.trainMask };
      toolOutputs[members[k]] = e.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    });
  }
  return { examples, toolOutputs };
}
