// Pretraining windows streamed from a token cache (lm-stream.ts) on the real tokenizer and a tiny cache written here:
// packing, <|endoftext|> between documents, FIM examples, determinism, positions, package weights, held-out windows.
// Pure host code: no tensors.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { dataRandom, openTokenCache, TokenCacheWriter, type TokenSplit } from '@rlhf-code/data';
import { loadTokenizer, Tokenizer } from '@rlhf-code/tokenizer';
import { CacheWindows, heldOutWindows, lineEndTable, parsePackageWeights } from './lm-stream';
import type { LmExample } from './lm-data';

let tok: Tokenizer;
let lineEnds: Uint8Array;
let split: TokenSplit;
let docs: number[][]; // each document's ids
let packages: string[];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-stream-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A small Python file: `n` functions of a few lines. */
function pyFile(seed: number, n: number): string {
  const random = dataRandom(`stream-file:${seed}`);
  const lines: string[] = [];
  for (let f = 0; f < n; f++) {
    lines.push(`def f${seed}_${f}(x):`);
    for (let i = 0; i < 1 + Math.floor(random() * 4); i++) lines.push(`    x = x * ${i} + ${Math.floor(random() * 100)}`);
    lines.push('    return x', '');
  }
  return lines.join('\n');
}

beforeAll(() => {
  tok = loadTokenizer();
  lineEnds = lineEndTable(tok);
  const dir = path.join(tmp, 'cache');
  const w = new TokenCacheWriter(dir, { dtype: 'uint16', tokenizer: { dir: 'models/tokenizer-code16k', sha256: 'x', vocab_size: tok.vocabSize } });
  docs = [];
  packages = [];
  for (let i = 0; i < 12; i++) {
    const ids = i === 5 ? [] : tok.encode(pyFile(i, 1 + (i % 5)), { parseSpecialTokens: false }); // one empty document
    const pkg = ['pkg-a', 'pkg-b', 'pkg-c'][i % 3];
    w.add('train', ids, { path: `m${i}.py`, package: pkg });
    docs.push(ids);
    packages.push(pkg);
  }
  w.add('heldout', tok.encode(pyFile(100, 30), { parseSpecialTokens: false }), { path: 'h.py', package: 'pkg-a' });
  w.close();
  split = openTokenCache(dir).split('train');
});

const take = (s: CacheWindows, n: number): LmExample[] => Array.from({ length: n }, () => s.next());
const stream = (o: Partial<ConstructorParameters<typeof CacheWindows>[2]> = {}) =>
  new CacheWindows(tok, split, { seqLen: 64, fimRate: 0, seed: 1, ...o }, lineEnds);

/** Undo FIM in a run of windows: prefix middle suffix back in place, every <|endoftext|> dropped. */
function unFim(ids: readonly number[], t: Tokenizer): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < ids.length) {
    if (ids[i] !== t.fim.prefix) {
      if (ids[i] !== t.eosId) out.push(ids[i]);
      i++;
      continue;
    }
    const s = ids.indexOf(t.fim.suffix, i);
    const m = ids.indexOf(t.fim.middle, i);
    const e = ids.indexOf(t.eosId, m);
    const middle = ids.slice(m + 1, e);
    if (t.fimMode === 'spm') {
      expect(s).toBe(i + 1); // <|fim_prefix|><|fim_suffix|> suffix <|fim_middle|> prefix middle
      // The prefix and middle follow <|fim_middle|> together; the end of the prefix is not marked, so compare whole spans.
      out.push(...ids.slice(m + 1, e), ...ids.slice(s + 1, m));
    } else {
      expect(i < s && s < m).toBe(true);
      out.push(...ids.slice(i + 1, s), ...middle, ...ids.slice(s + 1, m));
    }
    i = e + 1;
  }
  return out;
}

describe('CacheWindows', () => {
  test('packs the documents of an epoch in its order, each followed by <|endoftext|>, in windows of seqLen targets', () => {
    const s = stream();
    const order = s.orderOf(0);
    expect([...order].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]); // the empty document left out
    const expected = order.flatMap((d) => [...docs[d], tok.eosId]);
    const windows = take(s, Math.floor(expected.length / 64));
    for (const w of windows) {
      expect(w.ids.length).toBe(64);
      expect(w.lossMask).toEqual(new Array(64).fill(1));
    }
    expect(windows.flatMap((w) => w.ids)).toEqual(expected.slice(0, windows.length * 64));
    expect(s.tokens).toBe(windows.length * 64);
    // The next epoch: another order, the stream goes on without a gap.
    const rest = take(s, 5).flatMap((w) => w.ids);
    const next = s.orderOf(1).flatMap((d) => [...docs[d], tok.eosId]);
    expect(rest).toEqual([...expected.slice(windows.length * 64), ...next].slice(0, rest.length));
    expect(s.orderOf(1)).not.toEqual(order);
    expect(s.position.epoch).toBeGreaterThanOrEqual(1);
  });

  test.each(['psm', 'spm'] as const)('FIM windows (%s): full windows, well-formed examples, every token kept in order', (mode) => {
    const t = tok.withFimMode(mode);
    const s = new CacheWindows(t, split, { seqLen: 96, fimRate: 1, seed: 3 }, lineEnds);
    const windows = take(s, 40);
    let examples = 0;
    let lineMiddles = 0;
    for (const w of windows) {
      expect(w.ids.length).toBe(96);
      expect(w.lossMask.every((m) => m === 1)).toBe(true);
      // Every FIM example starts and ends inside its window: three markers then the middle and <|endoftext|>.
      const starts = w.ids.flatMap((id, i) => (id === t.fim.prefix ? [i] : []));
      for (const at of starts) {
        const m = w.ids.indexOf(t.fim.middle, at);
        expect(w.ids.indexOf(t.fim.suffix, at)).toBeGreaterThan(at);
        expect(m).toBeGreaterThan(at);
        const e = w.ids.indexOf(t.eosId, m);
        expect(e).toBeGreaterThan(m);
        examples++;
        if (mode === 'psm' && e > m + 1 && lineEnds[w.ids[e - 1]] === 1) lineMiddles++;
      }
      expect(w.ids.filter((id) => id === t.fim.middle).length).toBe(starts.length);
    }
    expect(examples).toBeGreaterThan(30);
    if (mode === 'psm') expect(lineMiddles).toBeGreaterThan(examples / 5); // many middles end after a newline token
    // Undone, the windows are the documents' tokens in the epoch's order.
    const expected = Array.from({ length: 10 }, (_, e) => e).flatMap((e) => s.orderOf(e).flatMap((d) => docs[d]));
    const got = unFim(windows.flatMap((w) => w.ids), t);
    expect(got.length).toBeGreaterThan(1000);
    expect(got).toEqual(expected.slice(0, got.length));
  });

  test('the same seed gives the same windows, another seed another order', () => {
    const a = take(stream({ fimRate: 0.5 }), 12);
    expect(take(stream({ fimRate: 0.5 }), 12)).toEqual(a);
    expect(take(stream({ fimRate: 0.5, seed: 2 }), 12)).not.toEqual(a);
  });

  test('a saved position continues exactly where the stream stopped, across epochs', () => {
    const straight = stream({ fimRate: 0.5 });
    const all = take(straight, 60); // several epochs of this tiny split
    expect(straight.position.epoch).toBeGreaterThanOrEqual(2);
    for (const stop of [1, 7, 23, 41]) {
      const first = stream({ fimRate: 0.5 });
      take(first, stop);
      const saved = JSON.parse(JSON.stringify(first.save()));
      const resumed = stream({ fimRate: 0.5 });
      expect(resumed.restore(saved, true)).toBeUndefined();
      expect(resumed.tokens).toBe(stop * 64);
      expect(take(resumed, 60 - stop)).toEqual(all.slice(stop));
      expect(resumed.position).toEqual(straight.position);
    }
  });

  test('restore: another seed or other weights is an error on --resume, a fresh start from an --init checkpoint', () => {
    const s = stream();
    take(s, 5);
    const saved = s.save();
    expect(() => stream({ seed: 9 }).restore(saved, true)).toThrow(/cannot resume: .*seed 1 there, 9 here/);
    const weights = new Map([['pkg-a', 2]]);
    expect(() => stream({ packageWeights: weights, packages }).restore(saved, true)).toThrow(/packageWeights \[\] there, \["pkg-a=2"\] here/);
    const other = stream({ seed: 9 });
    expect(other.restore(saved, false)).toMatch(/other data or another order .*the data starts from its beginning/);
    expect(other.position).toEqual({ epoch: 0, cursor: 0, offset: 0 });
    expect(other.tokens).toBe(5 * 64); // the tokens seen still count
    expect(() => stream().restore(undefined, true)).toThrow('the checkpoint has no stream position');
    expect(stream().restore(undefined, false)).toMatch(/no stream position: the data starts from its beginning/);
    expect(() => stream().seek({ epoch: 0, cursor: 99, offset: 0 })).toThrow('is outside the data');
  });

  test('package weights repeat and subsample documents per epoch', () => {
    const weights = parsePackageWeights(['pkg-a=2', 'pkg-b=0', 'pkg-c=0.5']);
    const s = stream({ packageWeights: weights, packages });
    const count = (order: readonly number[], pkg: string) => order.filter((d) => packages[d] === pkg).length;
    const docsOf = (pkg: string) => docs.filter((d, i) => d.length > 0 && packages[i] === pkg).length;
    let c = 0;
    for (let e = 0; e < 20; e++) {
      const order = s.orderOf(e);
      expect(count(order, 'pkg-a')).toBe(2 * docsOf('pkg-a'));
      expect(count(order, 'pkg-b')).toBe(0);
      c += count(order, 'pkg-c');
    }
    expect(c / 20 / docsOf('pkg-c')).toBeGreaterThan(0.3); // about half of them each epoch
    expect(c / 20 / docsOf('pkg-c')).toBeLessThan(0.7);
    expect(s.epochTokens()).toBe(docs.reduce((n, d, i) => n + (d.length > 0 ? ({ 'pkg-a': 2, 'pkg-b': 0, 'pkg-c': 0.5 }[packages[i]] ?? 1) * (d.length + 1) : 0), 0));
    expect(() => parsePackageWeights(['pkg-a=2', 'pkg-a=3'])).toThrow('pkg-a is named twice');
    expect(() => parsePackageWeights(['pkg-a:2'])).toThrow('expected package=weight');
    expect(() => stream({ packageWeights: new Map([['pkg-a', 0], ['pkg-b', 0], ['pkg-c', 0]]), packages })).toThrow('no document to train on');
  });

  test('held-out windows: the first ones of a fixed order, never a second pass', () => {
    const held = openTokenCache(path.join(tmp, 'cache')).split('heldout');
    const a = heldOutWindows(tok, held, { seqLen: 64, fimRate: 0.5, count: 4, lineEnds });
    expect(a.length).toBe(4);
    expect(heldOutWindows(tok, held, { seqLen: 64, fimRate: 0.5, count: 4, lineEnds })).toEqual(a);
    const all = heldOutWindows(tok, held, { seqLen: 64, fimRate: 0, count: 1000, lineEnds });
    expect(all.length).toBe(Math.floor((held.tokens.length + 1) / 64));
  });
});
