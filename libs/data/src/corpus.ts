// The Python code corpus: a folder of source files, split into train/test by a hash of each file's path, and the
// rule that selects it from CPython's standard library (data/vendor/cpython/README.md describes the shipped copy).
import { isUtf8 } from 'buffer';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { FimRecord } from './schemas';

export interface CorpusFile {
  /** Path relative to the corpus folder, with "/" separators (the key of the train/test split). */
  path: string;
  text: string;
}

/**
 * The held-out rule: a file is test data when the first 4 bytes of sha256(relative path), read as a big-endian
 * unsigned integer, are divisible by 10 (~10% of files). It depends on the path alone, so adding or removing
 * files never moves another file across the split. Python: int(sha256(p.encode()).hexdigest()[:8], 16) % 10 == 0.
 */
export function isHeldOut(relPath: string): boolean {
  return createHash('sha256').update(relPath, 'utf8').digest().readUInt32BE(0) % 10 === 0;
}

/** Relative paths ("/"-separated, sorted) of every regular file under `dir`. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** The text of a UTF-8 file, or null when its bytes are not valid UTF-8. */
function readUtf8(file: string): string | null {
  const data = fs.readFileSync(file);
  return isUtf8(data) ? data.toString('utf8') : null;
}

/** Every file under `dir` as a document, split by isHeldOut. Errors on a missing/empty folder or a non-UTF-8 file. */
export function readCorpus(dir: string): { train: CorpusFile[]; test: CorpusFile[] } {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`Corpus folder not found: ${dir}`);
  const train: CorpusFile[] = [];
  const test: CorpusFile[] = [];
  for (const rel of listFiles(dir)) {
    const text = readUtf8(path.join(dir, rel));
    if (text === null) throw new Error(`Corpus file is not valid UTF-8: ${path.join(dir, rel)}`);
    (isHeldOut(rel) ? test : train).push({ path: rel, text });
  }
  if (train.length === 0) throw new Error(`Corpus folder has no training files: ${dir}`);
  return { train, test };
}

/**
 * Several corpus folders as one: their train and test files in the order of `dirs` (each split by its own relative
 * paths). Errors name the folder, as readCorpus does.
 */
/** A --corpus flag's folders: comma separated, blanks around names and empty entries ignored. */
export function corpusDirs(flag: string): string[] {
  return flag.split(',').map((d) => d.trim()).filter((d) => d !== '');
}

/**
 * The whole source file of a FIM example, from the corpus folder `dir` it was cut from (null when it is not there);
 * each file is read once. (The simulated user and the learning experiment show a user the file around the cursor.)
 */
export function corpusFiles(dir: string): (e: Pick<FimRecord, 'path'>) => string | null {
  const cache = new Map<string, string | null>();
  return (e) => {
    const rel = typeof e.path === 'string' ? e.path : null;
    if (rel === null) return null;
    if (!cache.has(rel)) {
      const file = path.join(dir, rel);
      cache.set(rel, fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n') : null);
    }
    return cache.get(rel)!;
  };
}

export function readCorpora(dirs: readonly string[]): { train: CorpusFile[]; test: CorpusFile[] } {
  if (dirs.length === 0) throw new Error('No corpus folder given');
  const parts = dirs.map((dir) => readCorpus(dir));
  return { train: parts.flatMap((p) => p.train), test: parts.flatMap((p) => p.test) };
}

// --- Selection from CPython's standard library ---------------------------------------------------------------

/** Packages taken whole (minus their tests): modern, widely imitated library code. */
export const STDLIB_PACKAGES: readonly string[] = [
  'asyncio', 'collections', 'concurrent', 'http', 'json', 'logging', 're', 'tomllib', 'unittest', 'urllib', 'zoneinfo',
];

/**
 * The second selection (data/vendor/cpython/python-stdlib-extra): more packages, no top-level modules. It was added to
 * continue pretraining the base model on more code than the first selection (over which the tokenizer was derived,
 * so that selection stays as it is): the model had started to learn the first corpus by heart (training loss ~1 nat
 * below the held-out loss after four epochs).
 */
export const STDLIB_EXTRA_PACKAGES: readonly string[] = [
  'ctypes', 'dbm', 'distutils', 'email', 'idlelib', 'importlib', 'lib2to3', 'multiprocessing', 'sqlite3', 'tkinter',
  'venv', 'wsgiref', 'xml', 'xmlrpc',
];

export type StdlibSelection = 'main' | 'extra';

/**
 * Top-level modules left out: jokes and generated files, the modules PEP 594 deprecates ("dead batteries"),
 * modules that are mostly data tables, turtle graphics, and the 229 KB pure-Python decimal.
 */
export const STDLIB_EXCLUDED_MODULES: readonly string[] = [
  '__hello__', 'antigravity', 'this', 'keyword', 'token',
  'aifc', 'asynchat', 'asyncore', 'cgi', 'cgitb', 'chunk', 'crypt', 'imghdr', 'imp', 'mailcap', 'nntplib', 'pipes',
  'smtpd', 'sndhdr', 'sunau', 'telnetlib', 'uu', 'xdrlib',
  '_compat_pickle', 'locale', 'stringprep', 'turtle', '_pydecimal',
];

export const STDLIB_MAX_FILE_BYTES = 200_000;

const TEST_DIRS = new Set(['test', 'tests', 'idle_test', '__pycache__']);

/**
 * Relative paths of the corpus files in a CPython `Lib` folder: top-level *.py modules except
 * STDLIB_EXCLUDED_MODULES (and generated _sysconfigdata*), plus every *.py of STDLIB_PACKAGES outside test
 * folders and test_*.py files; files over STDLIB_MAX_FILE_BYTES, not valid UTF-8 or not in Unicode NFC are skipped
 * (the tokenizers normalize text to NFC, so such a file could not be reproduced from its tokens; in 3.11 this only
 * drops the generated table re/_casefix.py).
 */
export function selectStdlibFiles(stdlibDir: string, selection: StdlibSelection = 'main'): string[] {
  if (!fs.existsSync(path.join(stdlibDir, 'os.py'))) throw new Error(`Not a Python standard library folder (no os.py): ${stdlibDir}`);
  const topLevel =
    selection === 'extra'
      ? []
      : fs
          .readdirSync(stdlibDir, { withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith('.py'))
          .map((e) => e.name)
          .filter((name) => !STDLIB_EXCLUDED_MODULES.includes(name.slice(0, -3)) && !name.startsWith('_sysconfigdata'));
  const packages = selection === 'extra' ? STDLIB_EXTRA_PACKAGES : STDLIB_PACKAGES;
  const inPackages = packages.flatMap((pkg) => {
    if (!fs.existsSync(path.join(stdlibDir, pkg))) throw new Error(`Standard library package not found: ${path.join(stdlibDir, pkg)}`);
    return listFiles(path.join(stdlibDir, pkg))
      .filter((rel) => rel.endsWith('.py') && !rel.split('/').some((part) => TEST_DIRS.has(part)))
      .filter((rel) => !path.posix.basename(rel).startsWith('test_'))
      .map((rel) => `${pkg}/${rel}`);
  });
  return [...topLevel, ...inPackages]
    .filter((rel) => fs.statSync(path.join(stdlibDir, rel)).size <= STDLIB_MAX_FILE_BYTES)
    .filter((rel) => {
      const text = readUtf8(path.join(stdlibDir, rel));
      return text !== null && text === text.normalize('NFC');
    })
    .sort();
}

/** Copy the selection into `outDir` (which must be absent or empty), keeping relative paths. */
export function copyStdlibCorpus(stdlibDir: string, outDir: string, selection: StdlibSelection = 'main'): { files: number; bytes: number } {
  if (fs.existsSync(outDir) && fs.readdirSync(outDir).length > 0) throw new Error(`Output folder is not empty: ${outDir}`);
  const selected = selectStdlibFiles(stdlibDir, selection);
  let bytes = 0;
  for (const rel of selected) {
    const target = path.join(outDir, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(stdlibDir, rel), target);
    bytes += fs.statSync(target).size;
  }
  return { files: selected.length, bytes };
}
