// Reading and writing JSONL datasets.
//
// jsonl-parse-stringify parses a whole document at once (split on "\n", JSON.parse each piece) and throws the
// first bare SyntaxError, with no line number; it also chokes on "\r" or whitespace-only lines. So we split
// lines ourselves (bytes, streamed, so large files and exact line numbers both work) and hand it one line at a
// time; a one-line document parses to exactly one value. Writing uses its stringify on chunks of records.
import { randomBytes } from 'crypto';
import { promises as fs } from 'fs';
import type { FileHandle } from 'fs/promises';
import * as path from 'path';
import JSONL from 'jsonl-parse-stringify';
import type { z } from 'zod';
import { DataError, formatProblem, type DataProblem } from './data-error';
import { formatFieldPath, issueToProblem } from './zod-issues';

export interface ReadJsonlOptions {
  /** Dataset kind for messages, e.g. "sft" -> "no sft records". */
  kind?: string;
  /** How many problems one DataError lists (default 10); bad lines are counted over the whole file regardless. */
  maxErrors?: number;
}

/** A validated record and the 1-based line it came from (for consumers that report their own errors later). */
export interface JsonlRecord<T> {
  line: number;
  value: T;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function openDataFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT' ? 'file not found'
      : code === 'EACCES' ? 'permission denied'
      : `cannot open (${(err as Error).message})`;
    throw DataError.of({ file, message });
  }
  if ((await handle.stat()).isDirectory()) {
    await handle.close();
    throw DataError.of({ file, message: 'is a directory, expected a JSONL file' });
  }
  return handle;
}

/** Each line's bytes without its "\n" (a last line without "\n" included). The stream closes the handle. */
async function* rawLines(handle: FileHandle): AsyncGenerator<Buffer> {
  let carry: Buffer[] = []; // pieces of a line that spans chunks; joined once, so long lines stay linear
  for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      carry.push(chunk.subarray(start, nl));
      yield carry.length === 1 ? carry[0] : Buffer.concat(carry);
      carry = [];
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0) yield Buffer.concat(carry);
}

/**
 * Read and validate a JSONL file. Blank lines (anywhere), CRLF endings and a UTF-8 BOM are accepted.
 * Throws one DataError listing the first `maxErrors` problems as `file:line: field "x": ...` when any line is bad,
 * and a DataError when the file is missing or holds no records.
 */
export async function readJsonlRecords<T>(
  file: string,
  schema: z.ZodType<T>,
  options: ReadJsonlOptions = {},
): Promise<JsonlRecord<T>[]> {
  const maxErrors = options.maxErrors ?? 10;
  if (!Number.isInteger(maxErrors) || maxErrors < 1) throw new Error(`maxErrors must be a positive integer, got ${maxErrors}`);
  const handle = await openDataFile(file);
  // fatal: invalid UTF-8 is an error, not silently replaced by U+FFFD; ignoreBOM: keep it so we strip it on line 1 only.
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  const records: JsonlRecord<T>[] = [];
  const problems: DataProblem[] = [];
  let totalProblems = 0;
  let badLines = 0;
  let dataLines = 0;
  const report = (lineProblems: DataProblem[]) => {
    badLines++;
    totalProblems += lineProblems.length;
    problems.push(...lineProblems.slice(0, maxErrors - problems.length));
  };

  let line = 0;
  // A CRLF ending leaves "\r" at the end of the line: JSON whitespace, so parsing and the blank check accept it.
  for await (const bytes of rawLines(handle)) {
    line++;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      dataLines++;
      report([{ file, line, message: 'invalid UTF-8' }]);
      continue;
    }
    if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
    if (text.trim() === '') continue;
    dataLines++;

    let raw: unknown;
    try {
      [raw] = JSONL.parse<unknown>(text);
    } catch (err) {
      report([{ file, line, message: `invalid JSON (${(err as Error).message})` }]);
      continue;
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) records.push({ line, value: parsed.data });
    else report(parsed.error.issues.map((issue) => issueToProblem(issue, raw, file, line)));
  }

  if (totalProblems === 1) throw new DataError(formatProblem(problems[0]), problems, badLines);
  if (totalProblems > 1) {
    const header = `${file}: ${plural(badLines, 'bad line')} (of ${dataLines})${options.kind ? ` in ${options.kind} data` : ''}:`;
    const more = totalProblems - problems.length;
    const lines = [header, ...problems.map(formatProblem)];
    if (more > 0) lines.push(`... and ${plural(more, 'more problem')}`);
    throw new DataError(lines.join('\n'), problems, badLines);
  }
  if (records.length === 0) {
    const what = options.kind ? `${options.kind} records` : 'records';
    throw DataError.of({ file, message: `no ${what} (the file is empty or has only blank lines)` });
  }
  return records;
}

/** readJsonlRecords without the line numbers: the plain validated records, in file order. */
export async function readJsonl<T>(file: string, schema: z.ZodType<T>, options: ReadJsonlOptions = {}): Promise<T[]> {
  return (await readJsonlRecords(file, schema, options)).map((r) => r.value);
}

/** Path and description of the first value JSON cannot represent faithfully (NaN/Infinity become null, bigint throws). */
function findUnwritable(value: unknown, at: PropertyKey[] = []): { path: PropertyKey[]; what: string } | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : { path: at, what: String(value) };
  if (typeof value === 'bigint') return { path: at, what: 'bigint' };
  if (value === null || typeof value !== 'object') return null;
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, v] of entries) {
    const found = findUnwritable(v, [...at, key]);
    if (found) return found;
  }
  return null;
}

/**
 * Write records as JSONL (one JSON object per line, "\n"-terminated), atomically: the data goes to a temp file in
 * the same directory which is fsynced and renamed over `file`, so readers never see a half-written dataset.
 * Parent directories are created. Records that JSON would silently alter (NaN, Infinity) are rejected with a
 * DataError naming the line they would have had. An empty array writes an empty file.
 */
export async function writeJsonl(file: string, records: readonly object[]): Promise<void> {
  records.forEach((record, i) => {
    const line = i + 1;
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      const got = record === null ? 'null' : Array.isArray(record) ? 'array' : typeof record;
      throw DataError.of({ file, line, message: `expected a JSON object, received ${got}` });
    }
    const bad = findUnwritable(record);
    if (bad) throw DataError.of({ file, line, field: formatFieldPath(bad.path), message: `${bad.what} cannot be written as JSON` });
  });

  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.open(tmp, 'wx');
  try {
    const chunkSize = 1000; // bounds the size of each string handed to stringify/write
    for (let i = 0; i < records.length; i += chunkSize) {
      await handle.write(JSONL.stringify(records.slice(i, i + chunkSize)) + '\n');
    }
    await handle.sync();
    await handle.close();
    await fs.rename(tmp, file);
  } catch (err) {
    await handle.close().catch(() => undefined); // may already be closed
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
