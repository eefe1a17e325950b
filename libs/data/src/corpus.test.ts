import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  copyStdlibCorpus,
  isHeldOut,
  listFiles,
  readCorpora,
  readCorpus,
  selectStdlibFiles,
  STDLIB_EXTRA_PACKAGES,
  STDLIB_MAX_FILE_BYTES,
  STDLIB_PACKAGES,
} from './corpus';

const corpusRoot = path.resolve(__dirname, '../../../data/vendor/cpython');
const stdlibCopy = path.join(corpusRoot, 'python-stdlib');

describe('isHeldOut', () => {
  it('matches the Python rule int(sha256(p).hexdigest()[:8], 16) % 10 == 0', () => {
    // Expected values computed with python3's hashlib.
    const held = ['a', 'f', 'l'];
    for (const p of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'os.py', 'json/decoder.py']) {
      expect([p, isHeldOut(p)]).toEqual([p, held.includes(p)]);
    }
  });
});

describe('the shipped corpus (data/vendor/cpython)', () => {
  const files = listFiles(stdlibCopy);

  it('is 3-6 MB of Python modules without tests, big files or excluded packages', () => {
    const sizes = files.map((f) => fs.statSync(path.join(stdlibCopy, f)).size);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(3e6);
    expect(total).toBeLessThan(6e6);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(STDLIB_MAX_FILE_BYTES);
    expect(files.every((f) => f.endsWith('.py'))).toBe(true);
    const bad = files.filter((f) => /(^|\/)(test|tests|idle_test|lib2to3|idlelib|turtledemo)\/|(^|\/)test_[^/]*$/.test(f));
    expect(bad).toEqual([]);
    for (const pkg of STDLIB_PACKAGES) expect(files.some((f) => f.startsWith(`${pkg}/`))).toBe(true);
  });

  it('holds out the files Python\'s hashlib picks (~10%)', () => {
    const { train, test } = readCorpus(stdlibCopy);
    expect(train.length + test.length).toBe(files.length);
    // python3: [p for p in files if int(sha256(p.encode()).hexdigest()[:8], 16) % 10 == 0]
    expect(test.map((f) => f.path)).toEqual([
      'ast.py', 'asyncio/constants.py', 'asyncio/trsock.py', 'asyncio/windows_utils.py', 'colorsys.py', 'enum.py',
      'ftplib.py', 'getopt.py', 'http/client.py', 'imaplib.py', 'ipaddress.py', 'logging/handlers.py', 'platform.py',
      'py_compile.py', 'quopri.py', 'secrets.py', 'selectors.py', 'tracemalloc.py', 'types.py', 'unittest/main.py',
      'unittest/result.py', 'unittest/signals.py', 'zoneinfo/__init__.py',
    ]);
  });

  it('python-stdlib-extra holds only the extra packages, without tests, and no file of python-stdlib', () => {
    const extraDir = path.join(corpusRoot, 'python-stdlib-extra');
    const extra = listFiles(extraDir);
    const total = extra.reduce((a, f) => a + fs.statSync(path.join(extraDir, f)).size, 0);
    expect(total).toBeGreaterThan(3e6);
    expect(total).toBeLessThan(4e6);
    expect(extra.every((f) => f.endsWith('.py') && STDLIB_EXTRA_PACKAGES.includes(f.split('/')[0]))).toBe(true);
    expect(extra.filter((f) => /(^|\/)(test|tests|idle_test)\/|(^|\/)test_[^/]*$/.test(f))).toEqual([]);
    for (const pkg of STDLIB_EXTRA_PACKAGES) expect(extra.some((f) => f.startsWith(`${pkg}/`))).toBe(true);
    expect(extra.filter((f) => files.includes(f))).toEqual([]);
  });

  it('ships its license and README', () => {
    expect(fs.readFileSync(path.join(corpusRoot, 'LICENSE'), 'utf8')).toContain('PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2');
    expect(fs.readFileSync(path.join(corpusRoot, 'README.md'), 'utf8')).toContain('sha256');
  });
});

describe('corpus selection and reading', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-test-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (root: string, rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), data);
  };

  // A fake CPython Lib folder exercising each rule.
  const lib = path.join(tmp, 'Lib');
  write(lib, 'os.py', 'import sys\n');
  write(lib, 'shutil.py', 'def copy(): pass\n');
  write(lib, 'this.py', 's = "joke"\n'); // excluded module
  write(lib, '_sysconfigdata__linux.py', 'build_time_vars = {}\n'); // generated
  write(lib, 'huge.py', '#'.repeat(STDLIB_MAX_FILE_BYTES + 1)); // too big
  write(lib, 'latin.py', Buffer.from([0x23, 0xe9, 0x0a])); // "#é\n" in Latin-1: not UTF-8
  write(lib, 'notes.txt', 'not python\n');
  write(lib, 'nfd.py', 's = "e\u0301"\n'); // decomposed é: not NFC
  write(lib, 'lib2to3/fixer.py', 'x = 1\n'); // not a selected package
  for (const pkg of STDLIB_PACKAGES) write(lib, `${pkg}/__init__.py`, '');
  write(lib, 'json/decoder.py', 'class D: pass\n');
  write(lib, 'json/tests/test_x.py', 'pass\n');
  write(lib, 'unittest/test/case.py', 'pass\n');
  write(lib, 'asyncio/test_helpers.py', 'pass\n');
  for (const pkg of STDLIB_EXTRA_PACKAGES) write(lib, `${pkg}/__init__.py`, '');
  write(lib, 'xml/dom/minidom.py', 'class Node: pass\n');
  write(lib, 'idlelib/idle_test/test_x.py', 'pass\n');

  it('selectStdlibFiles applies the rules', () => {
    const expected = ['json/decoder.py', 'os.py', 'shutil.py', ...STDLIB_PACKAGES.map((p) => `${p}/__init__.py`)].sort();
    expect(selectStdlibFiles(lib)).toEqual(expected);
    expect(() => selectStdlibFiles(tmp)).toThrow(`Not a Python standard library folder (no os.py): ${tmp}`);
  });

  it("selectStdlibFiles(lib, 'extra') takes the extra packages only (no top-level modules, no tests)", () => {
    const expected = ['lib2to3/fixer.py', 'xml/dom/minidom.py', ...STDLIB_EXTRA_PACKAGES.map((p) => `${p}/__init__.py`)].sort();
    expect(selectStdlibFiles(lib, 'extra')).toEqual(expected);
    const out = path.join(tmp, 'out-extra');
    expect(copyStdlibCorpus(lib, out, 'extra')).toEqual({ files: expected.length, bytes: 'x = 1\n'.length + 'class Node: pass\n'.length });
    expect(listFiles(out)).toEqual(expected);
  });

  it('readCorpora joins folders in order, each split by its own paths', () => {
    const one = path.join(tmp, 'one');
    const two = path.join(tmp, 'two');
    for (const name of ['a', 'b', 'c', 'f']) write(one, name, `${name} = 1\n`); // 'a' and 'f' are held out
    for (const name of ['l', 'm']) write(two, name, `${name} = 2\n`); // 'l' is held out
    const both = readCorpora([one, two]);
    expect(both.train.map((f) => f.path)).toEqual(['b', 'c', 'm']);
    expect(both.test.map((f) => [f.path, f.text])).toEqual([['a', 'a = 1\n'], ['f', 'f = 1\n'], ['l', 'l = 2\n']]);
    expect(() => readCorpora([one, path.join(tmp, 'absent')])).toThrow(`Corpus folder not found: ${path.join(tmp, 'absent')}`);
    expect(() => readCorpora([])).toThrow('No corpus folder given');
  });

  it('copyStdlibCorpus copies with relative paths and refuses a non-empty target', () => {
    const out = path.join(tmp, 'out');
    const result = copyStdlibCorpus(lib, out);
    expect(listFiles(out)).toEqual(selectStdlibFiles(lib));
    expect(result).toEqual({ files: 14, bytes: 'import sys\n'.length + 'def copy(): pass\n'.length + 'class D: pass\n'.length });
    expect(() => copyStdlibCorpus(lib, out)).toThrow(`Output folder is not empty: ${out}`);
  });

  it('readCorpus errors name the folder or file', () => {
    expect(() => readCorpus(path.join(tmp, 'absent'))).toThrow(`Corpus folder not found: ${path.join(tmp, 'absent')}`);
    const bad = path.join(tmp, 'bad');
    write(bad, 'ok.py', 'x = 1\n');
    write(bad, 'sub/latin.py', Buffer.from([0xe9]));
    expect(() => readCorpus(bad)).toThrow(`Corpus file is not valid UTF-8: ${path.join(bad, 'sub/latin.py')}`);
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    expect(() => readCorpus(empty)).toThrow(`Corpus folder has no training files: ${empty}`);
  });
});
