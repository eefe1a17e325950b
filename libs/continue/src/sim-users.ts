// Simulated users: who accepts which suggestion. The online learner is never told which user it serves; it must raise
// acceptance from accept / reject alone, for each of them.
//   exact       accepts when the suggestion's first line, trimmed, is the first line of what they were about to type
//   compiles    accepts any one-line suggestion after which their file still compiles (and that is not blank)
//   no-comment  as `compiles`, but never accepts a suggestion that contains a comment (a style preference)
//   long        accepts a suggestion of at least 20 characters after which the file compiles (several lines allowed):
//               someone who wants more than a token or two
//   close       accepts when the suggestion's first non-blank line is close to the first line they were about to
//               type: at most 30% of its characters to edit (Levenshtein distance over the longer line's length);
//               someone who takes a near miss and fixes it. Added after the show gate's features were chosen, and not
//               tuned on: a user the gate was not designed for
//   coin        the negative control: accepts 40% of suggestions whatever they say (a hash of the file and the
//               suggestion decides, so a repeat gets the same answer); nothing can be learnt, so any "gain" is noise
import { createHash } from 'crypto';
import { distance } from 'fastest-levenshtein';
import { checkSyntax, COMMENT, scanPython } from '@rlhf-code/sandbox';

export const SIM_USERS = ['exact', 'compiles', 'no-comment', 'long', 'close', 'coin'] as const;
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
      return {
        name,
        accepts: async (cases) => cases.map((c) => firstNonBlankLine(c.shown) !== '' && editShare(firstNonBlankLine(c.shown), firstNonBlankLine(c.middle)) <= 0.3),
      };
    case 'coin':
      return { name, accepts: async (cases) => cases.map((c) => c.shown.trim() !== '' && coin(c) < 0.4) };
  }
}
