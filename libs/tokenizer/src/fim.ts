// Fill-in-the-middle prompts in Qwen2.5-Coder's PSM form, the form Continue sends for "qwen ... coder" models:
//   <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>      and the model writes the middle, then EOS.
import { SPECIAL_TOKENS } from './special-tokens';
import type { Tokenizer } from './tokenizer';

const { fimPrefix, fimSuffix, fimMiddle } = SPECIAL_TOKENS;

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
 * Token ids of formatFim(prefix, suffix), built from the parts: prefix and suffix are encoded as plain text
 * (parseSpecialTokens false) and the three FIM ids are inserted between them. Code that happens to contain
 * "<|fim_middle|>" or "<|endoftext|>" therefore stays text and cannot end or restructure the prompt.
 * For text without such strings this equals tok.encode(formatFim(prefix, suffix)).
 */
export function encodeFim(tok: Tokenizer, prefix: string, suffix: string): number[] {
  const plain = (text: string) => tok.encode(text, { parseSpecialTokens: false });
  return [tok.fim.prefix, ...plain(prefix), tok.fim.suffix, ...plain(suffix), tok.fim.middle];
}
