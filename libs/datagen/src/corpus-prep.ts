// `prep corpus`: the pretraining corpus as a token cache. The Debian packages of data/corpus/manifest.json are fetched
// (apt-get download, checked against their pinned sha256) and unpacked; their files and the training files of the
// vendored standard library go through libs/data's CorpusFilter (size, UTF-8, generated, vendored, exact and near
// duplicates, near-duplicates of held-out material, per-package caps); what is kept is tokenized and written with
// TokenCacheWriter. Held-out material: the manifest's reserved packages, the stdlib's held-out files, MBPP's test split
// and the suite's dev and test problems. The split of a Debian file is isHeldOut(<package>/<path>); the stdlib's
// training files all go to `train` (their held-out files are the held-out material above).
import * as fs from 'fs';
import * as path from 'path';
import { isUtf8 } from 'buffer';
import { markdownTable, stagedProgress } from '@rlhf-code/cli';
import {
  CORPUS_FILTERS,
  CorpusFilter,
  corpusDirs,
  ensureDeb,
  extractDeb,
  fileSha256,
  isHeldOut,
  listFiles,
  mbppSplit,
  readCorpus,
  readCorpusManifest,
  readProblems,
  repinManifest,
  TokenCacheWriter,
  tokenDtypeFor,
  tokenizerSha256,
  writeCorpusManifest,
  writeJsonl,
  type CorpusFilterResult,
  type CorpusManifest,
  type Tally,
} from '@rlhf-code/data';
import { loadTokenizer } from '@rlhf-code/tokenizer';
import type { PrepCorpusSettings } from './settings';

/** The package name of the vendored standard library's files in the cache. */
export const STDLIB_PACKAGE = 'cpython-stdlib';

const log = (msg: string) => process.stderr.write(`prep corpus: ${msg}\n`);
const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
const millions = (n: number) => (n / 1e6).toFixed(2) + 'M';

/** Fetches and unpacks every package of the manifest; returns each package's folder. */
function unpackPackages(s: PrepCorpusSettings, m: CorpusManifest): Map<string, string> {
  const roots = new Map<string, string>();
  const all = [...m.packages, ...m.reserved];
  all.forEach((p, i) => {
    const deb = ensureDeb(p, s.debs);
    const { root, extracted } = extractDeb(p, deb.file, s.extracted);
    log(`[${i + 1}/${all.length}] ${p.package} ${p.version}: ${deb.downloaded ? 'downloaded' : '.deb present'}${extracted ? ', unpacked' : ''}`);
    roots.set(p.package, root);
  });
  return roots;
}

/** The held-out material into `filter`: reserved packages' .py files, the stdlib's held-out files, MBPP test, the problem files. */
async function addHeldOut(filter: CorpusFilter, s: PrepCorpusSettings, m: CorpusManifest, roots: Map<string, string>): Promise<void> {
  const counts: string[] = [];
  for (const p of m.reserved) {
    const root = roots.get(p.package)!;
    let n = 0;
    for (const rel of listFiles(root).filter((f) => f.endsWith('.py'))) {
      const data = fs.readFileSync(path.join(root, rel));
      if (!isUtf8(data)) continue;
      filter.addHeldOut(`${p.package}/${rel}`, data.toString('utf8'));
      n++;
    }
    counts.push(`${p.package} ${n}`);
  }
  for (const dir of corpusDirs(s.stdlib)) {
    const { test } = readCorpus(dir);
    for (const f of test) filter.addHeldOut(`${STDLIB_PACKAGE}/${path.basename(dir)}/${f.path}`, f.text);
    counts.push(`${dir} ${test.length}`);
  }
  const mbppTest = (await readProblems(s.mbpp)).filter((t) => typeof t.task_id === 'number' && mbppSplit(t.task_id) === 'test');
  for (const t of mbppTest) filter.addHeldOut(`mbpp/${t.task_id}`, t.code?.trim() ? t.code : t.text);
  counts.push(`${s.mbpp} test ${mbppTest.length}`);
  for (const file of s.heldOutProblems) {
    const problems = await readProblems(file);
    for (const p of problems) filter.addHeldOut(`${file}#${p.task_id}`, p.code?.trim() ? p.code : p.text);
    counts.push(`${file} ${problems.length}`);
  }
  log(`held-out material: ${counts.join(', ')}`);
}

/** Every candidate file into `filter`, in a fixed order: the stdlib's training files first, then the packages by name. */
function addFiles(filter: CorpusFilter, s: PrepCorpusSettings, m: CorpusManifest, roots: Map<string, string>): void {
  for (const dir of corpusDirs(s.stdlib)) {
    for (const f of readCorpus(dir).train) {
      const file = path.join(dir, f.path);
      filter.add({ package: STDLIB_PACKAGE, path: `${path.basename(dir)}/${f.path}`, bytes: fs.statSync(file).size, read: () => fs.readFileSync(file) });
    }
  }
  const packages = [...m.packages].sort((a, b) => (a.package < b.package ? -1 : 1));
  for (const p of packages) {
    const root = roots.get(p.package)!;
    const files = listFiles(root);
    for (const rel of files) {
      const file = path.join(root, rel);
      filter.add({ package: p.package, path: rel, bytes: fs.statSync(file).size, read: () => fs.readFileSync(file), stripStrings: p.strip_strings });
    }
    log(`${p.package}: ${files.length} files (${files.filter((f) => f.endsWith('.py')).length} .py) read`);
  }
}

export interface CorpusTableRow {
  package: string;
  version: string;
  licence: string;
  input: Tally;
  kept: Tally & { tokens: number };
  /** Bytes dropped from kept files' text by strip_strings. */
  stripped: Tally;
  removed: Partial<Record<string, Tally>>;
}

/** The corpus table as markdown: per package what went in and what was kept, then per filter what it removed. */
export function formatCorpusTable(rows: readonly CorpusTableRow[], filters: CorpusFilterResult['filters'], splits: Record<string, { tokens: number; docs: number }>): string {
  const sum = (f: (r: CorpusTableRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  const perPackage = markdownTable(
    ['package', 'version', 'licence', 'files in', 'MB in', 'files kept', 'MB kept', 'tokens kept', 'share'],
    [
      ...rows.map((r) => [r.package, r.version, r.licence, String(r.input.files), mb(r.input.bytes), String(r.kept.files), mb(r.kept.bytes), millions(r.kept.tokens), `${((100 * r.kept.tokens) / Math.max(1, sum((x) => x.kept.tokens))).toFixed(1)}%`]),
      [`**${rows.length} sources**`, '', '', String(sum((r) => r.input.files)), mb(sum((r) => r.input.bytes)), String(sum((r) => r.kept.files)), mb(sum((r) => r.kept.bytes)), millions(sum((r) => r.kept.tokens)), '100%'],
    ],
    { align: ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right'] }, // package, version and licence (text) to the left, the figures to the right
  );
  const stripped = sum((r) => r.stripped.bytes);
  const perFilter = markdownTable(
    ['filter (in order)', 'files removed', 'MB removed'],
    [
      ...CORPUS_FILTERS.map((f) => [f, String(filters[f].files), mb(filters[f].bytes)]),
      ...(stripped > 0 ? [['(strip_strings: text cut from kept files)', String(sum((r) => r.stripped.files)), mb(stripped)]] : []),
    ],
  );
  const splitLine = Object.entries(splits)
    .map(([name, x]) => `${name} ${millions(x.tokens)} tokens in ${x.docs} files`)
    .join(', ');
  return `${perPackage}\n\n${perFilter}\n\nsplits: ${splitLine}`;
}

/** Builds the token cache (or, with --repin, rewrites the manifest); prints progress on stderr and the corpus table on stdout. */
export async function runPrepCorpus(s: PrepCorpusSettings): Promise<void> {
  const t0 = Date.now();
  const manifest = readCorpusManifest(s.manifest);
  if (s.repin) {
    const { manifest: next, changed } = repinManifest(manifest);
    writeCorpusManifest(s.manifest, next);
    const what = changed.map((c) => `${c.package} ${c.from} -> ${c.to}`).join('\n  ');
    process.stdout.write(`prep corpus: ${s.manifest} re-pinned, ${changed.length} of ${manifest.packages.length + manifest.reserved.length} packages changed${what ? `:\n  ${what}\n(check their licences in ${s.extracted}/PKG/usr/share/doc/PKG/copyright after the next build)` : ''}\n`);
    return;
  }
  const roots = unpackPackages(s, manifest);
  const filter = new CorpusFilter({ maxFileBytes: s.maxFileKb * 1000, nearDuplicateJaccard: s.nearDuplicateJaccard, heldOutJaccard: s.heldOutJaccard, heldOutOverlap: s.heldOutOverlap });
  await addHeldOut(filter, s, manifest, roots);
  addFiles(filter, s, manifest, roots);

  const caps = Object.fromEntries(manifest.packages.filter((p) => p.max_mb !== undefined).map((p) => [p.package, p.max_mb! * 1e6]));
  const bars = stagedProgress((stage) => (stage === 'tokenize' ? 'files' : 'files checked'), 15);
  let result: CorpusFilterResult;
  const tokens = new Map<string, number>();
  const tok = loadTokenizer(s.tokenizer);
  const writer = new TokenCacheWriter(s.out, {
    dtype: tokenDtypeFor(tok.vocabSize),
    tokenizer: { dir: s.tokenizer, sha256: tokenizerSha256(s.tokenizer), vocab_size: tok.vocabSize },
  });
  try {
    result = filter.finish(caps, (stage, done, total) => bars.update(stage, done, total));
    result.kept.forEach((f, i) => {
      const ids = tok.encode(f.text(), { parseSpecialTokens: false });
      writer.add(f.package === STDLIB_PACKAGE || !isHeldOut(f.doc) ? 'train' : 'heldout', ids, { path: f.doc, package: f.package });
      tokens.set(f.package, (tokens.get(f.package) ?? 0) + ids.length);
      bars.update('tokenize', i + 1, result.kept.length);
    });
  } finally {
    bars.stop();
  }

  const versions = new Map(manifest.packages.map((p) => [p.package, p]));
  const rows: CorpusTableRow[] = Object.entries(result.packages).map(([name, p]) => ({
    package: name,
    version: versions.get(name)?.version ?? '(data/vendor/cpython)',
    licence: versions.get(name)?.licence ?? 'PSF-2.0',
    input: p.input,
    kept: { ...p.kept, tokens: tokens.get(name) ?? 0 },
    stripped: p.stripped,
    removed: p.removed,
  }));
  await writeJsonl(path.join(s.out, 'removed.jsonl'), result.removed);
  const { tokenizer: _t, repin: _r, ...settings } = s;
  const meta = writer.close({
    manifest: { file: s.manifest, sha256: fileSha256(s.manifest), suite: manifest.suite, architecture: manifest.architecture },
    settings,
    held_out_documents: result.heldOutDocs,
    packages: rows,
    filters: result.filters,
  });
  process.stdout.write(formatCorpusTable(rows, result.filters, meta.splits) + '\n');
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  process.stdout.write(`prep corpus: ${s.out} ${Object.entries(meta.splits).map(([n, x]) => `${n} ${x.tokens} tokens (${x.docs} files)`).join(', ')}; ${result.removed.length} files removed (${path.join(s.out, 'removed.jsonl')}) (${seconds} s)\n`);
}
