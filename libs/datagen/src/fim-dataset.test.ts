import * as fs from 'fs';
import * as path from 'path';
import { buildFimDataset, fimExamplesFromText, fimSftRecords } from './fim-dataset';
import { isHeldOut } from '@rlhf-code/data';
import { tempDir } from '@rlhf-code/model/testing';

const SOURCE = [
  'import os',
  '',
  'def area(w, h):',
  '    # width times height',
  '    result = w * h',
  '    return result',
  '',
  'class Box:',
  '    def __init__(self, w, h):',
  '        self.w = w',
  '        self.h = h',
  '',
  'print(area(2, 3))',
  '',
].join('\n');

test('prefix + middle + suffix rebuild the file; the middle follows the documented rule', () => {
  const ex = fimExamplesFromText('pkg/box.py', SOURCE, { perFile: 8, seed: 3 });
  expect(ex.length).toBe(8); // 9 candidate lines (not blank, not comment-only, not line 1)
  const kinds = new Set(ex.map((e) => e.kind));
  expect(kinds).toEqual(new Set(['rest-of-line', 'lines']));
  for (const e of ex) {
    expect(e.prefix + e.middle + e.suffix).toBe(SOURCE);
    expect(e.middle.trim()).not.toBe('');
    expect(e.path).toBe('pkg/box.py');
    expect(e.split).toBe(isHeldOut('pkg/box.py') ? 'test' : 'train');
    if (e.kind === 'rest-of-line') {
      expect(e.middle).not.toContain('\n');
      expect(e.suffix.startsWith('\n')).toBe(true);
      // never inside a name: the characters around the cursor are not both identifier characters
      const before = e.prefix.slice(-1);
      expect(/\w/.test(before) && /\w/.test(e.middle[0])).toBe(false);
    } else {
      expect(e.prefix === '' || e.prefix.endsWith('\n')).toBe(true);
      expect(e.middle.endsWith('\n')).toBe(true);
      const n = e.middle.split('\n').length - 1;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(3);
    }
    expect(e.middle.trimStart().startsWith('#')).toBe(false);
  }
  expect(fimExamplesFromText('pkg/box.py', SOURCE, { perFile: 8, seed: 3 })).toEqual(ex); // reproducible
});

test('long files keep the text nearest the cursor, cut at line boundaries', () => {
  const big = Array.from({ length: 400 }, (_, i) => `v${i} = ${i}`).join('\n') + '\n';
  for (const e of fimExamplesFromText('big.py', big, { perFile: 5, maxPrefixChars: 200, maxSuffixChars: 100 })) {
    expect(e.prefix.length).toBeLessThanOrEqual(200 + 20);
    expect(e.suffix.length).toBeLessThanOrEqual(100);
    expect(big).toContain(e.prefix + e.middle + e.suffix);
  }
});

test('buildFimDataset reads a folder of .py files and splits by file', () => {
  const dir = tempDir();
  const names = Array.from({ length: 30 }, (_, i) => `m${i}.py`);
  for (const n of names) fs.writeFileSync(path.join(dir, n), SOURCE);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not python');
  const { examples, files } = buildFimDataset(dir, { perFile: 2 });
  expect(files.train + files.test).toBe(30);
  expect(files.test).toBe(names.filter(isHeldOut).length);
  expect(examples).toHaveLength(60);
  const splitOf = new Map<string, string>();
  for (const e of examples) {
    expect(splitOf.get(e.path) ?? e.split).toBe(e.split); // every example of a file on one side
    splitOf.set(e.path, e.split);
  }
  expect(() => buildFimDataset(path.join(dir, 'missing'))).toThrow(/--src: .* is not a folder/);
});

test('several folders: paths start with the folder name; fimSftRecords keeps only the train split, as sft records', () => {
  const [a, b] = [path.join(tempDir(), 'alpha'), path.join(tempDir(), 'beta')];
  const names = Array.from({ length: 12 }, (_, i) => `m${i}.py`);
  for (const d of [a, b]) {
    fs.mkdirSync(d);
    for (const n of names) fs.writeFileSync(path.join(d, n), SOURCE);
  }
  const one = buildFimDataset(a, { perFile: 2 });
  const both = buildFimDataset([a, b], { perFile: 2 });
  expect(both.files).toEqual({ train: 2 * one.files.train, test: 2 * one.files.test });
  expect(both.examples.slice(0, one.examples.length)).toEqual(one.examples.map((e) => ({ ...e, path: `alpha/${e.path}` })));
  expect(both.examples.slice(one.examples.length).every((e) => e.path.startsWith('beta/'))).toBe(true);
  expect(one.files.test).toBeGreaterThan(0);
  const records = fimSftRecords(both.examples);
  const train = both.examples.filter((e) => e.split === 'train');
  expect(records).toEqual(train.map((e) => ({ prompt: e.prefix, suffix: e.suffix, response: e.middle, path: e.path, kind: e.kind })));
  expect(records.length).toBeLessThan(both.examples.length);
  expect(() => buildFimDataset([a, path.join(b, 'missing')])).toThrow(/--src: .*missing is not a folder/);
  expect(() => buildFimDataset([])).toThrow('--src: no folder given');
});
