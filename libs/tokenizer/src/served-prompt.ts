// Prompt text -> token ids that fit the model's window, keeping what matters for fill-in-the-middle.
//
// Continue sends `<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>`. The model writes what belongs at the
// cursor, i.e. right after the end of the prefix and right before the start of the suffix, so when the prompt is
// too long we drop tokens far from the cursor: first from the left of the prefix (the file header and old context),
// and only if the suffix alone does not fit, from the right of the suffix. The three FIM markers always survive.
// A prefix cut on its left then starts at a line: the rest of the line the cut fell in goes too (as Continue prunes
// whole lines), since a prompt that opens mid-line or mid-comment made models/base v2 answer blank half the time.
// A prompt without FIM markers is plain text and is cut from the left. The ids are laid out in the order the
// checkpoint was trained on (tok.fimMode: Qwen's PSM, or SPM for a model trained suffix first; see fimIds).
//
// Upstream Continue puts other files of the repository before <|fim_prefix|> (<|repo_name|> / <|file_sep|>, see
// libs/tokenizer fim.ts). That header is context, never a reason to refuse: with repoContext 'tokens' it is kept in
// Qwen2.5-Coder's own form (a checkpoint pretrained on it), with 'comments' it becomes Continue 1.3.9's `# `-commented
// lines at the start of the prefix (what this project's models are trained on). Either way it is the first thing
// dropped when the prompt is too long: whole files, farthest from the cursor first.
import { encodeFim, fimIds, parseFim, repoAsComments, type RepoContext } from './fim';
import { SPECIAL_TOKENS } from './special-tokens';
import type { Tokenizer } from './tokenizer';

export const REPO_CONTEXT_MODES = ['comments', 'tokens'] as const;

/**
 * Tokens a FIM completion generates before its end token may be chosen, unless a request says otherwise (vLLM's
 * min_tokens): 1, never an empty middle. A model trained in SPM order cannot see where its middle starts, so at a
 * line start it would often end at once. The completion server's default, and what the evaluation measures with.
 */
export const SERVED_MIN_TOKENS = 1;
export type RepoContextMode = (typeof REPO_CONTEXT_MODES)[number];

export interface ServedPrompt {
  ids: number[];
  /** Whether the prompt was in FIM form. */
  fim: boolean;
  /** Prompt tokens dropped to fit the window. */
  truncated: number;
  /** The FIM prefix and suffix as the client sent them (without the repository header); null for plain text. */
  prefix: string | null;
  suffix: string | null;
}

/** Thrown for a prompt that cannot be served; `field` names the request field for a 400 answer. */
export class PromptError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Encode `prompt` into at most `maxPromptTokens` ids (>= 4, room for the FIM markers and one token of context).
 * Text that merely looks like a special token (e.g. "<|endoftext|>" inside the code) stays text.
 */
export function encodeServedPrompt(tok: Tokenizer, prompt: string, maxPromptTokens: number, repoContext: RepoContextMode = 'comments'): ServedPrompt {
  if (maxPromptTokens < 4) throw new PromptError('max_tokens', `leaves only ${maxPromptTokens} tokens for the prompt in the model's window`);
  let parts;
  try {
    parts = parseFim(prompt);
  } catch (e) {
    throw new PromptError('prompt', (e as Error).message.replace(/^parseFim: /, 'malformed FIM prompt: '));
  }
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  if (parts === null) {
    const ids = plain(prompt);
    if (ids.length === 0) throw new PromptError('prompt', 'must not be empty');
    const keep = Math.min(ids.length, maxPromptTokens);
    return { ids: ids.slice(ids.length - keep), fim: false, truncated: ids.length - keep, prefix: null, suffix: null };
  }
  const sent = { prefix: parts.prefix, suffix: parts.suffix };
  if (parts.repo && repoContext === 'tokens') {
    const fim = encodeFim(tok, parts.prefix, parts.suffix);
    // Keep the most files that fit beside the whole FIM part; dropped files count as truncated.
    for (let skip = 0; skip <= parts.repo.files.length; skip++) {
      const header = repoHeaderIds(tok, { ...parts.repo, files: parts.repo.files.slice(skip) });
      if (header.length + fim.length <= maxPromptTokens) {
        const dropped = skip === 0 ? 0 : repoHeaderIds(tok, parts.repo).length - header.length;
        return { ids: [...header, ...fim], fim: true, truncated: dropped, ...sent };
      }
    }
    const r = fitFim(tok, plain(parts.prefix), plain(parts.suffix), maxPromptTokens);
    return { ...r, truncated: r.truncated + repoHeaderIds(tok, parts.repo).length, ...sent };
  }
  const prefixText = parts.repo ? repoAsComments(parts.repo, parts.prefix) : parts.prefix;
  const full = encodeFim(tok, prefixText, parts.suffix);
  if (full.length <= maxPromptTokens) return { ids: full, fim: true, truncated: 0, ...sent };
  return { ...fitFim(tok, plain(prefixText), plain(parts.suffix), maxPromptTokens), ...sent };
}

/** The header's ids: its two markers as the control tokens, everything else as plain text. */
function repoHeaderIds(tok: Tokenizer, repo: RepoContext): number[] {
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  const id = (name: string) => {
    const v = tok.tokenToId(name);
    if (v === undefined) throw new PromptError('prompt', `${name}: this model's tokenizer has no such token (set completion.repoContext to "comments")`);
    return v;
  };
  const files = repo.files.flatMap((f) => [id(SPECIAL_TOKENS.fileSep), ...plain(`${f.path}\n${f.content}\n`)]);
  return [id(SPECIAL_TOKENS.repoName), ...plain(`${repo.name}\n`), ...files, id(SPECIAL_TOKENS.fileSep), ...plain(`${repo.path}\n`)];
}

/** Cut prefix and suffix ids to fit: far-left prefix first, then far-right suffix. */
function fitFim(tok: Tokenizer, prefix: number[], suffix: number[], maxPromptTokens: number): { ids: number[]; fim: true; truncated: number } {
  const budget = maxPromptTokens - 3; // the three markers
  // The prefix is guaranteed half of the budget (or all it has, if less); the suffix gets the rest of what it needs,
  // and the prefix then takes whatever the suffix leaves.
  const suffixKeep = Math.min(suffix.length, budget - Math.min(prefix.length, Math.ceil(budget / 2)));
  const prefixKeep = Math.min(prefix.length, budget - suffixKeep);
  let kept = prefix.slice(prefix.length - prefixKeep); // drop far-left context
  if (prefixKeep < prefix.length) kept = fromLineStart(tok, kept);
  const truncated = prefix.length - kept.length + suffix.length - suffixKeep;
  suffix = suffix.slice(0, suffixKeep); // drop far-right context
  return { ids: fimIds(tok, kept, suffix), fim: true, truncated };
}

/**
 * The ids of a prefix cut on its left, from the first line that starts inside them: the text up to and including its
 * first newline is dropped and the rest encoded again (a token that holds a newline and more keeps the more), unless
 * that would drop half of the ids or more (a very long line: then the cut stays where it was).
 */
function fromLineStart(tok: Tokenizer, ids: number[]): number[] {
  const text = tok.decode(ids);
  const nl = text.indexOf('\n');
  if (nl < 0) return ids;
  const rest = tok.encode(text.slice(nl + 1), { parseSpecialTokens: false });
  return rest.length <= ids.length && rest.length > ids.length / 2 ? rest : ids;
}
