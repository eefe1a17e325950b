// Simulated users: who accepts which suggestion. The online learner is never told which user it serves; it must raise
// acceptance from accept / reject alone, for each of them.
//
// Users whose decision depends on the code they meant (the example's true middle), with noise: nothing the server or
// its show gate can compute from the suggestion and its file alone decides for them.
//   exact       accepts when the suggestion's first line, trimmed, is the first line of what they were about to type
//   close       accepts when the suggestion's first non-blank line is close to the first line they were about to
//               type: at most 30% of its characters to edit (Levenshtein distance over the longer line's length);
//               someone who takes a near miss and fixes it
//   graded      accepts with a probability that falls with the edits between the suggestion's first non-blank line and
//               the line they meant: 0.9 exp(-d / 0.15) for an edit share d (0.9 exact, 0.46 at 10%, 0.12 at 30%)
//   lenient     accepts an exact first line mostly (0.85), a plausible one sometimes (within half its characters of the
//               meant line: 0.3) and anything else rarely (0.05: a Tab pressed by habit)
//   whole       judges everything shown against what they meant: 0.9 x the share of the shown characters that agree
//               with the meant text from the start (lines ending with whitespace compared trimmed), 0 when the first
//               line is wrong; a correct line followed by wrong ones is worth less than the correct line alone
//   terse       a latent style preference: as `graded`, but a suggestion of more than one non-blank line is accepted
//               0.3 times as often (they mostly want one line at a time, even a right one)
// Users who are deterministic functions of features the show gate computes (kept to compare with earlier runs; a gate
// can learn them exactly, so a gain on them says little about learning what a user means):
//   compiles    accepts any one-line suggestion after which their file still compiles (and that is not blank)
//   no-comment  as `compiles`, but never accepts a suggestion that contains a comment
//   long        accepts a suggestion of at least 20 characters after which the file compiles (several lines allowed)
// The negative control:
//   coin        accepts 40% of suggestions whatever they say; nothing can be learnt, so any "gain" is noise
// Every random decision is a hash of the case (file, suggestion, meant text) and the user's name: the same suggestion
// at the same position gets the same answer, so two A/B arms that show the same text are judged alike (pairing).
import { createHash } from 'crypto';
import { distance } from 'fastest-levenshtein';
import { checkSyntax, COMMENT, scanPython } from '@rlhf-code/sandbox';

export const SIM_USERS = ['exact', 'close', 'graded', 'lenient', 'whole', 'terse', 'compiles', 'no-comment', 'long', 'coin'] as const;
export type SimUserName = (typeof SIM_USERS)[number];

/** The situation a user judges: the file around the cursor, the true middle, and what Continue displayed. */
export interface Judged {
  prefix: string;
  suffix: string;
  middle: string;
  shown: string;
}

export interface SimUser {
  name: SimUserName;
  /** One decision per case, in order. */
  accepts(cases: readonly Judged[]): Promise<boolean[]>;
}

const firstLine = (s: string) => s.split('\n')[0].trim();
const firstNonBlankLine = (s: string) => s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';

/** Edits (Levenshtein) to turn a into b, over the longer one's length: 0 equal, 1 nothing in common. */
const editShare = (a: string, b: string) => (a.length === 0 && b.length === 0 ? 0 : distance(a, b) / Math.max(a.length, b.length));

function hasComment(code: string): boolean {
  return scanPython(code).kind.includes(COMMENT);
}

/** The file with the suggestion in it compiles (checked in the sandbox, several at once). */
async function compilesInFile(cases: readonly Judged[]): Promise<boolean[]> {
  return checkSyntax(cases.map((c) => c.prefix + c.shown + c.suffix));
}

/** A uniform number in [0, 1) from a hash of the case: the coin user's answer does not depend on the suggestion's merit. */
const coin = (c: Judged) => createHash('sha256').update(`${c.prefix}\u0000${c.shown}\u0000${c.suffix}`).digest().readUInt32BE(0) / 2 ** 32;

/** A uniform number in [0, 1) from a hash of the whole case (the meant text included) and a salt naming the user. */
const draw = (c: Judged, salt: string) =>
  createHash('sha256').update(`${salt}\u0000${c.prefix}\u0000${c.middle}\u0000${c.shown}\u0000${c.suffix}`).digest().readUInt32BE(0) / 2 ** 32;

/** Edit share between the suggestion's first non-blank line and the meant one (1 when the suggestion is blank). */
const firstLineDistance = (c: Judged) => {
  const shown = firstNonBlankLine(c.shown);
  return shown === '' ? 1 : editShare(shown, firstNonBlankLine(c.middle));
};

/** The graded user's acceptance probability for an edit share d of the first line. */
export const gradedProbability = (d: number) => 0.9 * Math.exp(-d / 0.15);

/** The lenient user's: exact, plausible (within half the characters), anything else. */
export const lenientProbability = (d: number) => (d === 0 ? 0.85 : d <= 0.5 ? 0.3 : 0.05);

const rstripLines = (s: string) => s.split('\n').map((l) => l.trimEnd()).join('\n');

/** The whole user's: 0.9 x the share of the shown text that agrees with the meant text from its start; 0 on a wrong first line. */
export function wholeProbability(shown: string, middle: string): number {
  const a = rstripLines(shown).trim();
  const b = rstripLines(middle).trim();
  if (a === '' || firstLine(a) !== firstLine(b)) return 0;
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return (0.9 * k) / a.length;
}

const nonBlankLines = (s: string) => s.split('\n').filter((l) => l.trim() !== '').length;

/** Accept each case with its probability, drawn from the case's hash. */
const withProbability = (name: SimUserName, p: (c: Judged) => number) => (cases: readonly Judged[]) =>
  Promise.resolve(cases.map((c) => c.shown.trim() !== '' && draw(c, name) < p(c)));

const oneLine = (s: string) => s.trim() !== '' && !s.replace(/^\n/, '').includes('\n');

export function simUser(name: SimUserName): SimUser {
  switch (name) {
    case 'exact':
      return { name, accepts: async (cases) => cases.map((c) => firstLine(c.shown) !== '' && firstLine(c.shown) === firstLine(c.middle)) };
    case 'compiles':
      return { name, accepts: async (cases) => (await compilesInFile(cases)).map((ok, i) => ok && oneLine(cases[i].shown)) };
    case 'no-comment':
      return {
        name,
        accepts: async (cases) => (await compilesInFile(cases)).map((ok, i) => ok && oneLine(cases[i].shown) && !hasComment(cases[i].shown)),
      };
    case 'long':
      return { name, accepts: async (cases) => (await compilesInFile(cases)).map((ok, i) => ok && cases[i].shown.trim().length >= 20) };
    case 'close':
      return { name, accepts: async (cases) => cases.map((c) => firstLineDistance(c) <= 0.3) }; // a blank suggestion is at distance 1
    case 'graded':
      return { name, accepts: withProbability(name, (c) => gradedProbability(firstLineDistance(c))) };
    case 'lenient':
      return { name, accepts: withProbability(name, (c) => lenientProbability(firstLineDistance(c))) };
    case 'whole':
      return { name, accepts: withProbability(name, (c) => wholeProbability(c.shown, c.middle)) };
    case 'terse':
      return { name, accepts: withProbability(name, (c) => gradedProbability(firstLineDistance(c)) * (nonBlankLines(c.shown) > 1 ? 0.3 : 1)) };
    case 'coin':
      return { name, accepts: async (cases) => cases.map((c) => c.shown.trim() !== '' && coin(c) < 0.4) };
  }
}
