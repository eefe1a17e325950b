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
import { SPECIAL_TOKENS } from './special-tokens';
import type { Tokenizer } from './tokenizer';

const { fimPrefix, fimSuffix, fimMiddle } = SPECIAL_TOKENS;

export const FIM_MODES = ['psm', 'spm'] as const;
export type FimMode = (typeof FIM_MODES)[number];

export interface FimParts {
  prefix: string;
  suffix: string;
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
  if (!prompt.startsWith(fimPrefix)) throw new Error(`parseFim: prompt must start with ${fimPrefix}`);
  if (!prompt.endsWith(fimMiddle)) throw new Error(`parseFim: prompt must end with ${fimMiddle}`);
  const body = prompt.slice(fimPrefix.length, prompt.length - fimMiddle.length);
  const cut = body.indexOf(fimSuffix); // present: counted once, and not part of the first or last marker
  return { prefix: body.slice(0, cut), suffix: body.slice(cut + fimSuffix.length) };
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
