import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readEvalProblems } from './data';

const FIXTURE = path.join(__dirname, 'fixtures/tiny_eval.jsonl');

describe('readEvalProblems', () => {
  let tmp: string;
  beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-data-'))));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (lines: string[]) => {
    const f = path.join(tmp, `d${Math.random().toString(36).slice(2)}.jsonl`);
    fs.writeFileSync(f, lines.join('\n') + '\n');
    return f;
  };

  it('reads problems in file order; --limit keeps the first N', async () => {
    const all = await readEvalProblems(FIXTURE);
    expect(all.map((p) => p.taskId)).toEqual([1, 2, 3]);
    expect(all[1]).toEqual({ taskId: 2, prompt: expect.stringContaining('square root'), tests: ['assert root(4) == 2'], setup: 'import math' });
    expect((await readEvalProblems(FIXTURE, 2)).map((p) => p.taskId)).toEqual([1, 2]);
    expect((await readEvalProblems(FIXTURE, 10)).length).toBe(3);
  });

  it('test_setup_code is read as setup; a missing task_id becomes the line number', async () => {
    const f = write(['', JSON.stringify({ prompt: 'p', tests: ['assert 1'], test_setup_code: 'import os' })]);
    expect(await readEvalProblems(f)).toEqual([{ taskId: 'line 2', prompt: 'p', tests: ['assert 1'], setup: 'import os' }]);
  });

  it('a bad line is an error naming file, line and field', async () => {
    const f = write([JSON.stringify({ prompt: 'p', tests: ['assert 1'] }), JSON.stringify({ prompt: 'p', tests: [] })]);
    await expect(readEvalProblems(f)).rejects.toThrow(`${f}:2: field "tests": must list at least one test`);
    const g = write([JSON.stringify({ prompt: 'p', tests: ['assert 1'] }), '{"prompt": "p", tests']);
    await expect(readEvalProblems(g)).rejects.toThrow(new RegExp(`^${g}:2: invalid JSON`));
    await expect(readEvalProblems(path.join(tmp, 'missing.jsonl'))).rejects.toThrow(`${path.join(tmp, 'missing.jsonl')}: file not found`);
  });
});
