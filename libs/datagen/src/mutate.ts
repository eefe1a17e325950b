// Seeded mutations of Python code, for reward-model data: "broken" variants of a reference solution whose
// scores are then earned by running them in the sandbox. Pure string transforms (no Python needed).
//
// Syntax-breaking (the result never compiles):
//   drop_colon         remove the ":" that ends a block header (def/if/for/while/else/...)
//   unbalance_bracket  delete one closing bracket
//   truncate           cut the code right after an opening bracket or an assignment "=" (mid-line)
//   bad_indent         indent one statement by extra spaces where no new block may start (to no existing level)
// Logic-breaking (the result still compiles, but usually computes something else):
//   swap_comparison    == <-> !=, < -> >= / <= / >, ...
//   swap_arithmetic    + <-> -, * -> +, / -> *, // -> /, % -> //, ** -> * (augmented forms too)
//   off_by_one         range(..., n) -> range(..., n ± 1), x[i] -> x[i ± 1], x[0] -> x[1]
//   wrong_return       return <expr> -> return <another variable or a constant>
//   delete_line        delete one single-line statement (never leaving a block empty)
// Each picks one of its possible sites with the random generator; null when the code has no such site.
import { dataRandom, type Seed } from '@rlhf-code/data';
import { allCode, CODE, endsOnSameLine, endsWithColon, followsHeader, lastCodeCharOf, PY_KEYWORDS, scanPython, startsStatement, type PyScan } from '@rlhf-code/sandbox';

export const SYNTAX_MUTATIONS = ['drop_colon', 'unbalance_bracket', 'truncate', 'bad_indent'] as const;
export const LOGIC_MUTATIONS = ['swap_comparison', 'swap_arithmetic', 'off_by_one', 'wrong_return', 'delete_line'] as const;
export type SyntaxMutation = (typeof SYNTAX_MUTATIONS)[number];
export type LogicMutation = (typeof LOGIC_MUTATIONS)[number];
export type MutationKind = SyntaxMutation | LogicMutation;
export const MUTATIONS: readonly MutationKind[] = [...SYNTAX_MUTATIONS, ...LOGIC_MUTATIONS];

type Random = () => number;
const pick = <T>(items: readonly T[], random: Random): T => items[Math.floor(random() * items.length)];
const splice = (s: string, from: number, to: number, insert: string) => s.slice(0, from) + insert + s.slice(to);

/** Indices of lines on which a statement starts. */
function statementLines(scan: PyScan): number[] {
  return scan.lines.map((_, i) => i).filter((i) => startsStatement(scan, i));
}

/** Indentation of a line (its leading blanks). */
const indentOf = (text: string) => /^[ \t]*/.exec(text)![0];

/** The identifier ending just before offset `at` (skipping spaces), or ''. */
function wordBefore(src: string, at: number): string {
  return /(\w*)\s*$/.exec(src.slice(Math.max(0, at - 40), at))![1];
}

function dropColon(scan: PyScan, random: Random): string | null {
  const sites = scan.lines.filter((l) => endsWithColon(scan, l)).map((l) => lastCodeCharOf(scan, l));
  if (sites.length === 0) return null;
  const at = pick(sites, random);
  return splice(scan.src, at, at + 1, '');
}

function unbalanceBracket(scan: PyScan, random: Random): string | null {
  const sites: number[] = [];
  for (let i = 0; i < scan.src.length; i++) if (')]}'.includes(scan.src[i]) && scan.kind[i] === CODE) sites.push(i);
  if (sites.length === 0) return null;
  const at = pick(sites, random);
  return splice(scan.src, at, at + 1, '');
}

function truncate(scan: PyScan, random: Random): string | null {
  const { src } = scan;
  const sites: number[] = [];
  for (let i = 0; i < src.length; i++) {
    if (scan.kind[i] !== CODE) continue;
    const isOpen = '([{'.includes(src[i]);
    const isAssign = src[i] === '=' && !'=!<>'.includes(src[i - 1] ?? '') && src[i + 1] !== '=';
    if (isOpen || isAssign) sites.push(i);
  }
  if (sites.length === 0) return null;
  return src.slice(0, pick(sites, random) + 1);
}

/** Indentation widths as Python compares them: tabs to multiples of 8, and tabs as one column. */
function indentWidths(indent: string): string {
  let w8 = 0;
  for (const c of indent) w8 = c === '\t' ? (Math.floor(w8 / 8) + 1) * 8 : w8 + 1;
  return `${w8}/${indent.length}`;
}

function badIndent(scan: PyScan, random: Random): string | null {
  const stmts = statementLines(scan);
  // Indenting the first statement of a block is legal (the block takes any indentation), so skip those.
  const sites = stmts.filter((i) => !followsHeader(scan, i));
  if (sites.length === 0) return null;
  const line = scan.lines[pick(sites, random)];
  // Add spaces until the indentation matches no existing block level: otherwise the line could silently
  // join a deeper block (3 -> 4 spaces when a 4-space block exists) instead of breaking the syntax.
  const levels = new Set(stmts.map((i) => indentWidths(indentOf(scan.lines[i].text))));
  const indent = indentOf(line.text);
  let extra = ' ';
  while (levels.has(indentWidths(extra + indent))) extra += ' ';
  return splice(scan.src, line.start, line.start, extra);
}

const COMPARISON_SWAPS: Record<string, string[]> = {
  '==': ['!='],
  '!=': ['=='],
  '<': ['>=', '<=', '>'],
  '>': ['<=', '>=', '<'],
  '<=': ['>', '<'],
  '>=': ['<', '>'],
};

function swapComparison(scan: PyScan, random: Random): string | null {
  const sites: { at: number; op: string }[] = [];
  // Not part of <<, >>, ->, <<=, >>=, or an assignment.
  for (const m of scan.src.matchAll(/(?<![<>=!-])(==|!=|<=|>=|<|>)(?![<>=])/g)) {
    if (allCode(scan, m.index, m.index + m[1].length)) sites.push({ at: m.index, op: m[1] });
  }
  if (sites.length === 0) return null;
  const { at, op } = pick(sites, random);
  return splice(scan.src, at, at + op.length, pick(COMPARISON_SWAPS[op], random));
}

const ARITHMETIC_SWAPS: Record<string, string> = { '+': '-', '-': '+', '*': '+', '/': '*', '//': '/', '%': '//', '**': '*' };

function swapArithmetic(scan: PyScan, random: Random): string | null {
  const { src } = scan;
  const sites: { at: number; op: string }[] = [];
  for (const m of src.matchAll(/\*\*|\/\/|[+\-*/%]/g)) {
    const at = m.index;
    const op = m[0];
    const after = at + op.length;
    if (!allCode(scan, at, after)) continue;
    if (src[after] === '>' || '*/'.includes(src[after] ?? '')) continue; // ->, or part of a longer operator
    if (at > 0 && '*/<>=!'.includes(src[at - 1])) continue; // second half of ** // or an operator like <= (never for + - %)
    // Binary only: the operand before must end in a name, number, bracket or string, and not be a keyword
    // (return -1, lambda *a) or the mantissa of 1e-5.
    const before = src.slice(0, at).replace(/\s+$/, '');
    if (!/[\w)\]}'"]$/.test(before) || PY_KEYWORDS.has(wordBefore(src, at))) continue;
    if (/(^|[^\w.])\d[\d_]*\.?[\d_]*[eE]$/.test(before)) continue;
    sites.push({ at, op });
  }
  if (sites.length === 0) return null;
  const { at, op } = pick(sites, random);
  return splice(src, at, at + op.length, ARITHMETIC_SWAPS[op]);
}

/** Offset of the bracket closing the one opened at `open` (same depth), or -1. */
function closingBracket(scan: PyScan, open: number): number {
  const d = scan.depth[open];
  for (let i = open + 1; i < scan.src.length; i++) {
    if (scan.kind[i] === CODE && scan.depth[i] === d + 1 && ')]}'.includes(scan.src[i])) return i;
  }
  return -1;
}

function offByOne(scan: PyScan, random: Random): string | null {
  const { src } = scan;
  const sign = () => (random() < 0.5 ? ' + 1' : ' - 1');
  // Each site rewrites [from, to) given the random generator.
  const sites: { from: number; to: number; edit: (text: string) => string }[] = [];
  // range(stop) / range(start, stop[, step]): shift the stop.
  for (const m of src.matchAll(/(?<![\w.])range\s*\(/g)) {
    const open = m.index + m[0].length - 1;
    if (!allCode(scan, m.index, open + 1)) continue;
    const close = closingBracket(scan, open);
    if (close < 0) continue;
    const commas: number[] = [];
    for (let i = open + 1; i < close; i++) if (src[i] === ',' && scan.kind[i] === CODE && scan.depth[i] === scan.depth[open] + 1) commas.push(i);
    const stopEnd = commas.length === 0 ? close : commas.length === 1 ? close : commas[1];
    const stopStart = commas.length === 0 ? open + 1 : commas[0] + 1;
    const arg = src.slice(stopStart, stopEnd);
    if (arg.trim() === '') continue;
    const end = stopStart + arg.replace(/\s+$/, '').length;
    sites.push({ from: end, to: end, edit: () => sign() });
  }
  // x[i], x[-1], x[len(y) - 1] is left alone: only a name or an integer inside a subscript.
  for (const m of src.matchAll(/(?<=[\w)\]])\[\s*(-?\d+|[A-Za-z_]\w*)\s*\]/g)) {
    if (!allCode(scan, m.index, m.index + m[0].length) || PY_KEYWORDS.has(wordBefore(src, m.index))) continue;
    const inner = m[1];
    const from = m.index + m[0].indexOf(inner);
    const edit = /^-?\d+$/.test(inner) ? () => String(Number(inner) + (random() < 0.5 ? 1 : -1)) : () => inner + sign();
    sites.push({ from, to: from + inner.length, edit });
  }
  if (sites.length === 0) return null;
  const site = pick(sites, random);
  return splice(src, site.from, site.to, site.edit(src.slice(site.from, site.to)));
}

const RETURN_CONSTANTS = ['0', '1', '-1', 'None', 'True', 'False', '[]', "''"];

function wrongReturn(scan: PyScan, random: Random): string | null {
  const { src } = scan;
  // Names the code binds: assignments, loop variables, parameters.
  const names = new Set<string>();
  for (const m of src.matchAll(/^[ \t]*([A-Za-z_]\w*)[ \t]*(?:[-+*/%]?=)(?!=)/gm)) names.add(m[1]);
  for (const m of src.matchAll(/\bfor[ \t]+([A-Za-z_]\w*)[ \t]+in\b/g)) names.add(m[1]);
  for (const m of src.matchAll(/\bdef[ \t]+\w+[ \t]*\(([^)]*)\)/g)) {
    for (const p of m[1].split(',')) {
      const name = /^[ \t*]*([A-Za-z_]\w*)/.exec(p)?.[1];
      if (name) names.add(name);
    }
  }
  const sites: { from: number; to: number; expr: string }[] = [];
  scan.lines.forEach((line, i) => {
    const m = /^([ \t]*return[ \t]+)(\S.*)$/.exec(line.text);
    if (!m || !startsStatement(scan, i) || !endsOnSameLine(scan, line)) return;
    const from = line.start + m[1].length;
    const to = lastCodeCharOf(scan, line) + 1;
    if (to > from) sites.push({ from, to, expr: src.slice(from, to) });
  });
  if (sites.length === 0) return null;
  const site = pick(sites, random);
  const used = new Set(site.expr.match(/[A-Za-z_]\w*/g) ?? []);
  const choices = [...[...names].filter((n) => !used.has(n) && !PY_KEYWORDS.has(n)).sort(), ...RETURN_CONSTANTS.filter((c) => c !== site.expr.trim())];
  return splice(src, site.from, site.to, pick(choices, random));
}

function deleteLine(scan: PyScan, random: Random): string | null {
  const stmts = statementLines(scan);
  const sites = stmts.filter((i, k) => {
    const line = scan.lines[i];
    if (endsWithColon(scan, line) || !endsOnSameLine(scan, line)) return false;
    // Keep blocks non-empty: after a header, the next statement must be in the same block.
    if (!followsHeader(scan, i)) return true;
    const next = stmts[k + 1];
    return next !== undefined && indentOf(scan.lines[next].text) === indentOf(line.text);
  });
  if (sites.length === 0) return null;
  const line = scan.lines[pick(sites, random)];
  const end = line.end < scan.src.length ? line.end + 1 : line.end; // with its newline
  return splice(scan.src, line.start, end, '');
}

const MUTATORS: Record<MutationKind, (scan: PyScan, random: Random) => string | null> = {
  drop_colon: dropColon,
  unbalance_bracket: unbalanceBracket,
  truncate,
  bad_indent: badIndent,
  swap_comparison: swapComparison,
  swap_arithmetic: swapArithmetic,
  off_by_one: offByOne,
  wrong_return: wrongReturn,
  delete_line: deleteLine,
};

/** One mutation of `code`, or null when it has no site for this kind. `random` returns floats in [0, 1). */
export function mutate(code: string, kind: MutationKind, random: Random): string | null {
  const out = MUTATORS[kind](scanPython(code), random);
  return out === null || out === code ? null : out;
}

export interface Mutant {
  kind: MutationKind;
  code: string;
}

/**
 * Up to `perKind` mutants of each kind, distinct from the code and from each other, in `kinds` order.
 * The same code and seed always give the same list.
 */
export function mutants(code: string, seed: Seed, options: { kinds?: readonly MutationKind[]; perKind?: number } = {}): Mutant[] {
  const { kinds = MUTATIONS, perKind = 1 } = options;
  const seen = new Set([code]);
  const out: Mutant[] = [];
  for (const kind of kinds) {
    const random = dataRandom(`${seed}:${kind}`);
    // A few extra attempts so that collisions (the same site picked twice) do not cost a mutant.
    for (let tries = 0, made = 0; made < perKind && tries < perKind * 4; tries++) {
      const m = mutate(code, kind, random);
      if (m === null) break;
      if (seen.has(m)) continue;
      seen.add(m);
      out.push({ kind, code: m });
      made++;
    }
  }
  return out;
}
