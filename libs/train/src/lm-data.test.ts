// Language-model examples on the real tokenizer: line chunks, FIM splits, pretraining windows, SFT masks,
// packing and padding. Pure host code: no tensors.
import { dataRandom } from '@rlhf-code/data';
import { encodeFim, encodePair, loadTokenizer, Tokenizer } from '@rlhf-code/tokenizer';
import {
  chunkLines,
  fimSftExample,
  fimSplit,
  LmExample,
  packExamples,
  padLmBatch,
  pretrainTokens,
  pretrainWindows,
  sftExample,
  targetCount,
} from './lm-data';

let tok: Tokenizer;
beforeAll(() => {
  tok = loadTokenizer();
});

/** A deterministic Python-looking file of `n` functions, line lengths varying from 1 to ~70 characters. */
function pyFile(seed: number, n: number): string {
  const random = dataRandom(`file:${seed}`);
  const lines: string[] = [];
  for (let f = 0; f < n; f++) {
    lines.push(`def f${seed}_${f}(x, y=${f}):`);
    const body = 1 + Math.floor(random() * 6);
    for (let i = 0; i < body; i++) {
      const pad = 'z'.repeat(Math.floor(random() * 40));
      lines.push(`    v${i} = x * ${i} + y  # ${pad}`);
    }
    lines.push(`    return v0`, '');
  }
  return lines.join('\n') + (seed % 2 === 0 ? '\n' : ''); // some files without a final newline
}

const count = (xs: readonly number[], v: number) => xs.filter((x) => x === v).length;

describe('chunkLines', () => {
  test('keeps every character, cuts only after a newline, and fills chunks greedily', () => {
    for (const seed of [0, 1, 2, 3]) {
      const text = pyFile(seed, 12);
      for (const target of [1, 20, 64, 200, 100000]) {
        const chunks = chunkLines(text, target);
        expect(chunks.join('')).toBe(text);
        chunks.forEach((c, i) => {
          expect(c.length).toBeGreaterThan(0);
          if (i < chunks.length - 1) expect(c.endsWith('\n')).toBe(true);
          // Longer than the target only when it is a single line.
          if (c.length > target) expect(c.slice(0, -1).includes('\n')).toBe(false);
          // Greedy: the next chunk's first line would not have fitted.
          if (i < chunks.length - 1) {
            const nextLine = chunks[i + 1].split(/(?<=\n)/)[0];
            expect(c.length + nextLine.length).toBeGreaterThan(target);
          }
        });
      }
      expect(chunkLines(text, 100000)).toEqual([text]);
    }
  });

  test('small cases by hand', () => {
    expect(chunkLines('', 10)).toEqual([]);
    expect(chunkLines('ab\ncd\nef', 6)).toEqual(['ab\ncd\n', 'ef']);
    expect(chunkLines('ab\ncd\nef', 5)).toEqual(['ab\n', 'cd\nef']);
    expect(chunkLines('ab\ncd\nef', 4)).toEqual(['ab\n', 'cd\n', 'ef']);
    expect(chunkLines('a very long line\nx\n', 4)).toEqual(['a very long line\n', 'x\n']);
  });
});

describe('fimSplit', () => {
  test('prefix + middle + suffix is the text for many seeds; both modes occur', () => {
    const text = pyFile(7, 4);
    const lineEnds = new Set<number>([text.length]);
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineEnds.add(i + 1);
    let lineMode = 0;
    let charMode = 0;
    for (let seed = 0; seed < 300; seed++) {
      const rng = dataRandom(`fim:${seed}`);
      const draws: number[] = [];
      const random = () => {
        const r = rng();
        draws.push(r);
        return r;
      };
      const { prefix, middle, suffix } = fimSplit(text, random);
      expect(prefix + middle + suffix).toBe(text);
      if (draws[0] < 0.5) {
        // Line mode: a non-empty middle of at most 3 lines that ends at a line end.
        lineMode++;
        expect(middle.length).toBeGreaterThan(0);
        expect(lineEnds.has(prefix.length + middle.length)).toBe(true);
        expect(middle.split('\n').length - 1).toBeLessThanOrEqual(3);
      } else {
        charMode++;
      }
    }
    expect(lineMode).toBeGreaterThan(100);
    expect(charMode).toBeGreaterThan(100);
  });

  test('works on text without newlines and on empty text', () => {
    for (let seed = 0; seed < 20; seed++) {
      const r = fimSplit('x = 1', dataRandom(seed));
      expect(r.prefix + r.middle + r.suffix).toBe('x = 1');
    }
    expect(fimSplit('', dataRandom(1))).toEqual({ prefix: '', middle: '', suffix: '' });
  });
});

describe('pretrainTokens', () => {
  const chunk = 'def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n';

  test('plain chunks: the encoding, plus <|endoftext|> at the end of a file', () => {
    const plain = tok.encode(chunk, { parseSpecialTokens: false });
    expect(pretrainTokens(tok, chunk, false, false, dataRandom(0))).toEqual(plain);
    expect(pretrainTokens(tok, chunk, false, true, dataRandom(0))).toEqual([...plain, tok.eosId]);
  });

  test('FIM chunks: <|fim_prefix|>p<|fim_suffix|>s<|fim_middle|>m<|endoftext|> that decodes back to the chunk', () => {
    for (let seed = 0; seed < 20; seed++) {
      const ids = pretrainTokens(tok, chunk, true, false, dataRandom(seed));
      expect(ids[0]).toBe(tok.fim.prefix);
      expect(ids[ids.length - 1]).toBe(tok.eosId);
      const s = ids.indexOf(tok.fim.suffix);
      const m = ids.indexOf(tok.fim.middle);
      expect(0 < s && s < m).toBe(true);
      for (const special of [tok.fim.prefix, tok.fim.suffix, tok.fim.middle, tok.eosId]) expect(count(ids, special)).toBe(1);
      const prefix = tok.decode(ids.slice(1, s));
      const suffix = tok.decode(ids.slice(s + 1, m));
      const middle = tok.decode(ids.slice(m + 1, -1));
      expect(prefix + middle + suffix).toBe(chunk);
    }
  });
});

describe('pretrainTokens in SPM order', () => {
  const chunk = 'def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n';

  test('<|fim_prefix|><|fim_suffix|>s<|fim_middle|>p m<|endoftext|>: the same split as PSM, the suffix first', () => {
    const spm = tok.withFimMode('spm');
    for (let seed = 0; seed < 20; seed++) {
      const psmIds = pretrainTokens(tok, chunk, true, false, dataRandom(seed));
      const ids = pretrainTokens(spm, chunk, true, false, dataRandom(seed));
      expect(ids.length).toBe(psmIds.length);
      expect(ids.slice(0, 2)).toEqual([tok.fim.prefix, tok.fim.suffix]);
      expect(ids[ids.length - 1]).toBe(tok.eosId);
      const m = ids.indexOf(tok.fim.middle);
      // The same prefix / suffix / middle ids as the PSM example drawn with the same seed.
      const [ps, pm] = [psmIds.indexOf(tok.fim.suffix), psmIds.indexOf(tok.fim.middle)];
      const [prefix, suffix, middle] = [psmIds.slice(1, ps), psmIds.slice(ps + 1, pm), psmIds.slice(pm + 1, -1)];
      expect(ids).toEqual([tok.fim.prefix, tok.fim.suffix, ...suffix, tok.fim.middle, ...prefix, ...middle, tok.eosId]);
      expect(m).toBe(2 + suffix.length);
      expect(tok.decode([...prefix, ...middle, ...suffix])).toBe(chunk);
    }
  });

  test('pretrainWindows keeps every SPM example whole inside one window', () => {
    const spm = tok.withFimMode('spm');
    const files = [0, 1, 2].map((s) => pyFile(s, 40));
    const windows = pretrainWindows(spm, files, { seqLen: 256, fimRate: 1, seed: 3 });
    for (const w of windows) {
      // Every <|fim_prefix|> in a window is followed by its <|fim_suffix|>, <|fim_middle|> and end token in the same window.
      w.ids.forEach((id, t) => {
        if (id !== tok.fim.prefix) return;
        expect(w.ids[t + 1]).toBe(tok.fim.suffix);
        const m = w.ids.indexOf(tok.fim.middle, t);
        expect(m).toBeGreaterThan(t);
        expect(w.ids.indexOf(tok.eosId, m)).toBeGreaterThan(m);
      });
    }
  });
});

describe('pretrainWindows', () => {
  const files = [0, 1, 2, 3, 4, 5].map((s) => pyFile(s, 40));
  const seqLen = 32;

  test('windows of exactly seqLen, all targets; fimRate 0 is the plain stream with <|endoftext|> between files', () => {
    const windows = pretrainWindows(tok, files, { seqLen, fimRate: 0, seed: 1 });
    // Reference: each file's chunks encoded one by one, then <|endoftext|>.
    const ref: number[] = [];
    for (const f of files) {
      for (const c of chunkLines(f, seqLen * 3)) ref.push(...tok.encode(c, { parseSpecialTokens: false }));
      ref.push(tok.eosId);
    }
    expect(windows.length).toBe(Math.floor(ref.length / seqLen));
    for (const w of windows) {
      expect(w.ids.length).toBe(seqLen);
      expect(w.lossMask).toEqual(new Array(seqLen).fill(1));
    }
    expect(windows.flatMap((w) => w.ids)).toEqual(ref.slice(0, windows.length * seqLen));
    expect(count(windows.flatMap((w) => w.ids), tok.fim.prefix)).toBe(0);
  });

  test('the share of FIM chunks is about fimRate', () => {
    // A window of 128 tokens holds a whole FIM example of these chunks (about 384 characters), so none falls back to plain.
    const big = 128;
    const chunks = files.reduce((n, f) => n + chunkLines(f, big * 3).length, 0);
    expect(chunks).toBeGreaterThan(100);
    for (const fimRate of [0.3, 0.5, 0.9]) {
      const windows = pretrainWindows(tok, files, { seqLen: big, fimRate, seed: 'a' });
      for (const w of windows) expect(w.ids.length).toBe(big);
      const fim = count(windows.flatMap((w) => w.ids), tok.fim.prefix);
      // Binomial sd at 100+ chunks is <= 0.05; the dropped last window and waiting example hold a chunk or two.
      expect(Math.abs(fim / chunks - fimRate)).toBeLessThan(0.12);
    }
    // fimRate 1: every chunk but those whose middle alone overflows a window (they stay plain) and the last one or two.
    const all = pretrainWindows(tok, files, { seqLen: big, fimRate: 1, seed: 'a' });
    const fimAll = count(all.flatMap((w) => w.ids), tok.fim.prefix);
    expect(fimAll).toBeLessThanOrEqual(chunks);
    expect(fimAll).toBeGreaterThan(0.9 * chunks);
  });

  test('a FIM example never crosses a window; gaps are filled by the plain text after it, padded when a second FIM example would wait', () => {
    for (const [fimRate, seqLen2] of [[0.5, 32], [0.5, 128], [0.9, 64], [1, 64]] as const) {
      const windows = pretrainWindows(tok, files, { seqLen: seqLen2, fimRate, seed: 7 });
      let padded = 0;
      let examples = 0;
      for (const w of windows) {
        expect(w.ids.length).toBe(seqLen2);
        // Every <|fim_prefix|> is followed, in the same window, by one <|fim_suffix|>, one <|fim_middle|> and the end token.
        for (let i = 0; i < w.ids.length; i++) {
          if (w.ids[i] !== tok.fim.prefix) continue;
          examples++;
          const s = w.ids.indexOf(tok.fim.suffix, i);
          const m = w.ids.indexOf(tok.fim.middle, i);
          const e = w.ids.indexOf(tok.eosId, m);
          expect(i < s && s < m && m < e).toBe(true);
        }
        expect(count(w.ids, tok.fim.middle)).toBe(count(w.ids, tok.fim.prefix));
        expect(count(w.ids, tok.fim.suffix)).toBe(count(w.ids, tok.fim.prefix));
        // Padding: only at the end of a window, never a target.
        const firstPad = w.ids.indexOf(tok.padId);
        if (firstPad >= 0) {
          padded++;
          expect(w.ids.slice(firstPad)).toEqual(new Array(seqLen2 - firstPad).fill(tok.padId));
          expect(w.lossMask).toEqual(w.ids.map((id) => (id === tok.padId ? 0 : 1)));
        } else {
          expect(w.lossMask).toEqual(new Array(seqLen2).fill(1));
        }
      }
      expect(examples).toBeGreaterThan(0);
      if (fimRate === 1) expect(padded).toBeGreaterThan(0);
      if (fimRate === 0.5 && seqLen2 === 128) expect(padded).toBeLessThan(windows.length * 0.1);
    }
  });

  test('pretrainTokens with maxLen: a long FIM example loses the end of its suffix, then the start of its prefix', () => {
    const chunk = 'a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n';
    for (let seed = 0; seed < 30; seed++) {
      const full = pretrainTokens(tok, chunk, true, false, dataRandom(seed));
      for (const maxLen of [8, 12, 16]) {
        const ids = pretrainTokens(tok, chunk, true, false, dataRandom(seed), maxLen);
        if (ids[0] !== tok.fim.prefix) {
          // the middle alone does not fit: the chunk stays plain
          expect(ids).toEqual(tok.encode(chunk, { parseSpecialTokens: false }));
          expect(full.length - full.indexOf(tok.fim.middle) - 1 + 4).toBeGreaterThan(maxLen);
          continue;
        }
        expect(ids.length).toBeLessThanOrEqual(maxLen);
        const [s, m] = [ids.indexOf(tok.fim.suffix), ids.indexOf(tok.fim.middle)];
        const [fs, fm] = [full.indexOf(tok.fim.suffix), full.indexOf(tok.fim.middle)];
        expect(ids.slice(m)).toEqual(full.slice(fm)); // the middle and the end token are whole
        const [p, sfx] = [ids.slice(1, s), ids.slice(s + 1, m)];
        const [fp, fsfx] = [full.slice(1, fs), full.slice(fs + 1, fm)];
        expect(fsfx.slice(0, sfx.length)).toEqual(sfx); // the suffix keeps its start
        expect(fp.slice(fp.length - p.length)).toEqual(p); // the prefix keeps its end
        if (p.length < fp.length) expect(sfx).toEqual([]); // the prefix is cut only once the suffix is gone
        if (full.length <= maxLen) expect(ids).toEqual(full);
      }
    }
  });

  test('deterministic per seed; another seed gives other FIM choices', () => {
    const a = pretrainWindows(tok, files, { seqLen, fimRate: 0.5, seed: 3 });
    expect(pretrainWindows(tok, files, { seqLen, fimRate: 0.5, seed: 3 })).toEqual(a);
    expect(pretrainWindows(tok, files, { seqLen, fimRate: 0.5, seed: 4 })).not.toEqual(a);
  });

  test('rejects a bad fimRate or seqLen', () => {
    for (const fimRate of [-0.1, 1.5, NaN]) {
      expect(() => pretrainWindows(tok, files, { seqLen, fimRate, seed: 0 })).toThrow(/fimRate must be in \[0, 1\]/);
    }
    for (const bad of [1, 0, 2.5, NaN]) {
      expect(() => pretrainWindows(tok, files, { seqLen: bad, fimRate: 0.5, seed: 0 })).toThrow(/seqLen must be an integer >= 2/);
    }
  });
});

describe('sftExample', () => {
  test('mask is 0 on the prompt and 1 on the response and its end token', () => {
    const prompt = '# add two numbers\ndef add(a, b):\n';
    const response = '    return a + b\n';
    const p = tok.encode(prompt, { parseSpecialTokens: false });
    const r = tok.encode(response, { parseSpecialTokens: false });
    const ex = sftExample(tok, prompt, response, { maxLen: 1000 });
    expect(ex.ids).toEqual([...p, ...r, tok.eosId]);
    expect(ex.lossMask).toEqual([...p.map(() => 0), ...r.map(() => 1), 1]);

    const chat = sftExample(tok, prompt, response, { template: 'chat', maxLen: 1000 });
    const ref = encodePair(tok, prompt, response, { template: 'chat', addEos: true });
    expect(chat.ids).toEqual(ref.ids);
    expect(chat.ids[chat.ids.length - 1]).toBe(tok.chat.imEnd);
    expect(chat.lossMask).toEqual(ref.ids.map((_, t) => (t < ref.promptLen ? 0 : 1)));
  });

  test('a truncated example keeps the mask aligned with the kept prompt', () => {
    const prompt = 'x = 1\n'.repeat(30);
    const response = 'y = 2\n'.repeat(30);
    const ex = sftExample(tok, prompt, response, { maxLen: 20 });
    const ref = encodePair(tok, prompt, response, { maxLen: 20, addEos: true });
    expect(ex.ids).toEqual(ref.ids);
    expect(ex.ids.length).toBe(20);
    expect(ex.lossMask.indexOf(1)).toBe(ref.promptLen);
    expect(ex.lossMask.slice(ref.promptLen).every((m) => m === 1)).toBe(true);
  });
});

describe('fimSftExample', () => {
  const plain = (t: string) => tok.encode(t, { parseSpecialTokens: false });

  test('is Qwen\'s FIM form with the loss on the middle and the end token only', () => {
    const prefix = 'def add(a, b):\n';
    const suffix = '\n\nprint(add(1, 2))\n';
    const middle = '    return a + b\n';
    const ex = fimSftExample(tok, prefix, suffix, middle, { maxLen: 1000 });
    const head = encodeFim(tok, prefix, suffix);
    expect(ex.ids).toEqual([...head, ...plain(middle), tok.eosId]);
    expect(ex.ids.slice(0, 1)).toEqual([tok.fim.prefix]);
    expect(ex.lossMask).toEqual([...head.map(() => 0), ...plain(middle).map(() => 1), 1]);
  });

  test('in SPM order: suffix first, then the prefix, the middle right after it; the loss on the middle and the end token', () => {
    const spm = tok.withFimMode('spm');
    const [prefix, suffix, middle] = ['def add(a, b):\n', '\n\nprint(add(1, 2))\n', '    return a + b\n'];
    const ex = fimSftExample(spm, prefix, suffix, middle, { maxLen: 1000 });
    const head = [tok.fim.prefix, tok.fim.suffix, ...plain(suffix), tok.fim.middle, ...plain(prefix)];
    expect(ex.ids).toEqual([...head, ...plain(middle), tok.eosId]);
    expect(ex.lossMask).toEqual([...head.map(() => 0), ...plain(middle).map(() => 1), 1]);
    // Cut to a window: the same kept parts as PSM, in the other order.
    const long = 'x = 1\n'.repeat(200);
    const a = fimSftExample(tok, long, long, middle, { maxLen: 64 });
    const b = fimSftExample(spm, long, long, middle, { maxLen: 64 });
    expect(b.ids).toHaveLength(a.ids.length);
    expect([...b.ids].sort()).toEqual([...a.ids].sort());
    expect(b.ids.slice(-plain(middle).length - 1)).toEqual([...plain(middle), tok.eosId]);
  });

  test('code that contains a marker string stays text', () => {
    const ex = fimSftExample(tok, 's = "<|fim_middle|>"\n', '', 'x = 1\n', { maxLen: 1000 });
    expect(ex.ids.filter((id) => id === tok.fim.middle)).toHaveLength(1);
  });

  test('too long: the middle keeps half the window, the prefix loses its start and the suffix its end', () => {
    const prefix = Array.from({ length: 40 }, (_, i) => `p${i} = ${i}\n`).join('');
    const suffix = Array.from({ length: 40 }, (_, i) => `s${i} = ${i}\n`).join('');
    const middle = Array.from({ length: 40 }, (_, i) => `m${i} = ${i}\n`).join('');
    const ex = fimSftExample(tok, prefix, suffix, middle, { maxLen: 64 });
    expect(ex.ids).toHaveLength(64);
    const [pAt, sAt, mAt] = [tok.fim.prefix, tok.fim.suffix, tok.fim.middle].map((id) => ex.ids.indexOf(id));
    expect(pAt).toBe(0);
    const kept = { p: ex.ids.slice(1, sAt), s: ex.ids.slice(sAt + 1, mAt), m: ex.ids.slice(mAt + 1) };
    expect(kept.m).toHaveLength(Math.ceil(61 / 2)); // room = 64 - 3 markers
    expect(kept.m).toEqual(plain(middle).slice(0, kept.m.length)); // the middle's start (no end token: it was cut)
    expect(kept.s).toHaveLength(Math.floor((61 - kept.m.length) / 2));
    expect(kept.s).toEqual(plain(suffix).slice(0, kept.s.length)); // the text right after the cursor
    expect(kept.p).toEqual(plain(prefix).slice(-kept.p.length)); // the text right before the cursor
    expect(kept.p.length + kept.s.length + kept.m.length).toBe(61);
    expect(ex.lossMask.indexOf(1)).toBe(mAt + 1);
    // A short suffix leaves its share to the prefix.
    const short = fimSftExample(tok, prefix, '\n', middle, { maxLen: 64 });
    expect(short.ids.indexOf(tok.fim.middle) - short.ids.indexOf(tok.fim.suffix) - 1).toBe(plain('\n').length);
    expect(short.ids).toHaveLength(64);
    expect(() => fimSftExample(tok, 'a', 'b', 'c', { maxLen: 4 })).toThrow('maxLen must be at least 5');
  });
});

describe('packExamples', () => {
  const example = (i: number, len: number): LmExample => ({
    ids: Array.from({ length: len }, (_, t) => i * 100 + t),
    lossMask: Array.from({ length: len }, (_, t) => (t < len / 2 ? 0 : 1)),
  });

  test('never splits an example, keeps order, respects seqLen, and packs greedily', () => {
    const random = dataRandom('pack');
    const examples = Array.from({ length: 60 }, (_, i) => example(i, 1 + Math.floor(random() * 30)));
    examples.push(example(60, 45)); // longer than seqLen: a window of its own
    examples.push(example(61, 3));
    const seqLen = 40;
    const packed = packExamples(examples, seqLen);
    let next = 0;
    for (const w of packed) {
      expect(w.lossMask.length).toBe(w.ids.length);
      const first = next;
      let used = 0;
      while (used < w.ids.length) {
        const ex = examples[next++];
        expect(w.ids.slice(used, used + ex.ids.length)).toEqual(ex.ids);
        expect(w.lossMask.slice(used, used + ex.ids.length)).toEqual(ex.lossMask);
        used += ex.ids.length;
      }
      expect(used).toBe(w.ids.length);
      if (next - first > 1) expect(w.ids.length).toBeLessThanOrEqual(seqLen);
      if (next < examples.length) expect(w.ids.length + examples[next].ids.length).toBeGreaterThan(seqLen);
    }
    expect(next).toBe(examples.length);
    expect(packed.some((w) => w.ids.length === 45)).toBe(true);
    expect(packExamples([], 10)).toEqual([]);
  });
});

describe('padLmBatch and targetCount', () => {
  test('right padding to the longest example', () => {
    const batch = padLmBatch(
      [
        { ids: [5, 6, 7], lossMask: [0, 1, 1] },
        { ids: [8], lossMask: [1] },
        { ids: [9, 10, 11, 12, 13], lossMask: [0, 0, 1, 1, 1] },
      ],
      99,
    );
    expect(batch.ids).toEqual([
      [5, 6, 7, 99, 99],
      [8, 99, 99, 99, 99],
      [9, 10, 11, 12, 13],
    ]);
    expect(batch.attention).toEqual([
      [1, 1, 1, 0, 0],
      [1, 0, 0, 0, 0],
      [1, 1, 1, 1, 1],
    ]);
    expect(batch.loss).toEqual([
      [0, 1, 1, 0, 0],
      [1, 0, 0, 0, 0],
      [0, 0, 1, 1, 1],
    ]);
    // Position 0 has nothing before it to predict it from: row 2's mask there does not count.
    expect(targetCount(batch)).toBe(2 + 0 + 3);
    expect(() => padLmBatch([], 0)).toThrow('padLmBatch: no examples');
  });

  test('targetCount ignores position 0', () => {
    expect(targetCount({ ids: [[1, 2, 3]], attention: [[1, 1, 1]], loss: [[1, 1, 1]] })).toBe(2);
    expect(targetCount({ ids: [[1, 2]], attention: [[1, 1]], loss: [[1, 0]] })).toBe(0);
  });
});
