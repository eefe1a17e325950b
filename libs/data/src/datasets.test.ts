import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataError } from './data-error';
import { readFimData, readPpoData, readRmData, readSftData, readToolTasks } from './datasets';
import { writeJsonl } from './jsonl';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'data-datasets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function jsonl(name: string, records: unknown[]): string {
  const f = join(dir, name);
  writeFileSync(f, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
}

/** The message of the DataError that `read(file)` throws. */
async function errorOf(read: (f: string) => Promise<unknown>, f: string): Promise<string> {
  const err = await read(f).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DataError)) throw new Error(`expected a DataError, got ${String(err)}`);
  return err.message;
}

describe('sft', () => {
  test('valid records keep extra fields; an empty prompt is allowed', async () => {
    const records = [
      { prompt: 'Write add', response: 'def add(a, b):\n    return a + b', source: 'mbpp', meta: { id: 3 } },
      { prompt: '', response: 'import os\n' },
    ];
    expect(await readSftData(jsonl('sft.jsonl', records))).toEqual(records);
  });

  test('an empty response or a wrong type is rejected', async () => {
    const f = jsonl('sft.jsonl', [{ prompt: 'p', response: '' }]);
    expect(await errorOf(readSftData, f)).toBe(`${f}:1: field "response": must not be empty`);
    const g = jsonl('sft2.jsonl', [{ prompt: ['p'], response: 'r' }]);
    expect(await errorOf(readSftData, g)).toBe(`${g}:1: field "prompt": expected string, received array`);
  });

  test('an empty file names the dataset kind', async () => {
    const f = join(dir, 'sft.jsonl');
    writeFileSync(f, '\n');
    expect(await errorOf(readSftData, f)).toBe(`${f}: no sft records (the file is empty or has only blank lines)`);
  });
});

describe('rm', () => {
  test('valid records, empty strings allowed', async () => {
    const records = [
      { prompt: 'p', response: 'r', score: 0.75 },
      { prompt: '', response: '', score: -3, pair_id: 'x' },
    ];
    expect(await readRmData(jsonl('rm.jsonl', records))).toEqual(records);
  });

  test('optional task_id and source, as prep:rm writes them', async () => {
    const records = [
      { prompt: 'p', response: 'r', score: 1, task_id: 511, source: 'reference' },
      { prompt: 'p', response: 'r(', score: 0.1333, task_id: 511, source: 'mutant:drop_colon' },
      { prompt: 'q', response: 'r', score: 0.5, task_id: 'HumanEval/0' },
    ];
    const rows = await readRmData(jsonl('rm.jsonl', records));
    expect(rows).toEqual(records);
    expect(rows[1].source?.startsWith('mutant:')).toBe(true); // typed fields
    const f = jsonl('bad.jsonl', [
      { prompt: 'p', response: 'r', score: 1, source: 3 },
      { prompt: 'p', response: 'r', score: 1, task_id: null },
    ]);
    expect(await errorOf(readRmData, f)).toBe(
      [
        `${f}: 2 bad lines (of 2) in rm data:`,
        `${f}:1: field "source": expected string, received number`,
        `${f}:2: field "task_id": expected number or string, received null`,
      ].join('\n'),
    );
  });

  test('score must be a finite number and present', async () => {
    const f = join(dir, 'rm.jsonl');
    writeFileSync(f, ['{"prompt":"p","response":"r","score":"0.5"}', '{"prompt":"p","response":"r","score":1e400}', '{"prompt":"p","response":"r"}'].join('\n'));
    expect(await errorOf(readRmData, f)).toBe(
      [
        `${f}: 3 bad lines (of 3) in rm data:`,
        `${f}:1: field "score": expected number, received string`,
        `${f}:2: field "score": expected number, received Infinity`,
        `${f}:3: field "score": missing (expected number)`,
      ].join('\n'),
    );
  });
});

describe('ppo', () => {
  test('prompt-only and MBPP-style records', async () => {
    const records = [
      { prompt: 'Write a function to add two numbers.' },
      {
        prompt: 'Write a function to find the shared elements.',
        tests: ['assert similar_elements((3, 4), (4, 5)) == (4,)', 'assert similar_elements((1,), (2,)) == ()'],
        test_setup_code: 'import math',
        task_id: 2,
        test_list_extra: [],
      },
      { prompt: 'p', tests: ['assert f() == 1'], task_id: 'HumanEval/0', test_setup_code: '' },
    ];
    expect(await readPpoData(jsonl('ppo.jsonl', records))).toEqual(records);
  });

  test('bad tests, task_id and prompt', async () => {
    const f = jsonl('ppo.jsonl', [
      { prompt: 'p', tests: ['assert f() == 1', '   ', 3] },
      { prompt: 'p', tests: [] },
      { prompt: 'p', tests: 'assert f() == 1' },
      { prompt: '', task_id: null },
      { prompt: 'p', test_setup_code: 1 },
    ]);
    expect(await errorOf(readPpoData, f)).toBe(
      [
        `${f}: 5 bad lines (of 5) in ppo data:`,
        `${f}:1: field "tests[1]": must not be blank`,
        `${f}:1: field "tests[2]": expected string, received number`,
        `${f}:2: field "tests": must not be empty`,
        `${f}:3: field "tests": expected array, received string`,
        `${f}:4: field "prompt": must not be empty`,
        `${f}:4: field "task_id": expected number or string, received null`,
        `${f}:5: field "test_setup_code": expected string, received number`,
      ].join('\n'),
    );
  });
});

describe('fim', () => {
  test('valid records with optional path/split; empty parts allowed', async () => {
    const records = [
      { prefix: 'def f(x):\n    ', suffix: '\n', middle: 'return x', path: 'pkg/mod.py', split: 'train', repo: 'r' },
      { prefix: '', suffix: '', middle: '' },
    ];
    expect(await readFimData(jsonl('fim.jsonl', records))).toEqual(records);
  });

  test('missing middle and wrong optional types', async () => {
    const f = jsonl('fim.jsonl', [{ prefix: 'a', suffix: 'b' }, { prefix: 'a', suffix: 'b', middle: 'c', path: 3, split: false }]);
    expect(await errorOf(readFimData, f)).toBe(
      [
        `${f}: 2 bad lines (of 2) in fim data:`,
        `${f}:1: field "middle": missing (expected string)`,
        `${f}:2: field "path": expected string, received number`,
        `${f}:2: field "split": expected string, received boolean`,
      ].join('\n'),
    );
  });
});

test('read -> writeJsonl -> read is the identity, extra fields included', async () => {
  const records = [
    { prompt: 'p', tests: ['assert g(1) == 2'], task_id: 11, difficulty: 'easy', notes: { by: 'me', n: [1.5, -2] } },
    { prompt: 'q\r\nwith CRLF inside', origin: null },
  ];
  const first = await readPpoData(jsonl('a.jsonl', records));
  const copy = join(dir, 'b.jsonl');
  await writeJsonl(copy, first);
  expect(await readPpoData(copy)).toEqual(records);
});

describe('tool tasks', () => {
  test('answer or tests; calls optional; extra fields kept', async () => {
    const f = jsonl('t.jsonl', [
      { id: 'a-0', kind: 'a', question: 'What is 2 ** 10?', answer: '1024', calls: ['print(2 ** 10)'], note: 'kept' },
      { question: 'Write add.', tests: ['assert add(1, 2) == 3'] },
    ]);
    const rs = await readToolTasks(f);
    expect(rs).toHaveLength(2);
    expect(rs[0]).toMatchObject({ answer: '1024', calls: ['print(2 ** 10)'], note: 'kept' });
    expect(rs[1].tests).toEqual(['assert add(1, 2) == 3']);
  });

  test("a problem in MBPP's schema is a programming task: the statement and first test in plain text, every test judged, the reference kept", async () => {
    const suite = { task_id: 100001, text: 'Write a function add(a, b) that returns a + b.', code: 'def add(a, b):\r\n    return a + b', test_list: ['assert add(1, 2) == 3', 'assert add(0, 5) == 5'], test_setup_code: '', challenge_test_list: [], op: 'add', group: 'sft_ops', split: 'sft' };
    const { code: _code, ...withoutReference } = suite;
    const [a, b] = await readToolTasks(jsonl('suite.jsonl', [suite, { ...withoutReference, task_id: 200001, test_setup_code: 'import math' }]));
    expect(a).toEqual({
      id: 100001, task_id: 100001, kind: 'add', op: 'add', group: 'sft_ops', split: 'sft',
      question: 'Write a function add(a, b) that returns a + b.\nYour code should pass this test:\nassert add(1, 2) == 3\nReply with the function in a ```python block.',
      tests: ['assert add(1, 2) == 3', 'assert add(0, 5) == 5'],
      reference: 'def add(a, b):\n    return a + b\n',
    });
    expect(b).toMatchObject({ id: 200001, setup: 'import math\n' });
    expect(b.reference).toBeUndefined();
    const msg = await errorOf(readToolTasks, jsonl('bad.jsonl', [{ task_id: 1, text: 'Write f.', test_list: [] }]));
    expect(msg).toContain('test_list');
  });

  test('a task with neither answer nor tests, or an empty call, names the file and line', async () => {
    const f = jsonl('bad.jsonl', [{ question: 'q', answer: '1' }, { question: 'q' }, { question: 'q', answer: '1', calls: [''] }]);
    const msg = await errorOf(readToolTasks, f);
    expect(msg).toContain(`${f}:2`);
    expect(msg).toContain('needs "answer" or "tests"');
    expect(msg).toContain(`${f}:3`);
    expect(msg).toContain('calls[0]');
  });
});

describe("problems in MBPP's schema", () => {
  const problem = { task_id: 100001, text: 'Write a function add(a, b) that returns a + b.', code: 'def add(a, b):\r\n    return a + b', test_list: ['assert add(1, 2) == 3', 'assert add(0, 5) == 5'], op: 'add' };
  const prompt = '# Write a function add(a, b) that returns a + b.\n# Your code should pass this test:\n# assert add(1, 2) == 3\n';

  test('are read as sft records: the prompt MBPP-style, the reference (normalised) as the response, other fields kept', async () => {
    const [r] = await readSftData(jsonl('sft.jsonl', [problem]));
    expect(r).toMatchObject({ prompt, response: 'def add(a, b):\n    return a + b\n', op: 'add', task_id: 100001 });
  });

  test('are read as ppo records with their tests and setup, no reference needed', async () => {
    const { code: _code, ...noReference } = problem;
    const [r] = await readPpoData(jsonl('ppo.jsonl', [{ ...noReference, test_setup_code: 'import math' }]));
    expect(r).toMatchObject({ prompt, tests: problem.test_list, test_setup_code: 'import math\n' });
  });

  test('without a reference are no sft record: the error names the line and the response', async () => {
    const { code: _code, ...noReference } = problem;
    const f = jsonl('sft.jsonl', [problem, noReference]);
    expect(await errorOf(readSftData, f)).toBe(`${f}:2: field "response": must not be empty`);
  });

  test("with a field of MBPP's schema missing are told which, not that `prompt` is missing", async () => {
    const { text: _text, ...noText } = problem;
    const f = jsonl('ppo.jsonl', [noText]);
    expect(await errorOf(readPpoData, f)).toContain(`${f}:1: field "text": `);
  });
});
