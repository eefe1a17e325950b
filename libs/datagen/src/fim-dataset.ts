// Fill-in-the-middle examples {prefix, suffix, middle} cut from real Python files, for the simulated user.
//
// Split: by file, with the corpus' held-out rule (isHeldOut: sha256 of the relative path), so a test example never
// shares a file with a train example, and the shipped corpus' held-out files stay held out here too.
//
// Choosing the middle (per file, `perFile` examples at distinct lines, seeded by seed + path):
//   candidate lines: not blank, not a comment-only line, at most 160 characters, after the first line
//   "rest-of-line" (half of the examples): the cursor sits inside the line, at the start of its code or right after
//       a non-identifier character (never inside a name); middle = the rest of that line (without its newline).
//   "lines" (the other half): the cursor sits at the start of the line; middle = 1 to 3 whole lines (at most the
//       candidate line's block: lines until a blank line), each with its indentation and newline.
//   prefix = the text before the cursor, suffix = the text after the middle, trimmed to maxPrefixChars /
//   maxSuffixChars at line boundaries (the parts nearest the cursor are kept). CRLF becomes LF.
import * as fs from 'fs';
import * as path from 'path';
import { UsageError } from '@rlhf-code/cli';
import { corpusDirs, dataRandom, isHeldOut, listFiles, writeJsonl } from '@rlhf-code/data';
import type { PrepFimSettings } from './settings';

export type FimKind = 'rest-of-line' | 'lines';

export interface FimExample {
  prefix: string;
  suffix: string;
  middle: string;
  /** Path of the source file relative to the source folder ("/" separators). */
  path: string;
  split: 'train' | 'test';
  kind: FimKind;
}

export interface FimBuildOptions {
  /** Examples per file (fewer when the file has fewer candidate lines). */
  perFile?: number;
  seed?: number | string;
  maxPrefixChars?: number;
  maxSuffixChars?: number;
}

const IDENT = /[A-Za-z0-9_]/;

function isCandidate(line: string): boolean {
  const t = line.trim();
  return t !== '' && !t.startsWith('#') && line.length <= 160;
}

/** Keep the last `max` characters of `text`, starting at a line start (the whole last line if it alone is longer). */
function keepTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.indexOf('\n', text.length - max);
  return cut < 0 ? text.slice(text.length - max) : text.slice(cut + 1);
}

/** Keep the first `max` characters of `text`, ending at a line end. */
function keepHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  return cut <= 0 ? text.slice(0, max) : text.slice(0, cut + 1);
}

/** The FIM examples of one file (see the rule at the top of this file). */
export function fimExamplesFromText(relPath: string, source: string, opts: FimBuildOptions = {}): FimExample[] {
  const perFile = opts.perFile ?? 4;
  const maxPrefix = opts.maxPrefixChars ?? 3000;
  const maxSuffix = opts.maxSuffixChars ?? 1500;
  const text = source.replace(/\r\n/g, '\n');
  const lines = text.split('\n');
  const starts: number[] = []; // offset of each line
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const candidates = lines.map((l, i) => i).filter((i) => i > 0 && isCandidate(lines[i]));
  const random = dataRandom(`${opts.seed ?? 0}:${relPath}`);
  const split = isHeldOut(relPath) ? 'test' : 'train';
  const out: FimExample[] = [];
  // Pick distinct candidate lines in seeded random order.
  const order = candidates.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const li of order.slice(0, perFile)) {
    const line = lines[li];
    const kind: FimKind = random() < 0.5 ? 'rest-of-line' : 'lines';
    let cursor: number;
    let end: number; // offset just past the middle
    if (kind === 'rest-of-line') {
      const indent = line.length - line.trimStart().length;
      const content = line.trimEnd().length;
      const cuts = [indent];
      for (let k = indent + 1; k < content; k++) if (!IDENT.test(line[k - 1]) || !IDENT.test(line[k])) cuts.push(k);
      const k = cuts[Math.floor(random() * cuts.length)];
      cursor = starts[li] + k;
      end = starts[li] + line.length;
    } else {
      let n = 1 + Math.floor(random() * 3);
      let last = li;
      while (n > 1 && last + 1 < lines.length && lines[last + 1].trim() !== '') {
        last++;
        n--;
      }
      cursor = starts[li];
      end = Math.min(text.length, starts[last] + lines[last].length + 1);
    }
    const middle = text.slice(cursor, end);
    if (middle.trim() === '') continue;
    out.push({
      prefix: keepTail(text.slice(0, cursor), maxPrefix),
      suffix: keepHead(text.slice(end), maxSuffix),
      middle,
      path: relPath,
      split,
      kind,
    });
  }
  return out;
}

/**
 * Examples from every .py file under `srcDir` (sorted by path, so the output is reproducible). Several folders: each
 * is read in turn, and its paths start with the folder's name so they stay distinct.
 */
export function buildFimDataset(srcDir: string | readonly string[], opts: FimBuildOptions = {}): { examples: FimExample[]; files: { train: number; test: number } } {
  const dirs = typeof srcDir === 'string' ? [srcDir] : srcDir;
  if (dirs.length === 0) throw new Error('--src: no folder given');
  const examples: FimExample[] = [];
  const counts = { train: 0, test: 0 };
  for (const dir of dirs) {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`--src: ${dir} is not a folder`);
    const files = listFiles(dir).filter((f) => f.endsWith('.py'));
    if (files.length === 0) throw new Error(`--src: no .py files under ${dir}`);
    const name = path.basename(path.resolve(dir));
    for (const rel of files) {
      const data = fs.readFileSync(path.join(dir, rel));
      let source: string;
      try {
        source = new TextDecoder('utf-8', { fatal: true }).decode(data);
      } catch {
        process.stderr.write(`[prep-fim] skipping ${path.join(dir, rel)}: not valid UTF-8\n`);
        continue;
      }
      counts[isHeldOut(rel) ? 'test' : 'train'] += 1;
      const found = fimExamplesFromText(rel, source, opts); // the split follows the path inside its own folder
      examples.push(...(dirs.length > 1 ? found.map((e) => ({ ...e, path: `${name}/${e.path}` })) : found));
    }
  }
  return { examples, files: counts };
}

/** A FIM example as a fill-in-the-middle record of `sft train`: prompt = the text before the cursor, response = the middle. */
export interface FimSftRecord {
  prompt: string;
  suffix: string;
  response: string;
  path: string;
  kind: FimKind;
}

/** The train-split examples as `sft train` records (test-split examples are never training data). */
export function fimSftRecords(examples: readonly FimExample[]): FimSftRecord[] {
  return examples.filter((e) => e.split === 'train').map((e) => ({ prompt: e.prefix, suffix: e.suffix, response: e.middle, path: e.path, kind: e.kind }));
}

/** `online prep-fim`: the examples of the --src folders written to --out (with --format sft, the train split as sft records). */
export async function runPrepFim(f: PrepFimSettings): Promise<void> {
  let built;
  try {
    built = buildFimDataset(corpusDirs(f.src), { perFile: f.perFile, seed: f.seed, maxPrefixChars: f.maxPrefixChars, maxSuffixChars: f.maxSuffixChars });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { examples, files } = built;
  const test = examples.filter((e) => e.split === 'test').length;
  const rows = f.format === 'sft' ? fimSftRecords(examples) : examples;
  await writeJsonl(f.out, rows);
  process.stdout.write(
    `${f.out}: ${examples.length} examples (${examples.length - test} train from ${files.train} files, ${test} test from ${files.test} files)` +
      (f.format === 'sft' ? `; wrote the ${rows.length} train examples as sft records\n` : '\n'),
  );
}
