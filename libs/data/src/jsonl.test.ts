import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { z } from 'zod';
import { DataError } from './data-error';
import { readJsonl, readJsonlRecords, writeJsonl } from './jsonl';

const Pair = z.looseObject({ prompt: z.string(), response: z.string() });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'data-jsonl-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const f = join(dir, name);
  writeFileSync(f, content);
  return f;
}

async function readError(p: Promise<unknown>): Promise<DataError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DataError)) throw new Error(`expected a DataError, got ${String(err)}`);
  return err;
}

const good = (i: number) => JSON.stringify({ prompt: `p${i}`, response: `r${i}` });

describe('readJsonl', () => {
  test('skips blank, whitespace-only and trailing lines, handles CRLF and a BOM, keeps 1-based line numbers', async () => {
    const f = file('a.jsonl', '\uFEFF' + good(1) + '\r\n\r\n  \t\n' + good(2) + '\n' + good(3) + '\r\n\n\n');
    const records = await readJsonlRecords(f, Pair);
    expect(records).toEqual([
      { line: 1, value: { prompt: 'p1', response: 'r1' } },
      { line: 4, value: { prompt: 'p2', response: 'r2' } },
      { line: 5, value: { prompt: 'p3', response: 'r3' } },
    ]);
    expect(await readJsonl(f, Pair)).toEqual(records.map((r) => r.value));
  });

  test('a last line without a newline is read', async () => {
    const f = file('a.jsonl', good(1) + '\n' + good(2));
    expect((await readJsonl(f, Pair)).map((r) => r.prompt)).toEqual(['p1', 'p2']);
  });

  test('a bad field names file, 1-based line and field', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => good(i + 1));
    lines[16] = JSON.stringify({ prompt: 'p', response: 42 });
    const f = file('sft.jsonl', lines.join('\n'));
    const err = await readError(readJsonl(f, Pair));
    expect(err.message).toBe(`${f}:17: field "response": expected string, received number`);
    expect(err.name).toBe('DataError');
    expect([err.file, err.line, err.field, err.badLines]).toEqual([f, 17, 'response', 1]);
  });

  test('invalid JSON names the line and keeps the parser message', async () => {
    const f = file('a.jsonl', [good(1), good(2), good(3), good(4), '{"prompt": "x",'].join('\n'));
    const err = await readError(readJsonl(f, Pair));
    expect(err.message).toMatch(new RegExp(`^${escape(f)}:5: invalid JSON \\(.+\\)$`));
    expect([err.line, err.field]).toEqual([5, undefined]);
  });

  test('missing field and non-object lines', async () => {
    const f = file('a.jsonl', JSON.stringify({ prompt: 'x' }) + '\n');
    expect((await readError(readJsonl(f, Pair))).message).toBe(`${f}:1: field "response": missing (expected string)`);
    const g = file('b.jsonl', '[1, 2]\n');
    expect((await readError(readJsonl(g, Pair))).message).toBe(`${g}:1: expected a JSON object, received array`);
    const h = file('c.jsonl', 'null\n');
    expect((await readError(readJsonl(h, Pair))).message).toBe(`${h}:1: expected a JSON object, received null`);
  });

  test('collects the problems of all bad lines into one error, with the count of bad lines', async () => {
    const f = file(
      'a.jsonl',
      [
        good(1),
        JSON.stringify({ prompt: 1, response: 2 }), // two problems on one line
        good(3),
        JSON.stringify({ prompt: 'x', response: null }),
      ].join('\n'),
    );
    const err = await readError(readJsonl(f, Pair, { kind: 'sft' }));
    expect(err.message).toBe(
      [
        `${f}: 2 bad lines (of 4) in sft data:`,
        `${f}:2: field "prompt": expected string, received number`,
        `${f}:2: field "response": expected string, received number`,
        `${f}:4: field "response": expected string, received null`,
      ].join('\n'),
    );
    expect(err.badLines).toBe(2);
    expect(err.problems.map((p) => [p.line, p.field])).toEqual([
      [2, 'prompt'],
      [2, 'response'],
      [4, 'response'],
    ]);
    expect([err.line, err.field]).toEqual([2, 'prompt']);
  });

  test('lists at most maxErrors problems but counts every bad line', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => (i % 2 ? '{oops' : JSON.stringify({ prompt: i, response: 'r' })));
    const f = file('a.jsonl', lines.join('\n'));
    const err = await readError(readJsonl(f, Pair));
    expect(err.badLines).toBe(30);
    expect(err.problems).toHaveLength(10); // default cap
    const msg = err.message.split('\n');
    expect(msg[0]).toBe(`${f}: 30 bad lines (of 30):`);
    expect(msg[1]).toBe(`${f}:1: field "prompt": expected string, received number`);
    expect(msg[2]).toMatch(new RegExp(`^${escape(f)}:2: invalid JSON`));
    expect(msg.at(-1)).toBe('... and 20 more problems');
    expect(msg).toHaveLength(12);

    const capped = await readError(readJsonl(f, Pair, { maxErrors: 3 }));
    expect(capped.problems.map((p) => p.line)).toEqual([1, 2, 3]);
    expect(capped.message.split('\n').at(-1)).toBe('... and 27 more problems');
  });

  test('invalid UTF-8 is an error, not silently replaced', async () => {
    const f = file('a.jsonl', Buffer.concat([Buffer.from(good(1) + '\n{"prompt":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","response":"r"}\n')]));
    expect((await readError(readJsonl(f, Pair))).message).toBe(`${f}:2: invalid UTF-8`);
  });

  test('empty file, blank-only file, missing file and directory give clear errors', async () => {
    const empty = file('empty.jsonl', '');
    expect((await readError(readJsonl(empty, Pair))).message).toBe(`${empty}: no records (the file is empty or has only blank lines)`);
    const blank = file('blank.jsonl', '\uFEFF\r\n  \n\n');
    expect((await readError(readJsonl(blank, Pair, { kind: 'sft' }))).message).toBe(
      `${blank}: no sft records (the file is empty or has only blank lines)`,
    );
    const missing = join(dir, 'nope.jsonl');
    const err = await readError(readJsonl(missing, Pair));
    expect(err.message).toBe(`${missing}: file not found`);
    expect([err.file, err.line]).toEqual([missing, undefined]);
    expect((await readError(readJsonl(dir, Pair))).message).toBe(`${dir}: is a directory, expected a JSONL file`);
  });

  test('lines longer than the 1 MiB read chunk and multi-byte characters across chunk edges', async () => {
    const long = 'é🙂x'.repeat(400_000); // ~3.6 MB of UTF-8: spans several chunks, splits characters at chunk edges
    const many = Array.from({ length: 30_000 }, (_, i) => good(i)); // ~1 MB of short lines: a line straddles each edge
    const f = file('big.jsonl', [JSON.stringify({ prompt: 'long', response: long }), ...many, JSON.stringify({ prompt: long, response: 'end' })].join('\n'));
    const records = await readJsonlRecords(f, Pair);
    expect(records).toHaveLength(30_002);
    expect(records[0].value.response).toBe(long);
    expect(records[30_001]).toEqual({ line: 30_002, value: { prompt: long, response: 'end' } });
    expect(records.slice(1, -1)).toEqual(many.map((_, i) => ({ line: i + 2, value: { prompt: `p${i}`, response: `r${i}` } })));
  });
});

describe('writeJsonl', () => {
  test('writes one object per line with a final newline', async () => {
    const f = join(dir, 'out.jsonl');
    await writeJsonl(f, [{ a: 1 }, { b: 'x\ny' }]);
    expect(readFileSync(f, 'utf8')).toBe('{"a":1}\n{"b":"x\\ny"}\n');
  });

  test('round trip keeps extra fields, nested values and awkward strings', async () => {
    const records = [
      { prompt: 'def f():\r\n\treturn 1', response: 'ok \u2028 \u2029 "quoted" \\ é🙂', extra: { nested: [1, null, true] } },
      { prompt: '', response: 'x', id: 7, tags: ['a', 'b'] },
    ];
    const f = join(dir, 'sub', 'dir', 'out.jsonl'); // parent directories are created
    await writeJsonl(f, records);
    expect(await readJsonl(f, Pair)).toEqual(records);
  });

  test('more records than one write chunk', async () => {
    const records = Array.from({ length: 2_501 }, (_, i) => ({ prompt: `p${i}`, response: `r${i}` }));
    const f = join(dir, 'out.jsonl');
    await writeJsonl(f, records);
    expect(await readJsonl(f, Pair)).toEqual(records);
    expect(readFileSync(f, 'utf8').split('\n')).toHaveLength(2_502); // 2501 lines + the final ""
  });

  test('overwrites an existing file and leaves no temp file behind', async () => {
    const f = file('out.jsonl', 'old contents\n');
    await writeJsonl(f, [{ prompt: 'p', response: 'r' }]);
    expect(readFileSync(f, 'utf8')).toBe('{"prompt":"p","response":"r"}\n');
    expect(readdirSync(dir)).toEqual(['out.jsonl']);
  });

  test('an empty array writes an empty file', async () => {
    const f = join(dir, 'out.jsonl');
    await writeJsonl(f, []);
    expect(readFileSync(f, 'utf8')).toBe('');
  });

  test('rejects values JSON would silently change, naming line and field, and keeps the old file', async () => {
    const f = file('out.jsonl', 'old\n');
    const err = await readError(writeJsonl(f, [{ score: 1 }, { prompt: 'p', meta: { scores: [1, NaN] } }]));
    expect(err.message).toBe(`${f}:2: field "meta.scores[1]": NaN cannot be written as JSON`);
    expect([err.line, err.field]).toEqual([2, 'meta.scores[1]']);
    expect((await readError(writeJsonl(f, [{ score: -Infinity }]))).message).toBe(`${f}:1: field "score": -Infinity cannot be written as JSON`);
    expect((await readError(writeJsonl(f, [{ a: 1 }, [1, 2]]))).message).toBe(`${f}:2: expected a JSON object, received array`);
    expect(readFileSync(f, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['out.jsonl']);
  });

  test('a failed rename removes the temp file', async () => {
    const target = join(dir, 'taken');
    mkdirSync(join(target, 'child'), { recursive: true }); // renaming a file over a non-empty directory fails
    await expect(writeJsonl(target, [{ a: 1 }])).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
