// How well a tokenizer compresses a set of files, and whether it reproduces them exactly.
/** A document of a corpus (libs/data's CorpusFile). */
type CorpusFile = { path: string; text: string };
import type { Tokenizer } from './tokenizer';

export interface TokenizerMeasure {
  files: number;
  /** Unicode code points. */
  chars: number;
  tokens: number;
  charsPerToken: number;
  /** Paths of files where decode(encode(text)) !== text (encoded as plain text, special strings included). */
  roundTripFailures: string[];
}

export function measureTokenizer(tok: Tokenizer, files: readonly CorpusFile[]): TokenizerMeasure {
  let chars = 0;
  let tokens = 0;
  const roundTripFailures: string[] = [];
  for (const { path, text } of files) {
    const ids = tok.encode(text, { parseSpecialTokens: false });
    chars += [...text].length;
    tokens += ids.length;
    if (tok.decode(ids) !== text) roundTripFailures.push(path);
  }
  return { files: files.length, chars, tokens, charsPerToken: tokens === 0 ? 0 : chars / tokens, roundTripFailures };
}
