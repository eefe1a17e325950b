// Prompt text -> token ids that fit the model's window, keeping what matters for fill-in-the-middle.
//
// Continue sends `<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>`. The model writes what belongs at the
// cursor, i.e. right after the end of the prefix and right before the start of the suffix, so when the prompt is
// too long we drop tokens far from the cursor: first from the left of the prefix (the file header and old context),
// and only if the suffix alone does not fit, from the right of the suffix. The three FIM markers always survive.
// A prompt without FIM markers is plain text and is cut from the left. The ids are laid out in the order the
// checkpoint was trained on (tok.fimMode: Qwen's PSM, or SPM for a model trained suffix first; see fimIds).
import { encodeFim, fimIds, parseFim, type Tokenizer } from '@rlhf-code/tokenizer';

export interface ServedPrompt {
  ids: number[];
  /** Whether the prompt was in FIM form. */
  fim: boolean;
  /** Prompt tokens dropped to fit the window. */
  truncated: number;
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
export function encodeServedPrompt(tok: Tokenizer, prompt: string, maxPromptTokens: number): ServedPrompt {
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
    return { ids: ids.slice(ids.length - keep), fim: false, truncated: ids.length - keep };
  }
  const full = encodeFim(tok, parts.prefix, parts.suffix);
  if (full.length <= maxPromptTokens) return { ids: full, fim: true, truncated: 0 };

  let prefix = plain(parts.prefix);
  let suffix = plain(parts.suffix);
  const budget = maxPromptTokens - 3; // the three markers
  // The prefix is guaranteed half of the budget (or all it has, if less); the suffix gets the rest of what it needs,
  // and the prefix then takes whatever the suffix leaves.
  const suffixKeep = Math.min(suffix.length, budget - Math.min(prefix.length, Math.ceil(budget / 2)));
  const prefixKeep = Math.min(prefix.length, budget - suffixKeep);
  const truncated = prefix.length - prefixKeep + suffix.length - suffixKeep;
  prefix = prefix.slice(prefix.length - prefixKeep); // drop far-left context
  suffix = suffix.slice(0, suffixKeep); // drop far-right context
  return { ids: fimIds(tok, prefix, suffix), fim: true, truncated };
}
