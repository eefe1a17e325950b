// A typing session, as Continue would send it: a user types the code of one file, and Continue sends a request at each
// pause (its 350 ms debounce lets no request out while the keys come faster), so consecutive prompts share everything
// up to the cursor. Made from held-out FIM cases: the session's file is the test file whose cases' middles have the
// most pauses; each of its cases, in order, is a place where the user types the middle in, character by character,
// with the rest of the file (the case's prefix and suffix) around it.
//   pauses   after each word (a run of letters, digits, underscores) and at the end of what is typed: a typist who
//            stops to think at word boundaries. Each pause is a request: the prefix is the case's prefix plus what
//            was typed so far, the suffix the case's suffix (the code after the cursor does not change as one types)
//   prompt   Continue's (continuePrompt: its budgets, its form) with another test file's code as the context snippet,
//            the same for every request of the session, as Continue keeps a recently edited file in its context
import { contextSnippet, continuePrompt, type PromptForm } from '@rlhf-code/continue';
import type { FimCase } from './prompts';

/** A held-out FIM case with its true middle: what the user types. */
export interface TypedCase extends FimCase {
  middle: string;
}

/** One request of the session: the prompt, and the code around the cursor that Continue judges what it shows by. */
export interface TypingRequest {
  prompt: string;
  code: string;
  suffix: string;
}

export interface TypingSession {
  path: string;
  requests: TypingRequest[];
}

const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);

/** Lengths of `typed` typed so far at each pause: after each word, and at its end. */
export function typingPauses(typed: string): number[] {
  const out: number[] = [];
  for (let n = 1; n <= typed.length; n++) if (n === typed.length || (isWord(typed[n - 1]) && !isWord(typed[n]))) out.push(n);
  return out;
}

/**
 * The session of the test file whose cases have the most pauses (the first such file, in `cases` order), at most
 * `maxRequests` requests; the context snippet comes from the first case of another file. Needs cases of two files.
 */
export function typingSession(cases: readonly TypedCase[], form: PromptForm, countTokens: (t: string) => number, maxPromptTokens: number, maxRequests: number): TypingSession {
  const byFile = new Map<string, TypedCase[]>();
  for (const c of cases) byFile.set(c.path, [...(byFile.get(c.path) ?? []), c]);
  if (byFile.size < 2) throw new Error('typing session: need FIM cases of at least 2 files (one is the context of the other)');
  const pausesOf = (file: TypedCase[]) => file.reduce((n, c) => n + typingPauses(c.middle).length, 0);
  const [path, file] = [...byFile].reduce((best, f) => (pausesOf(f[1]) > pausesOf(best[1]) ? f : best));
  const other = cases.find((c) => c.path !== path)!;
  const requests: TypingRequest[] = [];
  for (const c of file) {
    for (const n of typingPauses(c.middle)) {
      if (requests.length === maxRequests) return { path, requests };
      const p = continuePrompt(path, c.prefix + c.middle.slice(0, n), c.suffix, countTokens, maxPromptTokens, { form, snippets: [contextSnippet(other, 40)] });
      requests.push({ prompt: p.prompt, code: p.code, suffix: p.suffix });
    }
  }
  return { path, requests };
}
