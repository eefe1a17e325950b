import * as path from 'path';
import { QWEN25_STYLE_TEMPLATE } from './chat-template';
import { readCorpus } from '@rlhf-code/data';
import { byteLevelAlphabet, deriveTokenizer, parseMerges, type DerivedTokenizer } from './derive';
import { measureTokenizer } from './measure';
import { PAD_CANDIDATES, REQUIRED_TOKENS } from './special-tokens';
import { loadTokenizer, Tokenizer, type TokenizerJson } from './tokenizer';

const qwen = loadTokenizer();
const { tokenizer: source, config: sourceConfig } = qwen.toJson();
// A small slice of the shipped corpus keeps each derivation well under a second.
const corpus = readCorpus(path.resolve(__dirname, '../../../data/vendor/cpython/python-stdlib'));
const train = corpus.train.slice(0, 12);
const heldOut = corpus.test.slice(0, 4);
const trainTexts = train.map((f) => f.text);

const TRICKY = [
  'héllo wörld 日本語 中文 Ελληνικά кириллица',
  'emoji 😀👍🏽 👨‍👩‍👧 🇫🇷',
  'tabs\tand\r\nCRLF\r\n\tlines\n\n\n   \t ',
  'special strings as text: <|endoftext|><|fim_middle|><|im_start|>',
  '\u0000\u0001\u007f\u00a0\u200b\ufeff',
  '',
];

function closureProblems(json: TokenizerJson): string[] {
  const vocab = new Map(Object.entries(json.model.vocab));
  const produced = new Set<string>();
  const problems: string[] = [];
  for (const [a, b] of parseMerges(json.model.merges)) {
    for (const t of [a, b, a + b]) if (!vocab.has(t)) problems.push(`merge ${a} ${b}: ${t} not in vocab`);
    produced.add(a + b);
  }
  const bytes = new Set(byteLevelAlphabet());
  for (const t of vocab.keys()) if (!bytes.has(t) && !produced.has(t)) problems.push(`${t} is produced by no merge`);
  return problems;
}

describe('deriveTokenizer', () => {
  let small: DerivedTokenizer;
  let tok: Tokenizer;
  beforeAll(() => {
    small = deriveTokenizer({ source, sourceConfig, corpus: trainTexts, vocabSize: 2048 });
    tok = new Tokenizer(small.tokenizer, small.config);
  });

  it('has exactly the requested size with contiguous ids: bytes first, added tokens last', () => {
    expect(small.stats.vocabSize).toBe(2048);
    expect(tok.vocabSize).toBe(2048);
    const vocabIds = Object.values(small.tokenizer.model.vocab).sort((a, b) => a - b);
    const addedIds = small.tokenizer.added_tokens.map((t) => t.id);
    expect([...vocabIds, ...addedIds]).toEqual(Array.from({ length: 2048 }, (_, i) => i));
    for (const c of byteLevelAlphabet()) expect(tok.tokenToId(c)).toBe(qwen.tokenToId(c)); // Qwen's bytes are 0..255 too
    expect(small.tokenizer.added_tokens.map(({ id: _, ...t }) => t)).toEqual(source.added_tokens.map(({ id: _, ...t }) => t));
    expect(addedIds[0]).toBe(2048 - source.added_tokens.length);
  });

  it('keeps every control token as one id, by name, with pad distinct from EOS', () => {
    for (const name of [...REQUIRED_TOKENS, '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>']) {
      const id = tok.tokenToId(name)!;
      expect(id).toBeGreaterThanOrEqual(2048 - 26);
      expect(tok.encode(name)).toEqual([id]);
    }
    expect(tok.padId).toBe(tok.tokenToId('<|fim_pad|>'));
    expect(tok.padId).not.toBe(tok.eosId);
  });

  it('keeps only merges whose parts and result are kept, in source order, and every token is reachable', () => {
    expect(closureProblems(small.tokenizer)).toEqual([]);
    expect(small.stats.merges).toBe(2048 - 26 - 256); // one merge per non-byte token, as in Qwen
    const sourceRank = new Map(parseMerges(source.model.merges).map(([a, b], i) => [`${a} ${b}`, i]));
    const ranks = parseMerges(small.tokenizer.model.merges).map(([a, b]) => sourceRank.get(`${a} ${b}`)!);
    expect(ranks.every((r, i) => r !== undefined && (i === 0 || r > ranks[i - 1]))).toBe(true);
  });

  it('round-trips held-out files and tricky strings', () => {
    expect(measureTokenizer(tok, heldOut).roundTripFailures).toEqual([]);
    for (const text of TRICKY) expect(tok.decode(tok.encode(text, { parseSpecialTokens: false }))).toBe(text);
  });

  it('writes a config with re-indexed added tokens, EOS/pad names and the ChatML template', () => {
    const decoder = small.config.added_tokens_decoder as Record<string, { content: string }>;
    expect(Object.entries(decoder).map(([id, t]) => [Number(id), t.content])).toEqual(
      small.tokenizer.added_tokens.map((t) => [t.id, t.content]),
    );
    expect(small.config).toMatchObject({ eos_token: '<|endoftext|>', pad_token: '<|fim_pad|>', clean_up_tokenization_spaces: false, chat_template: QWEN25_STYLE_TEMPLATE });
    expect(small.config.tokenizer_class).toBe(sourceConfig.tokenizer_class);
  });

  it('compresses held-out code less than the source but far better than bytes', () => {
    const derived = measureTokenizer(tok, heldOut);
    const full = measureTokenizer(qwen, heldOut).charsPerToken;
    const bytesOnly = derived.chars / heldOut.reduce((n, f) => n + Buffer.byteLength(f.text), 0); // one token per byte
    expect(derived.charsPerToken).toBeLessThan(full);
    expect(derived.charsPerToken).toBeGreaterThan(2.5 * bytesOnly); // measured 2.88 chars/token here (Qwen: 4.48)
  });
});

describe('deriveTokenizer selection', () => {
  it('tokenizes like the source wherever all the source tokens are kept', () => {
    // A budget bigger than the corpus' token set: every training text must come out token-for-token identical.
    const texts = trainTexts.slice(0, 3);
    const big = deriveTokenizer({ source, sourceConfig, corpus: texts, vocabSize: 8192 });
    expect(big.stats.corpusCoverage).toBe(1);
    const tok = new Tokenizer(big.tokenizer, big.config);
    for (const text of texts) {
      const names = (t: Tokenizer) => t.encode(text, { parseSpecialTokens: false }).map((id) => t.idToToken(id));
      expect(names(tok)).toEqual(names(qwen));
    }
  });

  it('takes the most frequent token whose parents fit the budget', () => {
    const counts = new Map<string, number>();
    for (const text of trainTexts) {
      for (const id of qwen.encode(text, { parseSpecialTokens: false })) counts.set(qwen.idToToken(id)!, (counts.get(qwen.idToToken(id)!) ?? 0) + 1);
    }
    const bytes = new Set(byteLevelAlphabet());
    const parents = new Map(parseMerges(source.model.merges).map(([a, b]) => [a + b, [a, b]]));
    const byFrequency = [...counts.entries()].filter(([t]) => !bytes.has(t)).sort((x, y) => y[1] - x[1] || qwen.tokenToId(x[0])! - qwen.tokenToId(y[0])!);
    const firstFromBytes = byFrequency.find(([t]) => parents.get(t)!.every((p) => bytes.has(p)))![0];
    // Budget for exactly one merged token: 256 bytes + 26 added + 1.
    const one = deriveTokenizer({ source, sourceConfig, corpus: trainTexts, vocabSize: 283 });
    const merged = Object.keys(one.tokenizer.model.vocab).filter((t) => !bytes.has(t));
    expect(merged).toEqual([firstFromBytes]);
    expect(one.stats).toMatchObject({ corpusTokens: 1, parentOnlyTokens: 0, fillTokens: 0, merges: 1 });
  });

  it('keeps keepTokens with their parents', () => {
    const keep = 'Ġrecursion';
    const d = deriveTokenizer({ source, sourceConfig, corpus: ['x = 1'], vocabSize: 600, keepTokens: [keep, '<|im_end|>'] });
    expect(keep in d.tokenizer.model.vocab).toBe(true);
    expect(closureProblems(d.tokenizer)).toEqual([]);
    const tok = new Tokenizer(d.tokenizer, d.config);
    expect(tok.encode(' recursion')).toEqual([tok.tokenToId(keep)]);
  });

  it('fills budget the corpus leaves unused with the source\'s earliest merges', () => {
    const d = deriveTokenizer({ source, sourceConfig, corpus: ['pass'], vocabSize: 512 });
    expect(d.stats.vocabSize).toBe(512);
    expect(d.stats.fillTokens).toBe(512 - 26 - 256 - d.stats.corpusTokens - d.stats.parentOnlyTokens);
    expect(d.stats.fillTokens).toBeGreaterThan(200);
    for (const t of ['ĠĠ', 'ĠĠĠĠ', 'in', 'Ġt']) expect(t in d.tokenizer.model.vocab).toBe(true); // Qwen ids 256..259
    expect(closureProblems(d.tokenizer)).toEqual([]);
  });

  it('adds <|pad|> when the source has no pad token', () => {
    const noPad = { ...source, added_tokens: source.added_tokens.filter((t) => !PAD_CANDIDATES.includes(t.content)) };
    const d = deriveTokenizer({ source: noPad, sourceConfig, corpus: ['x'], vocabSize: 400 });
    const tok = new Tokenizer(d.tokenizer, d.config);
    expect(tok.idToToken(tok.padId)).toBe('<|pad|>');
    expect(tok.padId).toBe(399);
    expect(tok.padId).not.toBe(tok.eosId);
    expect(d.config.pad_token).toBe('<|pad|>');
  });

  it('rejects impossible requests with clear errors', () => {
    const derive = (over: Partial<Parameters<typeof deriveTokenizer>[0]>) => () =>
      deriveTokenizer({ source, sourceConfig, corpus: ['x'], vocabSize: 1000, ...over });
    expect(derive({ vocabSize: 281 })).toThrow('deriveTokenizer: vocabSize 281 is too small: the byte symbols, keepTokens and 26 added tokens need 282');
    expect(derive({ keepTokens: ['no-such-token'] })).toThrow('deriveTokenizer: keepTokens entry "no-such-token" is not a token of the source');
    expect(derive({ source: { ...source, model: { ...source.model, type: 'WordPiece' } } })).toThrow('deriveTokenizer: source model.type must be "BPE", got "WordPiece"');
    expect(derive({ source: { ...source, post_processor: { type: 'TemplateProcessing' } } })).toThrow(
      'deriveTokenizer: source post_processor "TemplateProcessing" is not supported (only ByteLevel or null)',
    );
    const noFim = { ...source, added_tokens: source.added_tokens.filter((t) => t.content !== '<|fim_suffix|>') };
    expect(derive({ source: noFim })).toThrow('deriveTokenizer: source lacks required added tokens: <|fim_suffix|>');
    const tiny = deriveTokenizer({ source, sourceConfig, corpus: ['x'], vocabSize: 300 });
    expect(derive({ source: tiny.tokenizer, vocabSize: 301 })).toThrow('deriveTokenizer: the source has only 300 reachable tokens, fewer than vocabSize 301');
  });
});

describe('measureTokenizer', () => {
  it('counts code points and tokens', () => {
    expect(measureTokenizer(qwen, [{ path: 'a.py', text: 'hello world' }, { path: 'b.py', text: '😀' }])).toEqual({
      files: 2,
      chars: 12,
      tokens: 2 + qwen.encode('😀').length,
      charsPerToken: 12 / (2 + qwen.encode('😀').length),
      roundTripFailures: [],
    });
    expect(measureTokenizer(qwen, [{ path: 'nfd.py', text: 'e\u0301' }]).roundTripFailures).toEqual(['nfd.py']);
  });
});
