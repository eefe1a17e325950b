import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { byteLevelAlphabet } from './derive';
import { defaultTokenizerDir, loadTokenizer, saveTokenizer, Tokenizer } from './tokenizer';
import reference from './fixtures/rust-reference-ids.json';

const qwen = loadTokenizer();

describe('Qwen tokenizer (default folder)', () => {
  it('has the documented control-token ids', () => {
    expect(qwen.eosId).toBe(151643);
    expect(qwen.fim).toEqual({ prefix: 151659, suffix: 151661, middle: 151660 });
    expect(qwen.chat).toEqual({ imStart: 151644, imEnd: 151645 });
    expect(qwen.padId).toBe(151662); // <|fim_pad|>
    expect(qwen.padId).not.toBe(qwen.eosId);
    expect(qwen.vocabSize).toBe(151669); // 151643 BPE tokens + 26 added tokens
    expect(qwen.specialIds).toEqual(Array.from({ length: 26 }, (_, i) => 151643 + i));
  });

  it('numbers the 256 byte symbols in GPT-2 order: printable bytes first, then the shifted ones', () => {
    const alphabet = byteLevelAlphabet();
    const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    const order = [...Array.from({ length: 256 }, (_, b) => b).filter(printable), ...Array.from({ length: 256 }, (_, b) => b).filter((b) => !printable(b))];
    for (let b = 0; b < 256; b++) expect(qwen.tokenToId(alphabet[b])).toBe(order.indexOf(b));
    expect(alphabet[0x20]).toBe('Ġ');
    expect(alphabet[0x0a]).toBe('Ċ');
    // Single ASCII characters encode to their byte symbol: '!' is id 0, 'a' (0x61) is id 0x61 - 0x21 = 64.
    expect(qwen.encode('a')).toEqual([64]);
    expect(qwen.encode('1')).toEqual([16]);
    expect(qwen.encode(' ')).toEqual([220]); // 'Ġ' = 188 printable + 32nd shifted byte
    expect(qwen.encode('\n')).toEqual([198]); // 'Ċ' = 188 + 10
  });

  it('encodes exactly like the Rust tokenizers library (fixture made by scripts/rust-reference-ids.py)', () => {
    reference.texts.forEach((text, i) => expect(qwen.encode(text)).toEqual(reference.qwen[i]));
  });

  it('splits "hello world" into two vocabulary tokens', () => {
    const ids = qwen.encode('hello world');
    expect(ids.map((id) => qwen.idToToken(id))).toEqual(['hello', 'Ġworld']);
    expect(ids).toEqual([qwen.tokenToId('hello'), qwen.tokenToId('Ġworld')]);
  });

  it('parses special-token strings by default and treats them as text when asked', () => {
    expect(qwen.encode('a<|endoftext|>')).toEqual([64, 151643]);
    const literal = qwen.encode('a<|endoftext|>', { parseSpecialTokens: false });
    expect(literal.some((id) => qwen.isSpecial(id))).toBe(false);
    expect(literal.length).toBeGreaterThan(2);
    expect(qwen.decode(literal)).toBe('a<|endoftext|>');
  });

  it('decodes back to the text; skipSpecialTokens drops tokens flagged special (FIM tokens are not)', () => {
    const text = '<|fim_prefix|>x = 1<|fim_suffix|><|fim_middle|>y<|endoftext|>';
    const ids = qwen.encode(text);
    expect(qwen.decode(ids)).toBe(text);
    expect(qwen.decode(ids, { skipSpecialTokens: true })).toBe('<|fim_prefix|>x = 1<|fim_suffix|><|fim_middle|>y');
    expect(qwen.decode([])).toBe('');
    expect(qwen.decode(qwen.encode('a . b ,c'))).toBe('a . b ,c'); // no HF "clean up" of spaces
  });

  it('normalizes to NFC, so only NFC text round-trips exactly', () => {
    const decomposed = 'e\u0301'; // e + combining acute
    expect(qwen.decode(qwen.encode(decomposed))).toBe('\u00e9');
  });

  it('rejects ids outside the vocabulary', () => {
    expect(() => qwen.decode([1, 151669])).toThrow(`decode: token id 151669 at position 1 is not in [0, 151669) for ${path.join(defaultTokenizerDir(), 'tokenizer.json')}`);
    expect(() => qwen.decode([-1])).toThrow('decode: token id -1 at position 0');
    expect(() => qwen.decode([1.5])).toThrow('decode: token id 1.5 at position 0');
  });
});

describe('loading errors name the file', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tokenizer-test-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const folder = (name: string, files: Record<string, string>) => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir);
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
    return dir;
  };
  const { tokenizer: qwenJson } = qwen.toJson();

  it('missing folder or file', () => {
    const dir = path.join(tmp, 'absent');
    expect(() => loadTokenizer(dir)).toThrow(`Tokenizer file not found: ${path.join(dir, 'tokenizer.json')}`);
  });

  it('invalid JSON', () => {
    const dir = folder('badjson', { 'tokenizer.json': '{"model": ' });
    expect(() => loadTokenizer(dir)).toThrow(`Tokenizer file is not valid JSON: ${path.join(dir, 'tokenizer.json')}`);
  });

  it('invalid structure', () => {
    const dir = folder('nomodel', { 'tokenizer.json': '{"added_tokens": []}' });
    expect(() => loadTokenizer(dir)).toThrow(`Invalid tokenizer file ${path.join(dir, 'tokenizer.json')}: missing "model" object`);
    const dir2 = folder('badadded', { 'tokenizer.json': JSON.stringify({ ...qwenJson, added_tokens: [{ content: 'x' }] }) });
    expect(() => loadTokenizer(dir2)).toThrow(`Invalid tokenizer file ${path.join(dir2, 'tokenizer.json')}: added_tokens[0] needs a string "content" and an integer "id"`);
  });

  it('invalid tokenizer_config.json', () => {
    const dir = folder('badconfig', { 'tokenizer.json': JSON.stringify(qwenJson), 'tokenizer_config.json': '[1]' });
    expect(() => loadTokenizer(dir)).toThrow(`Invalid tokenizer file ${path.join(dir, 'tokenizer_config.json')}: expected a JSON object`);
  });

  it('missing control tokens or pad token', () => {
    const without = (...names: string[]) => ({ ...qwenJson, added_tokens: qwenJson.added_tokens.filter((t) => !names.includes(t.content)) });
    const dir = folder('nofim', { 'tokenizer.json': JSON.stringify(without('<|fim_middle|>', '<|im_end|>')) });
    expect(() => loadTokenizer(dir)).toThrow(`Tokenizer ${path.join(dir, 'tokenizer.json')} lacks required tokens: <|im_end|>, <|fim_middle|>`);
    const dir2 = folder('nopad', { 'tokenizer.json': JSON.stringify(without('<|fim_pad|>')) });
    expect(() => loadTokenizer(dir2)).toThrow(`Tokenizer ${path.join(dir2, 'tokenizer.json')} has no padding token (looked for <|fim_pad|>, <|pad|>)`);
  });

  it('saveTokenizer writes a folder that loads back to the same tokenizer', () => {
    const { tokenizer, config } = qwen.toJson();
    const dir = path.join(tmp, 'saved');
    saveTokenizer(dir, tokenizer, config);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8'))).toEqual(tokenizer);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8'))).toEqual(config);
    const again = loadTokenizer(dir);
    expect(again).toBeInstanceOf(Tokenizer);
    expect(again.encode(reference.texts[2])).toEqual(reference.qwen[2]);
  });
});
