// The shipped models/tokenizer-code16k (made by `nx run tokenizer-cli:derive`): checked, not re-derived.
import * as fs from 'fs';
import * as path from 'path';
import { encodeChat, formatChat } from './chat';
import { readCorpus } from '@rlhf-code/data';
import { byteLevelAlphabet, parseMerges } from './derive';
import { encodeFim, formatFim } from './fim';
import { measureTokenizer } from './measure';
import { REQUIRED_TOKENS } from './special-tokens';
import { loadTokenizer } from './tokenizer';
import reference from './fixtures/rust-reference-ids.json';

const dir = path.resolve(__dirname, '../../../models/tokenizer-code16k');
const tok = loadTokenizer(dir);
const { test } = readCorpus(path.resolve(__dirname, '../../../data/vendor/cpython/python-stdlib'));

describe('models/tokenizer-code16k', () => {
  it('is a 16384-id tokenizer folder of modest size', () => {
    expect(tok.vocabSize).toBe(16384);
    expect(fs.readdirSync(dir).sort()).toEqual(['README.md', 'tokenizer.json', 'tokenizer_config.json']);
    expect(fs.statSync(path.join(dir, 'tokenizer.json')).size).toBeLessThan(1.5e6);
  });

  it('encodes exactly like the Rust tokenizers library (fixture made by scripts/rust-reference-ids.py)', () => {
    reference.texts.forEach((text, i) => expect(tok.encode(text)).toEqual(reference.code16k[i]));
  });

  it('has every control token as one id by name, the 26 added tokens last, pad != eos', () => {
    for (const name of [...REQUIRED_TOKENS, '<|fim_pad|>']) expect(tok.encode(name)).toEqual([tok.tokenToId(name)]);
    expect(tok.specialIds).toEqual(Array.from({ length: 26 }, (_, i) => 16384 - 26 + i));
    expect(tok.idToToken(tok.eosId)).toBe('<|endoftext|>');
    expect(tok.idToToken(tok.padId)).toBe('<|fim_pad|>');
    expect(tok.padId).not.toBe(tok.eosId);
  });

  it('keeps only reachable tokens: every merge uses kept tokens, every non-byte token has a merge', () => {
    const { tokenizer } = tok.toJson();
    const vocab = new Set(Object.keys(tokenizer.model.vocab));
    const merges = parseMerges(tokenizer.model.merges);
    expect(merges.filter(([a, b]) => !vocab.has(a) || !vocab.has(b) || !vocab.has(a + b))).toEqual([]);
    const produced = new Set(merges.map(([a, b]) => a + b));
    for (const c of byteLevelAlphabet()) produced.add(c);
    expect([...vocab].filter((t) => !produced.has(t))).toEqual([]);
    expect(vocab.size).toBe(16384 - 26);
  });

  it('round-trips every held-out corpus file and compresses them nearly as well as Qwen', () => {
    const m = measureTokenizer(tok, test);
    expect(m.roundTripFailures).toEqual([]);
    expect(m.files).toBe(23);
    expect(m.charsPerToken).toBeGreaterThan(4.1); // measured 4.178; the full Qwen tokenizer: 4.355
  });

  it('round-trips tricky strings and builds FIM / chat prompts', () => {
    for (const text of ['naïve café 日本語 😀👍🏽 👨‍👩‍👧', 'a\r\n\tb\t\t\r\n  ', '<|im_end|><|fim_pad|> as text', '\u0000\u007f\ufeff']) {
      expect(tok.decode(tok.encode(text, { parseSpecialTokens: false }))).toBe(text);
    }
    const fim = encodeFim(tok, 'def add(a, b):\n    ', '\n');
    expect(fim).toEqual(tok.encode(formatFim('def add(a, b):\n    ', '\n')));
    expect(tok.decode(fim)).toBe(formatFim('def add(a, b):\n    ', '\n'));
    const chat = encodeChat(tok, 'Write fizzbuzz.');
    expect(tok.decode(chat)).toBe(formatChat('Write fizzbuzz.'));
    expect(chat.filter((id) => tok.isSpecial(id))).toEqual([tok.chat.imStart, tok.chat.imEnd, tok.chat.imStart]);
  });
});
