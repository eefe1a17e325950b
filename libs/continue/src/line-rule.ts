// Where Continue ends an autocomplete suggestion, so that the server stops generating there too: what it decodes past
// that point is never shown, and training on it would teach text the user never saw.
//
// Continue (core/autocomplete, v1.3.9 and upstream) decides per request whether the suggestion may span several lines
// (`multilineCompletions: auto`: yes for Python, unless the cursor's line is a comment). A single-line suggestion ends
// at the first newline. A multi-line one is read line by line and ends:
//   - at a blank line after the first line                          (noDoubleNewLine)
//   - at a line equal to the first non-blank line below the cursor   (stopAtLinesExact / stopAtSimilarLine)
//   - at the third identical line in a row                           (stopAtRepeatingLines)
//   - after a line that arrives when `showWithinMs` (its modelTimeout, 150 ms) have passed since the request began
//     and some non-blank line has been shown                         (showWhateverWeHaveAtXMs)
// The lines are joined with newlines; the suggestion never ends with the newline of its last line.
import type { FimParts } from '@rlhf-code/tokenizer';

export const MULTILINE_MODES = ['auto', 'always', 'never'] as const;
export type MultilineMode = (typeof MULTILINE_MODES)[number];

export interface LineRuleOptions {
  multiline: boolean;
  /** Continue's modelTimeout used by showWhateverWeHaveAtXMs; Infinity = no time rule. */
  showWithinMs: number;
  /** The first non-blank line below the cursor's line ('' when none). */
  lineBelow: string;
}

/** Continue's `multilineCompletions` decision for a Python file (comment mark `#`). */
export function isMultiline(mode: MultilineMode, prefix: string, commentMark = '#'): boolean {
  if (mode !== 'auto') return mode === 'always';
  const cursorLine = prefix.slice(prefix.lastIndexOf('\n') + 1);
  return !cursorLine.trimStart().startsWith(commentMark);
}

/** The first non-blank line after the cursor's own line, as Continue's getLineBelowCursor finds it. */
export function lineBelowCursor(suffix: string): string {
  return (
    suffix
      .split('\n')
      .slice(1)
      .find((l) => l.trim() !== '') ?? ''
  );
}

/** The options for a FIM prompt's parts (Continue's own view: the prefix and suffix it sent). */
export function lineRuleFor(parts: Pick<FimParts, 'prefix' | 'suffix'>, mode: MultilineMode, showWithinMs: number): LineRuleOptions {
  return { multiline: isMultiline(mode, parts.prefix), showWithinMs, lineBelow: lineBelowCursor(parts.suffix) };
}

const isBracketEnding = (line: string) => /^[\s)\]}>;,]+$/.test(line) && line.trim() !== '';

/**
 * The rule for one suggestion, fed the growing text: `cut(text, elapsedMs)` returns where the suggestion ends (an index
 * into text, the text before it kept) or null to keep generating. It remembers the time each line was completed, as
 * Continue checks the clock when a line arrives, not later.
 */
export class LineRule {
  private lineTimes: number[] = []; // elapsed ms when line k was first seen complete

  constructor(private readonly o: LineRuleOptions) {}

  cut(text: string, elapsedMs: number): number | null {
    if (!this.o.multiline) {
      const nl = text.indexOf('\n');
      return nl >= 0 ? nl : null;
    }
    const below = this.o.lineBelow.trim();
    let start = 0;
    let shownNonBlank = false;
    let previous: string | null = null;
    let run = 0;
    for (let k = 0; ; k++) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) return null; // the current line is not finished yet
      const line = text.slice(start, nl);
      const endOfPrevious = Math.max(0, start - 1); // the text before this line, without the newline between them
      if (this.lineTimes.length === k) this.lineTimes.push(elapsedMs);
      if (k > 0 && line.trim() === '') return endOfPrevious;
      if (below !== '' && !isBracketEnding(below) && line.trim() === below) return k === 0 ? 0 : endOfPrevious;
      run = line === previous ? run + 1 : 1;
      if (run === 3) return endOfPrevious;
      if (line.trim() !== '') shownNonBlank = true;
      if (shownNonBlank && this.lineTimes[k] > this.o.showWithinMs) return nl;
      previous = line;
      start = nl + 1;
    }
  }
}

/**
 * Where a suggestion that reaches Continue whole ends (an index into `text`): every line arrives `elapsedMs` after the
 * request began, so past `showWithinMs` it ends after the first non-blank line. A server that holds a suggestion until
 * it is complete (the online show gate) sends it this way.
 */
export function wholeCut(text: string, o: LineRuleOptions, elapsedMs: number): number {
  const cut = new LineRule(o).cut(text.endsWith('\n') ? text : text + '\n', elapsedMs); // the last line is complete too
  return cut === null ? text.length : Math.min(cut, text.length);
}
