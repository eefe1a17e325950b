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

  it("reads MBPP's own records: prompt from the text and first test, test_list, setup, the reference code, any task_id", async () => {
    const mbpp = {
      task_id: 'he/7',
      text: 'Write a function to add two numbers.',
      code: 'def add(x, y):\r\n    return x + y',
      test_list: ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'],
      test_setup_code: 'import math',
      challenge_test_list: [],
      source: 'extra fields are kept out of the way',
    };
    const f = write([
      JSON.stringify(mbpp),
      JSON.stringify({ task_id: 1001, text: 'Reverse a string.', code: '  ', test_list: ["assert rev('ab') == 'ba'"], test_setup_code: '', group: 'strings' }),
      JSON.stringify({ prompt: 'p', tests: ['assert 1'], group: 'pipeline' }),
    ]);
    expect(await readEvalProblems(f)).toEqual([
      {
        taskId: 'he/7',
        prompt: '# Write a function to add two numbers.\n# Your code should pass this test:\n# assert add(1, 2) == 3\n',
        tests: ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'],
        setup: 'import math\n',
        code: 'def add(x, y):\n    return x + y\n', // normalised (libs/data's problemParts)
      },
      { taskId: 1001, prompt: "# Reverse a string.\n# Your code should pass this test:\n# assert rev('ab') == 'ba'\n", tests: ["assert rev('ab') == 'ba'"], group: 'strings' },
      { taskId: 'line 3', prompt: 'p', tests: ['assert 1'], group: 'pipeline' },
    ]);
    const [withoutCode, blankCode] = await readEvalProblems(f);
    expect('code' in blankCode).toBe(false);
    expect(withoutCode.group).toBeUndefined();
  });

  it('a record of neither shape, or an incomplete one, is a DataError naming file:line and the missing field', async () => {
    const good = JSON.stringify({ prompt: 'p', tests: ['assert 1'] });
    const noTests = write([good, JSON.stringify({ task_id: 5, text: 'Add.', code: 'def add(a, b): return a + b' })]);
    await expect(readEvalProblems(noTests)).rejects.toThrow(`${noTests}:2: field "test_list": missing (expected array)`);
    await expect(readEvalProblems(noTests)).rejects.toMatchObject({ name: 'DataError', file: noTests, line: 2, field: 'test_list' });
    const noTaskId = write([good, good, JSON.stringify({ text: 'Add.', test_list: ['assert add(1, 2) == 3'] })]);
    await expect(readEvalProblems(noTaskId)).rejects.toThrow(`${noTaskId}:3: field "task_id": missing (expected number or string)`);
    const neither = write([JSON.stringify({ question: 'what?', tests: ['assert 1'] })]);
    await expect(readEvalProblems(neither)).rejects.toThrow(`${neither}:1: field "prompt": missing (expected string)`);
    const badGroup = write([JSON.stringify({ prompt: 'p', tests: ['assert 1'], group: 3 })]);
    await expect(readEvalProblems(badGroup)).rejects.toThrow(`${badGroup}:1: field "group": expected string, received number`);
  });

  it('a bad line is an error naming file, line and field', async () => {
    const f = write([JSON.stringify({ prompt: 'p', tests: ['assert 1'] }), JSON.stringify({ prompt: 'p', tests: [] })]);
    await expect(readEvalProblems(f)).rejects.toThrow(`${f}:2: field "tests": must list at least one test`);
    const g = write([JSON.stringify({ prompt: 'p', tests: ['assert 1'] }), '{"prompt": "p", tests']);
    await expect(readEvalProblems(g)).rejects.toThrow(new RegExp(`^${g}:2: invalid JSON`));
    await expect(readEvalProblems(path.join(tmp, 'missing.jsonl'))).rejects.toThrow(`${path.join(tmp, 'missing.jsonl')}: file not found`);
  });
});
