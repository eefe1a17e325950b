// Hindsight: what the user actually wrote at a cursor, read from the code of their other requests, and how a
// suggestion compares with it (training.userRm.hindsight).
//
// A completion request carries the code around its cursor (prefix and suffix). The same file seen again in another
// request (after the user typed on) holds, between the text just before the old cursor and the text that followed it,
// what the user wrote there. With it the reward model of the user can learn how this user's accepts relate to what
// they meant (an exact first line, a near one, one line rather than several), which the suggestion and its file alone
// cannot show; and RL can score rollouts at cursors whose written code is known. Nothing here knows any user's rule:
// the comparisons below are generic measures of agreement, and the reward model learns their weights from accepts.
import { distance } from 'fastest-levenshtein';

/** The code around a cursor: what a request's FIM prompt shows before and after it. */
export interface CursorCode {
  prefix: string;
  suffix: string;
}

/** Characters of the prefix (before the cursor) that must be found again, once, in another request's code. */
export const ANCHOR_BEFORE = 80;
/**
 * The text after the cursor that must follow within MAX_WRITTEN characters: the suffix up to the end of its first line
 * with at least 8 characters that are not whitespace, at most this many characters (a longer anchor would more often
 * run into the other request's own cursor, where its code has a gap).
 */
export const ANCHOR_AFTER = 40;
/** Longest written text read back (a longer gap is not taken for the same spot). */
export const MAX_WRITTEN = 600;

/**
 * What was written at `at`'s cursor according to the other requests' code `others`: the text between `at`'s last
 * ANCHOR_BEFORE characters before the cursor (found exactly once in one of the others' prefix or suffix) and the start
 * of the text after the cursor (afterAnchor; found at most MAX_WRITTEN characters after it). null: no other request
 * shows that spot (too little code around the cursor, not found, or found ambiguously). A request with the same
 * code as `at` tells nothing and is skipped.
 */
export function writtenAt(at: CursorCode, others: readonly CursorCode[]): string | null {
  const before = at.prefix.slice(-ANCHOR_BEFORE);
  const after = afterAnchor(at.suffix);
  if (before.length < ANCHOR_BEFORE / 2 || after === null) return null;
  for (const o of others) {
    if (o.prefix === at.prefix && o.suffix === at.suffix) continue;
    for (const text of [o.prefix, o.suffix]) {
      const i = text.indexOf(before);
      if (i < 0 || text.indexOf(before, i + 1) >= 0) continue;
      const from = i + before.length;
      const j = text.indexOf(after, from);
      if (j >= 0 && j - from <= MAX_WRITTEN) return text.slice(from, j);
    }
  }
  return null;
}

/** The suffix up to the end of its first line with 8 or more non-whitespace characters (ANCHOR_AFTER at most). */
function afterAnchor(suffix: string): string | null {
  let end = 0;
  while (end < suffix.length) {
    const nl = suffix.indexOf('\n', end + 1);
    end = nl < 0 ? suffix.length : nl;
    const text = suffix.slice(0, Math.min(end, ANCHOR_AFTER));
    if (text.replace(/\s/g, '').length >= 8) return text;
    if (end >= ANCHOR_AFTER) return null;
  }
  return null;
}

const firstLine = (s: string) => (s.split('\n').find((l) => l.trim() !== '') ?? '').trim();

/** The hindsight inputs' names, in order (for reports and tests). */
export const HINDSIGHT_FEATURES = ['first_line_exact', 'first_line_edit_share', 'agree_from_start', 'written_blank'] as const;

/**
 * How `shown` compares with what was `written` there: the first non-blank lines equal (trimmed); their edit distance
 * over the longer one's length (0 equal, 1 nothing in common); the share of the shown characters that agree with the
 * written text from the start (whitespace at line ends ignored); the user wrote nothing but whitespace there.
 */
export function hindsightFeatures(shown: string, written: string): number[] {
  const [a, b] = [firstLine(shown), firstLine(written)];
  const longer = Math.max(a.length, b.length);
  const norm = (s: string) => s.replace(/[ \t]+\n/g, '\n').trimEnd();
  const [s, w] = [norm(shown), norm(written)];
  let k = 0;
  while (k < s.length && k < w.length && s[k] === w[k]) k++;
  return [a !== '' && a === b ? 1 : 0, longer === 0 ? 0 : distance(a, b) / longer, s.length === 0 ? 0 : k / s.length, b === '' ? 1 : 0];
}
