// Vocabulary trimming: derive a small byte-level BPE tokenizer from a big one (Qwen's 151k) for a code corpus.
//
// The derived tokenizer keeps the source's normalizer, pre-tokenizer and decoder, so it splits text the same way
// and only has fewer merges. It keeps
//   - the 256 byte symbols, so every string still encodes (decode(encode(x)) == x for NFC text);
//   - every added token of the source by name (EOS, ChatML, FIM, ...), plus <|pad|> if the source has no pad token;
//   - the source tokens the corpus uses most, each together with its parents: a token can only be produced by its
//     merge (a, b), so a and b (and their parents, recursively) are kept too;
//   - only the merges whose two parts and result are kept, in the source's order.
// Why this is safe: BPE applies the lowest-ranked applicable merge first. If a chunk's source tokens and all their
// parents are kept, every merge the source applied to it is kept and no kept merge outranks it, so the derived
// tokenizer splits that chunk exactly like the source. Other chunks fall back to shorter kept tokens.
//
// Ids: kept BPE tokens in source id order get 0..M-1 (the byte symbols stay 0..255 for Qwen), then the added
// tokens M..N-1 in source order, the layout Qwen itself uses.
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { QWEN25_STYLE_TEMPLATE } from './chat-template';
import { PAD_CANDIDATES, REQUIRED_TOKENS, SPECIAL_TOKENS } from './special-tokens';
import type { AddedTokenJson, TokenizerConfigJson, TokenizerJson } from './tokenizer';

export interface DeriveOptions {
  /** The source tokenizer.json (byte-level BPE, e.g. Qwen's). */
  source: TokenizerJson;
  /** The source tokenizer_config.json; its fields are carried over (see DerivedTokenizer.config). */
  sourceConfig?: TokenizerConfigJson;
  /** Training texts (whole files) whose source-token frequencies choose the vocabulary. */
  corpus: readonly string[];
  /** Total number of ids in the result, added tokens included. */
  vocabSize: number;
  /** Source token names (tokenizer.json form, e.g. "Ġself") kept whatever their frequency, with their parents. */
  keepTokens?: readonly string[];
}

export interface DeriveStats {
  vocabSize: number;
  byteTokens: number;
  addedTokens: number;
  /** Kept tokens the corpus uses (count > 0 under the source tokenizer). */
  corpusTokens: number;
  /** Kept tokens the corpus never emits, needed only as parents of kept tokens. */
  parentOnlyTokens: number;
  /** Tokens taken in source merge order to spend budget the corpus did not use (0 for a big enough corpus). */
  fillTokens: number;
  merges: number;
  /** Distinct source tokens in the corpus, and the share of its token occurrences that kept tokens cover. */
  distinctCorpusTokens: number;
  corpusCoverage: number;
}

export interface DerivedTokenizer {
  tokenizer: TokenizerJson;
  /**
   * The source config with added_tokens_decoder re-indexed, eos_token <|endoftext|> (base/FIM convention),
   * pad_token <|fim_pad|> (or <|pad|>), clean_up_tokenization_spaces false and a plain ChatML chat_template.
   */
  config: TokenizerConfigJson;
  stats: DeriveStats;
}

/**
 * GPT-2's byte-to-symbol table used by byte-level BPE: printable Latin-1 bytes stand for themselves, the other 68
 * bytes (controls, space, ...) are shifted to U+0100 upwards in byte order (space -> "Ġ", "\n" -> "Ċ").
 */
export function byteLevelAlphabet(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let shifted = 0x100;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : shifted++));
}

/** Merges as [left, right] pairs, from either tokenizer.json format ("a b" strings or pairs). */
export function parseMerges(merges: TokenizerJson['model']['merges']): [string, string][] {
  return merges.map((m, i) => {
    const pair = typeof m === 'string' ? m.split(' ') : m;
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      throw new Error(`deriveTokenizer: model.merges[${i}] is not a pair of tokens: ${JSON.stringify(m)}`);
    }
    return [pair[0], pair[1]];
  });
}

/** How often each source token occurs when the corpus is encoded as plain text (added tokens not parsed). */
function countTokens(source: TokenizerJson, config: TokenizerConfigJson, corpus: readonly string[]): Map<string, number> {
  const hf = new HfTokenizer({ ...source, added_tokens: [] }, config);
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const token of hf.encode(text, { add_special_tokens: false }).tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return counts;
}

function checkSource(source: TokenizerJson): void {
  if (source.model.type !== 'BPE') throw new Error(`deriveTokenizer: source model.type must be "BPE", got ${JSON.stringify(source.model.type)}`);
  // A post-processor or padding block can hold token ids, which re-indexing would silently invalidate.
  const post = source.post_processor as { type?: string } | null;
  if (post !== null && post.type !== 'ByteLevel') {
    throw new Error(`deriveTokenizer: source post_processor ${JSON.stringify(post.type)} is not supported (only ByteLevel or null)`);
  }
  if (source.padding !== null && source.padding !== undefined) throw new Error('deriveTokenizer: source "padding" must be null');
  const added = new Set(source.added_tokens.map((t) => t.content));
  const missing = REQUIRED_TOKENS.filter((name) => !added.has(name));
  if (missing.length > 0) throw new Error(`deriveTokenizer: source lacks required added tokens: ${missing.join(', ')}`);
  for (const t of source.added_tokens) {
    if (Object.prototype.hasOwnProperty.call(source.model.vocab, t.content)) {
      throw new Error(`deriveTokenizer: added token ${JSON.stringify(t.content)} is also a BPE vocabulary entry; not supported`);
    }
  }
}

export function deriveTokenizer(options: DeriveOptions): DerivedTokenizer {
  const { source, sourceConfig = {}, corpus, vocabSize, keepTokens = [] } = options;
  checkSource(source);
  // A Map, not the JSON object: `"toString" in vocab` would be true for any object.
  const vocab = new Map(Object.entries(source.model.vocab));
  const rank = (t: string) => vocab.get(t)!;
  const merges = parseMerges(source.model.merges);

  const alphabet = byteLevelAlphabet();
  const missingBytes = alphabet.filter((c) => !vocab.has(c));
  if (missingBytes.length > 0) {
    throw new Error(`deriveTokenizer: source is not byte-level BPE: ${missingBytes.length} byte symbols missing from model.vocab`);
  }

  // parents.get(t) = the first (lowest-ranked) merge producing t: the one BPE uses to build it.
  const parents = new Map<string, [string, string]>();
  merges.forEach(([a, b], i) => {
    for (const t of [a, b, a + b]) {
      if (!vocab.has(t)) throw new Error(`deriveTokenizer: model.merges[${i}] uses ${JSON.stringify(t)}, which is not in model.vocab`);
    }
    if (!parents.has(a + b)) parents.set(a + b, [a, b]);
  });

  // Added tokens, plus a pad token when the source has none (pad must differ from EOS).
  const added: AddedTokenJson[] = source.added_tokens.map((t) => ({ ...t }));
  if (!added.some((t) => PAD_CANDIDATES.includes(t.content))) {
    added.push({ id: -1, content: SPECIAL_TOKENS.pad, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  }
  const addedNames = new Set(added.map((t) => t.content));
  const budget = vocabSize - added.length; // ids left for BPE tokens

  const kept = new Set<string>(alphabet);
  // Tokens that keeping `token` adds (itself and its not-yet-kept ancestors), parents before children.
  const missingClosure = (token: string): string[] => {
    const out: string[] = [];
    const visit = (t: string) => {
      if (kept.has(t) || out.includes(t)) return;
      const p = parents.get(t);
      if (p === undefined) throw new Error(`deriveTokenizer: token ${JSON.stringify(t)} is produced by no merge of the source`);
      visit(p[0]);
      visit(p[1]);
      out.push(t);
    };
    visit(token);
    return out;
  };

  for (const name of keepTokens) {
    if (addedNames.has(name)) continue;
    if (!vocab.has(name)) throw new Error(`deriveTokenizer: keepTokens entry ${JSON.stringify(name)} is not a token of the source`);
    for (const t of missingClosure(name)) kept.add(t);
  }
  if (kept.size > budget) {
    throw new Error(`deriveTokenizer: vocabSize ${vocabSize} is too small: the byte symbols, keepTokens and ${added.length} added tokens need ${kept.size + added.length}`);
  }

  // Greedy by corpus frequency: take a token with its missing parents while they fit in the budget.
  const counts = countTokens(source, sourceConfig, corpus);
  const byFrequency = [...counts.entries()].sort((x, y) => y[1] - x[1] || rank(x[0]) - rank(y[0]));
  for (const [token] of byFrequency) {
    if (kept.size === budget) break;
    if (kept.has(token)) continue;
    const needed = missingClosure(token);
    if (kept.size + needed.length <= budget) for (const t of needed) kept.add(t);
  }

  // Budget the corpus left unused goes to the source's earliest merges (its most frequent tokens in general).
  let fillTokens = 0;
  for (const [a, b] of merges) {
    if (kept.size === budget) break;
    const t = a + b;
    if (!kept.has(t) && kept.has(a) && kept.has(b)) {
      kept.add(t);
      fillTokens++;
    }
  }
  if (kept.size < budget) {
    throw new Error(`deriveTokenizer: the source has only ${kept.size + added.length} reachable tokens, fewer than vocabSize ${vocabSize}`);
  }

  // Re-index: kept BPE tokens in source order, then the added tokens.
  const order = [...kept].sort((x, y) => rank(x) - rank(y));
  const newVocab: Record<string, number> = Object.fromEntries(order.map((t, i) => [t, i]));
  const newAdded = added.map((t, i) => ({ ...t, id: order.length + i }));
  const isKept = ([a, b]: [string, string]) => kept.has(a) && kept.has(b) && kept.has(a + b);
  const newMerges = (source.model.merges as (string | [string, string])[]).filter((_, i) => isKept(merges[i]));

  const tokenizer: TokenizerJson = {
    ...source,
    added_tokens: newAdded,
    model: { ...source.model, vocab: newVocab, merges: newMerges as TokenizerJson['model']['merges'] },
  };
  const padName = PAD_CANDIDATES.find((name) => addedNames.has(name))!;
  const config: TokenizerConfigJson = {
    ...sourceConfig,
    added_tokens_decoder: Object.fromEntries(
      newAdded.map(({ id, content, lstrip, normalized, rstrip, single_word, special }) => [
        String(id),
        { content, lstrip, normalized, rstrip, single_word, special },
      ]),
    ),
    eos_token: SPECIAL_TOKENS.endOfText,
    pad_token: padName,
    clean_up_tokenization_spaces: false,
    chat_template: QWEN25_STYLE_TEMPLATE,
  };

  let total = 0;
  let covered = 0;
  for (const [t, c] of counts) {
    total += c;
    if (kept.has(t)) covered += c;
  }
  const corpusTokens = order.filter((t) => counts.has(t) && !alphabet.includes(t)).length;
  const stats: DeriveStats = {
    vocabSize: order.length + newAdded.length,
    byteTokens: alphabet.length,
    addedTokens: newAdded.length,
    corpusTokens,
    parentOnlyTokens: order.length - alphabet.length - corpusTokens - fillTokens,
    fillTokens,
    merges: newMerges.length,
    distinctCorpusTokens: counts.size,
    corpusCoverage: total === 0 ? 0 : covered / total,
  };
  return { tokenizer, config, stats };
}
