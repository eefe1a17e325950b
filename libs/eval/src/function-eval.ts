// "Does the model write valid Python?", asked the way code-model evaluations ask it (HumanEval's prompt shape):
// give the model a held-out source file up to a function's signature and docstring, let it write the body, and
// compile the function it wrote.
//
//   case        a `def` (method or top-level, async included) in a held-out corpus file whose first statement is a
//               docstring and which has more after it. prompt = the file up to and including the docstring's last
//               line; reference = the true body. Found line by line (no Python needed); a case whose own function
//               does not compile is dropped by evaluateFunctions, so the ceiling is 1 by construction.
//   completion  plain left-to-right continuation (no FIM), greedy, until a control token or maxNewTokens.
//   body        the completion cut where the function ends: before the first non-blank line indented no deeper than
//               the `def` (the model went on to the next method / statement), or at the end token. A completion
//               cut by maxNewTokens keeps its complete lines only (the line being written is dropped).
//   syntax ok   signature + docstring + body, dedented to column 0, compiles as a module. A body without a single
//               non-blank line is not ok (a docstring-only function would compile, but the model wrote nothing).
import type { CorpusFile } from '@rlhf-code/data';
import { Tokenizer } from '@rlhf-code/tokenizer';
import { Qwen2Model } from '@rlhf-code/model';
import { shuffle } from '@rlhf-code/data';
import { CompleteOptions, completeBatched } from './batched';
import { share } from './metrics';

/** A body repeating one line more often than this is degenerate (repetitive_rate; prep syntax's --max-line-repeats default). */
export const REPEATED_LINE_LIMIT = 2;

export const FUNCTION_METRIC_DESCRIPTIONS: Record<string, string> = {
  'functions.syntax_valid':
    'share of held-out functions whose body, written by the model after the true signature and docstring (greedy), compiles with them (an empty body = invalid)',
  'functions.ended_rate': 'share of bodies the model ended itself (a line back at the def\'s indentation, or the end token) within --function-max-new-tokens',
  'functions.syntax_valid_when_ended': 'syntax_valid among the bodies the model ended itself',
  'functions.empty_rate': 'share of bodies with no non-blank line',
  'functions.reference_fits': 'share of the true bodies shorter than --function-max-new-tokens tokens (the room the model had to end the function)',
  'functions.mean_body_lines': 'mean non-blank lines per body (a body stuck repeating a line counts every repeat: read it beside repetitive_rate)',
  'functions.repetitive_rate': `share of bodies whose most frequent non-blank line occurs more than ${REPEATED_LINE_LIMIT} times (degenerate repetition; prep syntax keeps no such body)`,
  'functions.mean_body_lines_usable': 'mean non-blank lines among the bodies that compile and are not repetitive; null when there is none',
};

export interface FunctionCase {
  path: string;
  /** Function name (for samples). */
  name: string;
  /** Column of the `def` keyword line's first character. */
  indent: number;
  /** The file up to and including the docstring's last line (ends in "\n"). */
  prompt: string;
  /** The function's own lines up to the docstring (decorators excluded), as in the file. */
  head: string;
  /** The true body after the docstring, as in the file. */
  reference: string;
  /** The rest of the file after the true body (prompt + reference + suffix = the file, LF line ends). */
  suffix: string;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isBlank = (line: string) => line.trim() === '';
const DEF = /^\s*(async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
const DOC_OPEN = /^[rRuUbB]{0,2}("""|''')/;

/** The index of the line that ends a (possibly multi-line) signature starting at `start`: brackets balanced, ends in ":". */
function signatureEnd(lines: readonly string[], start: number): number {
  let depth = 0;
  for (let i = start; i < lines.length && i < start + 30; i++) {
    const code = lines[i].replace(/#.*$/, '');
    for (const ch of code) {
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth--;
    }
    if (depth <= 0 && code.trimEnd().endsWith(':')) return i;
  }
  return -1;
}

/** The index of the docstring's last line when line `at` opens one, else -1. */
function docstringEnd(lines: readonly string[], at: number): number {
  const text = lines[at].trimStart();
  const m = DOC_OPEN.exec(text);
  if (!m) return -1;
  const quote = m[1];
  const rest = text.slice(m[0].length);
  if (rest.includes(quote)) return at;
  for (let i = at + 1; i < lines.length; i++) if (lines[i].includes(quote)) return i;
  return -1;
}

/** Every documented function with a body in `files` (file order, then line order). */
export function functionCases(files: readonly CorpusFile[]): FunctionCase[] {
  const out: FunctionCase[] = [];
  for (const file of files) {
    const lines = file.text.replace(/\r\n/g, '\n').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = DEF.exec(lines[i]);
      if (!m) continue;
      const indent = indentOf(lines[i]);
      const sigEnd = signatureEnd(lines, i);
      if (sigEnd < 0 || lines[sigEnd].replace(/#.*$/, '').trimEnd().slice(-1) !== ':') continue;
      let docAt = sigEnd + 1;
      while (docAt < lines.length && isBlank(lines[docAt])) docAt++;
      if (docAt >= lines.length || indentOf(lines[docAt]) <= indent) continue;
      const docEnd = docstringEnd(lines, docAt);
      if (docEnd < 0) continue;
      let end = docEnd + 1;
      while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]) > indent)) end++;
      const body = lines.slice(docEnd + 1, end);
      while (body.length > 0 && isBlank(body[body.length - 1])) body.pop();
      if (!body.some((l) => !isBlank(l))) continue;
      out.push({
        path: file.path,
        name: m[2],
        indent,
        prompt: lines.slice(0, docEnd + 1).join('\n') + '\n',
        head: lines.slice(i, docEnd + 1).join('\n') + '\n',
        reference: body.join('\n') + '\n',
        suffix: lines.slice(docEnd + 1 + body.length).join('\n'),
      });
    }
  }
  return out;
}

/** A seeded random subset of `limit` cases, kept in file order. */
export function selectFunctionCases(cases: readonly FunctionCase[], limit: number, seed: number | string): FunctionCase[] {
  if (limit >= cases.length) return cases.slice();
  const keep = new Set(shuffle(cases, `functions:${seed}`).slice(0, limit));
  return cases.filter((c) => keep.has(c));
}

/** The body the model wrote (see the file comment); `ended` = it ended the function itself. */
export function cutBody(completion: string, indent: number, stopped: boolean): { body: string; ended: boolean } {
  const lines = completion.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // The last piece has no newline after it: only a complete line (or the end token after it) can end the body.
    const complete = i < lines.length - 1 || stopped;
    if (complete && !isBlank(lines[i]) && indentOf(lines[i]) <= indent) return { body: joinLines(lines.slice(0, i)), ended: true };
  }
  if (stopped) return { body: joinLines(lines), ended: true };
  return { body: joinLines(lines.slice(0, -1)), ended: false };
}

function joinLines(lines: string[]): string {
  while (lines.length > 0 && isBlank(lines[lines.length - 1])) lines = lines.slice(0, -1);
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

/** The function as a module of its own: head + body with the def's indentation removed. */
export function functionSource(c: Pick<FunctionCase, 'head' | 'indent'>, body: string): string {
  return (c.head + body)
    .split('\n')
    .map((l) => (l.slice(0, c.indent).trim() === '' ? l.slice(c.indent) : l))
    .join('\n');
}

export interface FunctionCompletion {
  text: string;
  stopped: boolean;
  /** Prompt tokens dropped from the left to fit the window. */
  truncated: number;
}

/** Continuation of each prompt (cut from the left to fit the window; completeBatched, greedy unless opts.sampling). */
export async function completeFunctions(model: Qwen2Model, tok: Tokenizer, cases: readonly FunctionCase[], opts: CompleteOptions): Promise<FunctionCompletion[]> {
  const maxPrompt = model.config.max_position_embeddings - opts.maxNewTokens;
  if (maxPrompt < 1) throw new Error(`--function-max-new-tokens ${opts.maxNewTokens} leaves no room for a prompt in the model's window (${model.config.max_position_embeddings})`);
  const prompts = cases.map((c) => {
    const ids = tok.encode(c.prompt);
    return { ids: ids.slice(Math.max(0, ids.length - maxPrompt)), truncated: Math.max(0, ids.length - maxPrompt) };
  });
  const done = await completeBatched(
    model,
    tok,
    prompts.map((p) => p.ids),
    opts,
  );
  return done.map((d, i) => ({ ...d, truncated: prompts[i].truncated }));
}

export interface FunctionOutcome {
  body: string;
  ended: boolean;
  empty: boolean;
  syntaxOk: boolean;
  /** Its most frequent non-blank line occurs more than REPEATED_LINE_LIMIT times. */
  repetitive: boolean;
}

export interface FunctionFigures {
  n: number;
  syntax_valid: number;
  ended_rate: number;
  /** null when no body ended. */
  syntax_valid_when_ended: number | null;
  empty_rate: number;
  mean_body_lines: number;
  repetitive_rate: number;
  /** null when no body compiles without repeating itself. */
  mean_body_lines_usable: number | null;
}

/** A body's non-blank lines (mean_body_lines averages it). */
export const bodyLines = (body: string): number => body.split('\n').filter((l) => !isBlank(l)).length;

/** How often the most frequent non-blank line (trimmed) occurs in `body`; 0 for an empty body. */
export function maxLineRepeat(body: string): number {
  const counts = new Map<string, number>();
  for (const l of body.split('\n')) if (!isBlank(l)) counts.set(l.trim(), (counts.get(l.trim()) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

/** Score the completions of `cases` with one syntax-check call. */
export async function scoreFunctions(
  cases: readonly FunctionCase[],
  completions: readonly Pick<FunctionCompletion, 'text' | 'stopped'>[],
  check: (codes: string[]) => Promise<boolean[]>,
): Promise<{ figures: FunctionFigures; outcomes: FunctionOutcome[] }> {
  if (cases.length === 0) throw new Error('scoreFunctions: no functions');
  if (completions.length !== cases.length) throw new Error(`scoreFunctions: ${completions.length} completions for ${cases.length} functions`);
  const cut = cases.map((c, i) => cutBody(completions[i].text, c.indent, completions[i].stopped));
  const ok = await check(cases.map((c, i) => functionSource(c, cut[i].body)));
  const outcomes = cut.map((b, i): FunctionOutcome => {
    const empty = b.body.trim() === '';
    return { body: b.body, ended: b.ended, empty, syntaxOk: ok[i] && !empty, repetitive: maxLineRepeat(b.body) > REPEATED_LINE_LIMIT };
  });
  const ended = outcomes.filter((o) => o.ended);
  const usable = outcomes.filter((o) => o.syntaxOk && !o.repetitive);
  return {
    outcomes,
    figures: {
      n: cases.length,
      syntax_valid: share(outcomes.map((o) => o.syntaxOk)),
      ended_rate: ended.length / outcomes.length,
      syntax_valid_when_ended: ended.length > 0 ? share(ended.map((o) => o.syntaxOk)) : null,
      empty_rate: share(outcomes.map((o) => o.empty)),
      mean_body_lines: outcomes.reduce((s, o) => s + bodyLines(o.body), 0) / outcomes.length,
      repetitive_rate: share(outcomes.map((o) => o.repetitive)),
      mean_body_lines_usable: usable.length > 0 ? usable.reduce((s, o) => s + bodyLines(o.body), 0) / usable.length : null,
    },
  };
}

/** Keep the cases whose own function (head + true body) compiles: the ceiling of syntax_valid is then 1. */
export async function compilingCases(cases: readonly FunctionCase[], check: (codes: string[]) => Promise<boolean[]>): Promise<FunctionCase[]> {
  const ok = await check(cases.map((c) => functionSource(c, c.reference)));
  return cases.filter((_, i) => ok[i]);
}
