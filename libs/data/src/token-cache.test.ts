import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { docTokens, openTokenCache, TokenCacheWriter, tokenDtypeFor } from './token-cache';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'token-cache-'));
const tokenizer = { dir: 'models/tokenizer', sha256: 'ab', vocab_size: 16384 };

describe('token cache', () => {
  it('round-trips documents, splits and provenance', () => {
    const dir = tmp();
    const w = new TokenCacheWriter(dir, { dtype: 'uint16', tokenizer });
    w.add('train', [1, 2, 3], { path: 'a.py', package: 'p' });
    w.add('heldout', [65535], { path: 'b.py', package: 'q' });
    w.add('train', [], { path: 'empty.py', package: 'p' });
    w.add('train', [7, 8], { path: 'c.py', package: 'p' });
    const meta = w.close({ note: 'x' });
    expect(meta.splits).toEqual({ heldout: { tokens: 1, docs: 1 }, train: { tokens: 5, docs: 3 } });
    const c = openTokenCache(dir);
    expect(c.meta.source).toEqual({ note: 'x' });
    const t = c.split('train');
    expect([...t.tokens]).toEqual([1, 2, 3, 7, 8]);
    expect([...t.offsets]).toEqual([0, 3, 3, 5]);
    expect([...docTokens(t, 2)]).toEqual([7, 8]);
    expect([...c.split('heldout').tokens]).toEqual([65535]);
    const docs = fs.readFileSync(path.join(dir, 'train.docs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(docs).toEqual([{ path: 'a.py', package: 'p', tokens: 3 }, { path: 'empty.py', package: 'p', tokens: 0 }, { path: 'c.py', package: 'p', tokens: 2 }]);
  });

  it('uint32 when the vocabulary needs it, and large writes flush in pieces', () => {
    expect(tokenDtypeFor(16384)).toBe('uint16');
    expect(tokenDtypeFor(65536)).toBe('uint16');
    expect(tokenDtypeFor(151936)).toBe('uint32');
    const dir = tmp();
    const w = new TokenCacheWriter(dir, { dtype: 'uint32', tokenizer: { ...tokenizer, vocab_size: 151936 } });
    const big = Array.from({ length: (1 << 20) + 5 }, (_, i) => (i * 7919) % 151936);
    w.add('train', big, { path: 'big.py', package: 'p' });
    w.close();
    const s = openTokenCache(dir).split('train');
    expect(s.tokens).toBeInstanceOf(Uint32Array);
    expect(s.tokens.length).toBe(big.length);
    expect(s.tokens[big.length - 1]).toBe(big[big.length - 1]);
  });

  it('clear errors: ids that do not fit, no meta.json, unknown split, truncated file', () => {
    const dir = tmp();
    const w = new TokenCacheWriter(dir, { dtype: 'uint16', tokenizer });
    expect(() => w.add('train', [70000], { path: 'x.py', package: 'p' })).toThrow('id 70000 of x.py does not fit uint16');
    expect(() => openTokenCache(dir)).toThrow('not a token cache (no meta.json');
    w.add('train', [1, 2], { path: 'y.py', package: 'p' });
    w.close();
    expect(() => openTokenCache(dir).split('test')).toThrow('no split "test" (it has train)');
    fs.truncateSync(path.join(dir, 'train.tokens.bin'), 2);
    expect(() => openTokenCache(dir).split('train')).toThrow('train.tokens.bin: 2 bytes, meta.json says 4');
  });
});
