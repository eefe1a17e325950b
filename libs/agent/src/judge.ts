// Whether an episode solved its task: the reward of tool GRPO and the measure of the evaluation. Strict: only the
// episode's final answer turn counts (Episode.answer: the last turn when it ended the episode itself, without a tool
// call and with its end token; never a tool call left at the turn limit, nor a turn cut at the token limit), and only
// in the task's declared form:
//   answer tasks  the turn's last line is "The answer is <value>." (answerText), the only such statement in the turn,
//                 and <value> equals the answer exactly (sameValue: numbers as numbers, so 6 equals 6.0 and 43 is not
//                 43.5; a list equals a list of equal elements; text to the letter)
//   tests tasks   the turn's last ```python block (codeAnswerText) is the final code; it runs against every test of
//                 the task in the sandbox (hidden from the model but the first, which the question shows) and is
//                 scored by the offline rule (libs/sandbox executionScore: 1 when every test passes, 0 otherwise,
//                 minus 0.1 when it does not compile; so no stub earns anything). Code the model ran in its tool
//                 calls does not count, only the final turn's.
//
// Why: the judge before accepted the answer as a whole token anywhere in the episode's last turn, whatever
// that turn was. On all 32 held-out kth_smallest tasks the answer is an element of the question's own list, so a turn
// that echoed the list counted as solved; so did a turn naming several candidates, a turn cut by the token limit,
// and a tool call left unanswered at the turn limit.
import type { ToolTaskRecord } from '@rlhf-code/data';
import { scoreAll, testsPassedShare, passedAll, type SandboxPool } from '@rlhf-code/sandbox';
import type { Episode } from './episode';

/** How a final answer to a computed-value question begins (its declared form: answerText). */
export const ANSWER_PREFIX = 'The answer is ';

/** A computed-value question's final turn in its declared form. */
export const answerText = (answer: string) => `${ANSWER_PREFIX}${answer}.`;

/** A programming task's final turn in its declared form (CODE_ANSWER_FORM in the question): the code in a ```python block. */
export const codeAnswerText = (code: string) => '```python\n' + code.trimEnd() + '\n```';

/** An episode's verdict. */
export interface Verdict {
  /** Solved: the answer stated exactly, or every test passed (pass@1's criterion). */
  success: boolean;
  /** The reward: 1 or 0 for a question; the final code's executionScore for a programming task. */
  score: number;
  /** Share of the tests the final code passed (a diagnostic stubs can earn, never a reward); null for a question. */
  testsPassed: number | null;
}

/**
 * The value a final turn states: what follows ANSWER_PREFIX on its last non-blank line (a final full stop dropped),
 * or null when that line does not begin with it, or the turn says it more than once (a hedge between candidates).
 */
export function statedAnswer(turn: string): string | null {
  if (turn.split(ANSWER_PREFIX).length !== 2) return null;
  const lines = turn.trimEnd().split('\n');
  const last = lines[lines.length - 1].trim();
  if (!last.startsWith(ANSWER_PREFIX)) return null;
  const value = last.slice(ANSWER_PREFIX.length).trim().replace(/\.$/, '').trim();
  return value === '' ? null : value;
}

/** A value as the judge compares it: a number (canonical decimal), text, or a list / tuple of values. */
type Value = { num: string } | { text: string } | { open: '[' | '('; items: Value[] };

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal number as `digits e exponent` without leading or trailing zeros (0 for any zero), or null. */
function canonicalNumber(s: string): string | null {
  const m = NUMBER.exec(s);
  if (!m || (m[2] + (m[3] ?? '')).length === 0) return null;
  const frac = m[3] ?? '';
  let digits = (m[2] + frac).replace(/^0+/, '');
  let exp = Number(m[4] ?? 0) - frac.length;
  if (digits === '') return '0';
  const kept = digits.replace(/0+$/, '');
  exp += digits.length - kept.length;
  digits = kept;
  return `${m[1] === '-' ? '-' : ''}${digits}e${exp}`;
}

/** `s` cut at its top-level commas (not inside brackets or quotes), or null when its brackets or quotes do not close. */
function topLevelItems(s: string): string[] | null {
  const items: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if ('[({'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (--depth < 0) return null;
    } else if (c === ',' && depth === 0) {
      items.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || quote) return null;
  items.push(s.slice(start));
  return items;
}

/** A Python-literal-like reading of a printed value; anything else is its text. */
function parseValue(raw: string): Value {
  const s = raw.trim();
  const num = canonicalNumber(s);
  if (num !== null) return { num };
  const quoted = /^(['"])((?:\\.|(?!\1)[^\\])*)\1$/s.exec(s);
  if (quoted) return { text: quoted[2].replace(/\\(.)/g, '$1') };
  const open = s[0];
  if ((open === '[' && s.endsWith(']')) || (open === '(' && s.endsWith(')'))) {
    const items = topLevelItems(s.slice(1, -1));
    if (items) {
      if (items.length > 1 && items[items.length - 1].trim() === '') items.pop(); // a trailing comma: (1,)
      if (items.length === 1 && items[0].trim() === '') return { open, items: [] };
      if (open === '(' && items.length === 1 && !s.slice(1, -1).trimEnd().endsWith(',')) return parseValue(items[0]); // parentheses, not a tuple
      if (items.every((x) => x.trim() !== '')) return { open, items: items.map(parseValue) };
    }
  }
  return { text: s };
}

function equalValues(a: Value, b: Value): boolean {
  if ('num' in a || 'num' in b) return 'num' in a && 'num' in b && a.num === b.num;
  if ('text' in a || 'text' in b) return 'text' in a && 'text' in b && a.text === b.text;
  return a.open === b.open && a.items.length === b.items.length && a.items.every((x, i) => equalValues(x, b.items[i]));
}

/**
 * Whether a stated value equals the answer exactly: numbers as numbers (`6` equals `6.0` and `6e0`, `-0` equals `0`,
 * integers of any size exactly), lists and tuples element by element (a list never equals a tuple or one of its
 * elements), quoted text as its contents (print shows text without quotes), other text to the letter.
 */
export function sameValue(stated: string, answer: string): boolean {
  return equalValues(parseValue(stated), parseValue(answer));
}

/** The final code of a turn: its last closed ```python (or ```py, or untagged) block, or null when it has none. */
export function finalCode(turn: string): string | null {
  const blocks = [...turn.matchAll(/```(?:python|py)?[ \t]*\r?\n([\s\S]*?)```/g)];
  return blocks.length === 0 ? null : blocks[blocks.length - 1][1];
}

/**
 * Verdicts of final code for programming tasks (`codes[i]` for `tasks[i]`; null: no code in the declared form, which
 * scores 0): the tests run through the pool, scored by executionScore. Also how the stub rows are scored.
 */
export async function judgeCode(codes: readonly (string | null)[], tasks: readonly Pick<ToolTaskRecord, 'tests' | 'setup'>[], pool: SandboxPool): Promise<Verdict[]> {
  const runs = codes.flatMap((code, i) => (code === null ? [] : [{ i, job: { code, tests: tasks[i].tests ?? [], setup: tasks[i].setup } }]));
  const out: Verdict[] = codes.map(() => ({ success: false, score: 0, testsPassed: 0 }));
  const scored = await scoreAll(pool, runs.map((r) => r.job));
  scored.forEach((s, k) => (out[runs[k].i] = { success: passedAll(s.result), score: s.score, testsPassed: testsPassedShare(s.result) }));
  return out;
}

/** The verdict of each episode on its task (`tasks[i]` is episode i's); tests run through the pool. */
export async function judgeEpisodes(episodes: readonly Episode[], tasks: readonly ToolTaskRecord[], pool: SandboxPool): Promise<Verdict[]> {
  const coded = episodes.flatMap((e, i) => (tasks[i].tests ? [i] : []));
  const codeVerdicts = await judgeCode(
    coded.map((i) => (episodes[i].answer === null ? null : finalCode(episodes[i].answer!))),
    coded.map((i) => tasks[i]),
    pool,
  );
  const out: Verdict[] = episodes.map((e, i) => {
    const stated = e.answer === null ? null : statedAnswer(e.answer);
    const success = stated !== null && tasks[i].answer !== undefined && sameValue(stated, tasks[i].answer!);
    return { success, score: Number(success), testsPassed: null };
  });
  coded.forEach((i, k) => (out[i] = codeVerdicts[k]));
  return out;
}
