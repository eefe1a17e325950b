// A character-level view of Python source, enough for the mutations in libs/datagen mutate.ts to touch only real code:
// which characters are code, string literal or comment, the bracket depth at each character, and the
// source's physical lines. Not a full tokenizer (f-string expressions count as string), and it does not need
// to be: the mutations only have to avoid string contents and comments and know statement boundaries.

export const CODE = 0;
/** The opening quote(s) of a string literal. */
export const QUOTE = 1;
/** Inside a string literal, including its closing quote(s). */
export const STRING = 2;
export const COMMENT = 3;

export interface Line {
  /** Offset of the line's first character in the source. */
  start: number;
  /** Offset just past its last character (the "\n" is not part of the line). */
  end: number;
  text: string;
}

export interface PyScan {
  src: string;
  /** CODE, QUOTE, STRING or COMMENT for each character. */
  kind: Uint8Array;
  /** Bracket depth before each character; depth[src.length] is the depth at the end. */
  depth: Int32Array;
  lines: Line[];
}

export function scanPython(src: string): PyScan {
  const n = src.length;
  const kind = new Uint8Array(n);
  const depth = new Int32Array(n + 1);
  let d = 0;
  let i = 0;
  while (i < n) {
    const c = src[i];
    if (c === '#') {
      while (i < n && src[i] !== '\n') {
        kind[i] = COMMENT;
        depth[i++] = d;
      }
    } else if (c === '"' || c === "'") {
      const quote = src.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      for (let k = 0; k < quote.length; k++) {
        kind[i] = QUOTE;
        depth[i++] = d;
      }
      // Up to and including the closing quote; a backslash always escapes the next character (raw strings too,
      // as far as finding the end goes). A one-quote string cannot span lines.
      while (i < n) {
        if (quote.length === 1 && src[i] === '\n') break;
        const closes = src.startsWith(quote, i);
        const step = src[i] === '\\' ? 2 : closes ? quote.length : 1;
        for (let k = 0; k < step && i < n; k++) {
          kind[i] = STRING;
          depth[i++] = d;
        }
        if (closes) break;
      }
    } else {
      kind[i] = CODE;
      depth[i] = d;
      if (c === '(' || c === '[' || c === '{') d++;
      else if ((c === ')' || c === ']' || c === '}') && d > 0) d--;
      i++;
    }
  }
  depth[n] = d;

  const lines: Line[] = [];
  let start = 0;
  for (const text of src.split('\n')) {
    lines.push({ start, end: start + text.length, text });
    start += text.length + 1;
  }
  return { src, kind, depth, lines };
}

/** Offset of the line's first non-blank character, or -1 for a blank line. */
export function firstCharOf(line: Line): number {
  const m = /\S/.exec(line.text);
  return m ? line.start + m.index : -1;
}

/** Offset of the line's last non-blank character that is not part of a comment, or -1. */
export function lastCodeCharOf(scan: PyScan, line: Line): number {
  for (let i = line.end - 1; i >= line.start; i--) {
    if (scan.kind[i] !== COMMENT && !/\s/.test(scan.src[i])) return i;
  }
  return -1;
}

/**
 * Does a new statement start on this line? Its first character must be code or an opening quote, outside
 * brackets, and the previous line must not continue into it with a backslash.
 */
export function startsStatement(scan: PyScan, index: number): boolean {
  const line = scan.lines[index];
  const first = firstCharOf(line);
  if (first < 0 || scan.kind[first] === STRING || scan.kind[first] === COMMENT || scan.depth[first] !== 0) return false;
  for (let j = index - 1; j >= 0; j--) {
    const last = lastCodeCharOf(scan, scan.lines[j]);
    if (last < 0) continue; // blank or comment-only lines do not continue anything
    return !(scan.src[last] === '\\' && scan.kind[last] === CODE);
  }
  return true;
}

/** The line ends a block header: its last code character is a ":" outside brackets. */
export function endsWithColon(scan: PyScan, line: Line): boolean {
  const last = lastCodeCharOf(scan, line);
  return last >= 0 && scan.src[last] === ':' && scan.kind[last] === CODE && scan.depth[last] === 0;
}

/** The nearest earlier line with code ends a block header (also when the header spans several lines). */
export function followsHeader(scan: PyScan, index: number): boolean {
  for (let j = index - 1; j >= 0; j--) {
    if (lastCodeCharOf(scan, scan.lines[j]) >= 0) return endsWithColon(scan, scan.lines[j]);
  }
  return false;
}

/** The statement starting on this line also ends on it (no open bracket, string or backslash at its end). */
export function endsOnSameLine(scan: PyScan, line: Line): boolean {
  const last = lastCodeCharOf(scan, line);
  if (last < 0) return false;
  return scan.depth[line.end] === 0 && scan.kind[line.end] !== STRING && !(scan.src[last] === '\\' && scan.kind[last] === CODE);
}

/** All characters in [from, to) are code. */
export function allCode(scan: PyScan, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (scan.kind[i] !== CODE) return false;
  return true;
}

export const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
