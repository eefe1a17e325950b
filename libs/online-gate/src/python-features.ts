// The features the show gate judges a Python suggestion by: what a user can see in the suggestion and its file, and
// the model's confidence in it (its tokens' log-probs at temperature 1). The three compile checks (the whole window,
// the window without the suggestion, the enclosing block with it) run in one sandboxed python process (checkSyntax:
// compile(), nothing is executed).
import { checkSyntax, COMMENT, QUOTE, scanPython } from '@rlhf-code/sandbox';
import { parseFim } from '@rlhf-code/tokenizer';
import type { GateInput } from '@rlhf-code/online-core';

/** Feature names, in the order of a feature vector. */
export const GATE_FEATURES = [
  'log_tokens', // log(1 + completion tokens)
  'log_chars', // log(1 + characters of the suggestion)
  'lines', // non-blank lines of the suggestion, up to 5
  'compiles', // prompt prefix + suggestion + prompt suffix compiles
  'window_compiles', // prompt prefix + prompt suffix compiles (the window itself is checkable)
  'block_compiles', // the outermost statement around the cursor that the window shows whole compiles with the suggestion in it (enclosingBlock)
  'has_comment', // the suggestion contains a comment
  'ended_by_model', // the model ended it with its own end token (not the line rule or max_tokens)
  'starts_newline', // the suggestion starts with a line break
  'ends_colon', // its last non-blank line ends with ':' (opens a block it does not fill)
  'mid_line', // the cursor is mid-line (text follows it on its line)
  'repeats_line', // its first non-blank line is already a line of the file
  'known_names', // share of its names (identifiers that are not keywords or builtins) that the file already uses
  // Steps of length: a user's taste in length need not be linear in log length (one who wants at least a few words, or
  // at most a short phrase), so the model gets indicators of at least 8, 16, 32 and 64 characters (trimmed) as well.
  'chars_ge_8',
  'chars_ge_16',
  'chars_ge_32',
  'chars_ge_64',
  // What kind of statement its first non-blank line is: a style preference is often about what is suggested.
  'opens_block', // if / elif / else / for / while / try / except / finally / with / def / class / a decorator
  'exits', // return / yield / raise / pass / break / continue
  'imports', // import / from
  'assigns', // an assignment (=, +=, ...; not ==)
  'calls', // a call or a subscript-free parenthesis: `name(`
  'has_string', // a string literal
  // The model's own confidence in it: log-probs of its tokens at temperature 1 (whatever the sampling temperature).
  'mean_logprob',
  'min_logprob',
  'sum_logprob', // floored at -30
] as const;


const indentOf = (line: string) => line.length - line.trimStart().length;
const isCode = (line: string) => line.trim() !== '' && !line.trimStart().startsWith('#');

/**
 * The outermost statement around the cursor that the window shows whole: the window's least indented code lines set
 * its indentation (0 when the window holds a top-level line; more when it starts inside a class or a function); the
 * block runs from the last statement at that indentation before the cursor (with its decorators) to the next one after
 * it, and is dedented by it so that it compiles on its own. `code(text)` is that block with `text` at the cursor.
 */
export function enclosingBlock(prefix: string, suffix: string): (text: string) => string {
  const pre = prefix.split('\n');
  const codeLines = pre.filter(isCode);
  const base = codeLines.length === 0 ? 0 : Math.min(...codeLines.map(indentOf));
  const continues = (line: string) => /^(else|elif|except|finally)\b/.test(line.trimStart());
  const opens = (line: string) => isCode(line) && indentOf(line) === base && !/^[)\]}]/.test(line.trimStart()) && !continues(line);
  let from = 0;
  for (let i = pre.length - 2; i >= 0; i--) { // the cursor's own line (last) is part of the block
    if (opens(pre[i])) {
      from = i;
      break;
    }
  }
  while (from > 0 && opens(pre[from - 1]) && pre[from - 1].trimStart().startsWith('@')) from -= 1; // decorators belong to their def
  const post = suffix.split('\n');
  let to = post.length;
  for (let i = 1; i < post.length; i++) { // line 0 is the rest of the cursor's line
    if (isCode(post[i]) && (indentOf(post[i]) < base || opens(post[i]))) {
      to = i;
      break;
    }
  }
  const before = pre.slice(from).join('\n');
  const after = post.slice(0, to).join('\n');
  const dedent = (line: string) => line.slice(Math.min(base, indentOf(line)));
  return (text) => (before + text + after).split('\n').map(dedent).join('\n');
}

// Names a suggestion may use without the file defining them.
const PYTHON_WORDS = new Set(
  ('False None True and as assert async await break class continue def del elif else except finally for from global if import in ' +
    'is lambda nonlocal not or pass raise return try while with yield self cls print len range str int float list dict set tuple ' +
    'bool isinstance enumerate zip open super type object min max sum sorted reversed any all map filter iter next getattr ' +
    'setattr hasattr repr format abs round Exception ValueError TypeError KeyError IndexError RuntimeError').split(' '),
);
const names = (code: string) => (code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter((n) => !PYTHON_WORDS.has(n));

/** Share of the suggestion's names that occur in the file (1 when it uses none). */
function knownNames(text: string, file: string): number {
  const used = names(text);
  if (used.length === 0) return 1;
  const known = new Set(names(file));
  return used.filter((n) => known.has(n)).length / used.length;
}

const firstNonBlank = (s: string) => s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';

/** One feature vector per input (a plain-text prompt has no file: its compile features are 0). */
export async function gateFeatures(inputs: readonly GateInput[]): Promise<number[][]> {
  const parts = inputs.map((x) => {
    try {
      return parseFim(x.prompt);
    } catch {
      return null;
    }
  });
  const codes: string[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const p = parts[i];
    if (!p) continue;
    codes.push(p.prefix + inputs[i].text + p.suffix, p.prefix + p.suffix, enclosingBlock(p.prefix, p.suffix)(inputs[i].text));
  }
  const ok = await checkSyntax(codes, { timeoutMs: 5000 });
  let k = 0;
  return inputs.map((x, i) => {
    const p = parts[i];
    const [compiles, windowCompiles, blockCompiles] = p ? [ok[k++], ok[k++], ok[k++]] : [false, false, false];
    const lines = x.text.split('\n').filter((l) => l.trim() !== '');
    const first = firstNonBlank(x.text);
    const trimmed = x.text.trim();
    const kinds = scanPython(x.text).kind;
    const lp = x.logprobs;
    const lpSum = lp.reduce((s, v) => s + v, 0);
    const fileLines = p ? new Set((p.prefix + '\n' + p.suffix).split('\n').map((l) => l.trim())) : new Set<string>();
    const f: Record<(typeof GATE_FEATURES)[number], number> = {
      log_tokens: Math.log1p(x.tokens),
      log_chars: Math.log1p(x.text.length),
      lines: Math.min(lines.length, 5),
      compiles: +compiles,
      window_compiles: +windowCompiles,
      block_compiles: +blockCompiles,
      has_comment: +kinds.includes(COMMENT),
      ended_by_model: +x.endedByModel,
      starts_newline: +x.text.startsWith('\n'),
      ends_colon: +(lines.length > 0 && lines[lines.length - 1].trimEnd().endsWith(':')),
      mid_line: +(p !== null && p.suffix.split('\n')[0].trim() !== ''),
      repeats_line: +(first !== '' && fileLines.has(first)),
      known_names: knownNames(x.text, p ? p.prefix + '\n' + p.suffix : x.prompt),
      chars_ge_8: +(trimmed.length >= 8),
      chars_ge_16: +(trimmed.length >= 16),
      chars_ge_32: +(trimmed.length >= 32),
      chars_ge_64: +(trimmed.length >= 64),
      opens_block: +/^(if|elif|else|for|while|try|except|finally|with|def|class|async)\b|^@/.test(first),
      exits: +/^(return|yield|raise|pass|break|continue)\b/.test(first),
      imports: +/^(import|from)\b/.test(first),
      assigns: +/(^|[^=!<>+\-*\/%&|^:])(=|[+\-*\/%&|^]=)(?!=)/.test(first.replace(/(['"]).*?\1/g, '')),
      calls: +/[A-Za-z0-9_\])]\(/.test(first),
      has_string: +kinds.includes(QUOTE),
      mean_logprob: lp.length === 0 ? 0 : lpSum / lp.length,
      min_logprob: lp.length === 0 ? 0 : Math.min(...lp),
      sum_logprob: Math.max(lpSum, -30),
    };
    return GATE_FEATURES.map((name) => f[name]);
  });
}
