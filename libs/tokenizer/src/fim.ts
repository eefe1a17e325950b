// Fill-in-the-middle prompts.
//
// The text form is Qwen2.5-Coder's PSM (prefix-suffix-middle) form, the one Continue sends for "qwen ... coder" models:
//   <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>      and the model writes the middle, then EOS.
//
// A checkpoint may instead have been trained on the SPM (suffix-prefix-middle) order, in the variant where the prefix
// and the middle are contiguous (Bavarian et al. 2022, appendix D; Code Llama's "suffix first" infilling):
//   <|fim_prefix|><|fim_suffix|>{suffix}<|fim_middle|>{prefix}      and the model writes the middle, then EOS.
// The middle then simply continues the prefix, so what the model learnt from plain code applies from its first token
// on; only where to stop depends on the suffix. The checkpoint says which order it reads in tokenizer_config.json
// ("fim_mode": "psm" | "spm"; absent = "psm", as for every Qwen checkpoint). Prompts keep arriving in PSM text form;
// fimIds lays the parts out in the order the checkpoint reads.
//
// Continue since March 2026 puts the other files it has gathered (context snippets) before the FIM part, in
// Qwen2.5-Coder's repository-level form:
//   <|repo_name|>{repo}\n<|file_sep|>{path}\n{content}\n<|file_sep|>{path}\n{content}\n<|file_sep|>{current path}\n<|fim_prefix|>...
// parseFim returns that header as `repo`; Continue 1.3.9 instead writes the same snippets as `# `-commented lines at
// the start of the prefix (repoAsComments turns the first form into the second, for models trained on that one).
import { SPECIAL_TOKENS, type FimMode } from './special-tokens';
import type { Tokenizer } from './tokenizer';

const { fimPrefix, fimSuffix, fimMiddle, repoName, fileSep } = SPECIAL_TOKENS;


export interface RepoFile {
  path: string;
  content: string;
}

/** The repository-level header of a FIM prompt: the repository's name, other files, the current file's path. */
export interface RepoContext {
  name: string;
  files: RepoFile[];
  path: string;
}

export interface FimParts {
  prefix: string;
  suffix: string;
  /** Present when the prompt starts with a <|repo_name|> / <|file_sep|> header. */
  repo?: RepoContext;
}

export function formatFim(prefix: string, suffix: string): string {
  return `${fimPrefix}${prefix}${fimSuffix}${suffix}${fimMiddle}`;
}

function count(text: string, marker: string): number {
  return text.split(marker).length - 1;
}

/**
 * Inverse of formatFim. A prompt with no FIM marker at all is plain text: returns null.
 * A prompt with some FIM markers that is not exactly formatFim's shape (each marker once, in order, prompt starting
 * with <|fim_prefix|> and ending with <|fim_middle|>) is malformed: throws, naming what is wrong.
 */
export function parseFim(prompt: string): FimParts | null {
  const counts = [fimPrefix, fimSuffix, fimMiddle].map((m) => count(prompt, m));
  if (counts.every((c) => c === 0)) return null;
  if (counts.some((c) => c !== 1)) {
    throw new Error(`parseFim: expected each of ${fimPrefix}, ${fimSuffix}, ${fimMiddle} exactly once, found ${counts.join(', ')}`);
  }
  const start = prompt.indexOf(fimPrefix);
  const header = prompt.slice(0, start);
  if (header !== '' && !header.startsWith(repoName) && !header.startsWith(fileSep)) {
    throw new Error(`parseFim: prompt must start with ${fimPrefix} (or a ${repoName} / ${fileSep} header)`);
  }
  if (!prompt.endsWith(fimMiddle)) throw new Error(`parseFim: prompt must end with ${fimMiddle}`);
  const body = prompt.slice(start + fimPrefix.length, prompt.length - fimMiddle.length);
  const cut = body.indexOf(fimSuffix);
  if (cut < 0) throw new Error(`parseFim: ${fimSuffix} must come after ${fimPrefix}`);
  const parts: FimParts = { prefix: body.slice(0, cut), suffix: body.slice(cut + fimSuffix.length) };
  if (header !== '') parts.repo = parseRepoHeader(header);
  return parts;
}

/**
 * `<|repo_name|>{name}\n<|file_sep|>{path}\n{content}\n ... <|file_sep|>{current path}\n` -> its parts. The last
 * section is the current file (its content is the FIM part that follows); the name is optional ('' without it).
 */
function parseRepoHeader(header: string): RepoContext {
  let name = '';
  let rest = header;
  if (rest.startsWith(repoName)) {
    const end = rest.indexOf(fileSep);
    name = (end < 0 ? rest.slice(repoName.length) : rest.slice(repoName.length, end)).replace(/\n$/, '');
    rest = end < 0 ? '' : rest.slice(end);
  }
  const sections = rest
    .split(fileSep)
    .slice(1)
    .map((section) => {
      const nl = section.indexOf('\n');
      return nl < 0 ? { path: section, content: '' } : { path: section.slice(0, nl), content: section.slice(nl + 1).replace(/\n$/, '') };
    });
  const current = sections.pop();
  return { name, files: sections, path: current?.path ?? '' };
}

/** The header in its own text form again (the inverse of parseFim's `repo`), to put before <|fim_prefix|>. */
export function formatRepoHeader(repo: RepoContext): string {
  const files = repo.files.map((f) => `${fileSep}${f.path}\n${f.content}\n`).join('');
  return `${repoName}${repo.name}\n${files}${fileSep}${repo.path}\n`;
}

/**
 * The header as Continue 1.3.9 writes context into the prefix: each file as `# Path: {path}` and its lines, all
 * commented with `# ` and joined by newlines, then a newline, `# {current path}`, a newline and the prefix (so without
 * other files the prefix starts "\n# {path}\n", as 1.3.9's does). (1.3.9 shortens paths to their last
 * two parts; the header's paths are used as they come.)
 */
export function repoAsComments(repo: RepoContext, prefix: string, commentMark = '#'): string {
  const comment = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((line) => `${commentMark} ${line}`)
      .join('\n');
  const snippets = repo.files.map((f) => comment(`Path: ${f.path}\n${f.content}`));
  return `${snippets.join('\n')}\n${comment(repo.path)}\n${prefix}`; // 1.3.9: formatSnippets(...) + "\n" + prefix
}

/**
 * The prompt ids of a FIM example from the token ids of its prefix and suffix, in `mode` order (default: the
 * tokenizer's, i.e. the checkpoint's); the middle's ids follow them directly.
 *   psm: [<|fim_prefix|>, ...prefix, <|fim_suffix|>, ...suffix, <|fim_middle|>]
 *   spm: [<|fim_prefix|>, <|fim_suffix|>, ...suffix, <|fim_middle|>, ...prefix]
 */
export function fimIds(tok: Tokenizer, prefix: readonly number[], suffix: readonly number[], mode: FimMode = tok.fimMode): number[] {
  return mode === 'spm'
    ? [tok.fim.prefix, tok.fim.suffix, ...suffix, tok.fim.middle, ...prefix]
    : [tok.fim.prefix, ...prefix, tok.fim.suffix, ...suffix, tok.fim.middle];
}

/**
 * Token ids of a FIM prompt for (prefix, suffix) in the tokenizer's order, built from the parts: prefix and suffix are
 * encoded as plain text (parseSpecialTokens false) and the three FIM ids are inserted around them. Code that happens
 * to contain "<|fim_middle|>" or "<|endoftext|>" therefore stays text and cannot end or restructure the prompt.
 * In PSM order and for text without such strings this equals tok.encode(formatFim(prefix, suffix)).
 */
export function encodeFim(tok: Tokenizer, prefix: string, suffix: string): number[] {
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  return fimIds(tok, plain(prefix), plain(suffix));
}
