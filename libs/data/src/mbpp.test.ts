import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DataError } from './data-error';
import { MbppLeakGuard, mbppDatasets, mbppPrompt, mbppSplit, normalizeCode, readMbpp, type MbppTask } from './mbpp';

const task = (task_id: number, text = `Write a function number ${task_id}.`): MbppTask => ({
  task_id,
  text,
  code: `def f${task_id}(x):\r\n\treturn x  \r\n`,
  test_list: [`assert f${task_id}(1) == 1`, `assert f${task_id}(2) == 2`],
  test_setup_code: '',
  challenge_test_list: [],
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mbpp-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mbppSplit', () => {
  it('follows the canonical split', () => {
    expect([1, 10, 11, 510, 511, 600, 601, 974].map(mbppSplit)).toEqual(['fewshot', 'fewshot', 'test', 'test', 'validation', 'validation', 'train', 'train']);
  });
  it('rejects ids outside 1..974', () => {
    expect(() => mbppSplit(0)).toThrow('mbppSplit: task_id must be an integer in 1..974, got 0');
    expect(() => mbppSplit(975)).toThrow('got 975');
    expect(() => mbppSplit(12.5)).toThrow('got 12.5');
  });
});

describe('mbppPrompt', () => {
  it('is the problem and the first test as Python comments', () => {
    expect(mbppPrompt({ text: 'Write a function to add two numbers.', test_list: ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'] })).toBe(
      '# Write a function to add two numbers.\n# Your code should pass this test:\n# assert add(1, 2) == 3\n',
    );
  });
  it('comments every line of a multi-line text', () => {
    expect(mbppPrompt({ text: 'Line one.\r\nLine two.', test_list: ['assert f()'] })).toBe('# Line one.\n# Line two.\n# Your code should pass this test:\n# assert f()\n');
  });
});

describe('normalizeCode', () => {
  it('uses LF, trims trailing whitespace and blank edge lines, ends with one newline, keeps tabs', () => {
    expect(normalizeCode('\r\ndef f(x): \r\n\treturn x\t\r\n\r\n\r\n')).toBe('def f(x):\n\treturn x\n');
    expect(normalizeCode('x = 1')).toBe('x = 1\n');
  });
});

describe('readMbpp', () => {
  it('reads, fills defaults and sorts by task id', async () => {
    const file = path.join(dir, 'ok.jsonl');
    writeFileSync(file, [task(12), task(3)].map(({ test_setup_code: _s, challenge_test_list: _c, ...t }) => JSON.stringify(t)).join('\n') + '\n');
    const tasks = await readMbpp(file);
    expect(tasks.map((t) => t.task_id)).toEqual([3, 12]);
    expect(tasks[0].test_setup_code).toBe('');
  });

  it('names the file, line and field of a bad record', async () => {
    const file = path.join(dir, 'bad.jsonl');
    writeFileSync(file, JSON.stringify(task(5)) + '\n' + JSON.stringify({ ...task(6), test_list: [] }) + '\n');
    await expect(readMbpp(file)).rejects.toThrow(`${file}:2: field "test_list": must not be empty`);
  });

  it('rejects duplicate task ids', async () => {
    const file = path.join(dir, 'dup.jsonl');
    writeFileSync(file, [task(7), task(8), task(7)].map((t) => JSON.stringify(t)).join('\n'));
    await expect(readMbpp(file)).rejects.toThrow(`${file}:3: field "task_id": duplicate task_id 7 (first on line 1)`);
  });
});

describe('mbppDatasets', () => {
  const tasks = [task(2), task(11), task(510), task(511), task(700, 'Write a function number 11.'), task(974), { ...task(600), test_setup_code: 'root = 1\r\n' }];

  it('trains on 511-974 only (PPO on 601-974, 511-600 kept to measure it), evaluates on 11-510, in task order', () => {
    const d = mbppDatasets(tasks);
    expect(d.sft.map((r) => r.task_id)).toEqual([511, 600, 974]);
    expect(d.ppo.map((r) => r.task_id)).toEqual([974]);
    expect(d.validation.map((r) => r.task_id)).toEqual([511, 600]);
    expect(d.eval.map((r) => r.task_id)).toEqual([11, 510]);
    expect(d.sft[0]).toEqual({ prompt: mbppPrompt(task(511)), response: 'def f511(x):\n\treturn x\n', task_id: 511 });
    expect(d.validation[1]).toEqual({ prompt: mbppPrompt(tasks[6]), tests: tasks[6].test_list, setup: 'root = 1\n', task_id: 600 });
    expect(d.eval[0]).not.toHaveProperty('setup');
  });

  it('leaves out training tasks that repeat a test problem', () => {
    expect(mbppDatasets(tasks).excluded).toEqual([{ task_id: 700, duplicates: 11 }]);
  });
});

describe('MbppLeakGuard', () => {
  const guard = new MbppLeakGuard([task(11), task(42), task(600)]);

  it('refuses a test-split task id', () => {
    const err = (() => {
      try {
        guard.check([{ prompt: 'x', task_id: 600 }, { prompt: 'y', task_id: 42 }], 'data/sft_data.jsonl');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DataError);
    expect((err as Error).message).toBe('data/sft_data.jsonl:2: field "task_id": task 42 is in the MBPP test split (11-510), which is for evaluation only');
  });

  it('refuses a test prompt without a task id, and a prompt repeating a test problem', () => {
    expect(() => guard.check([{ prompt: mbppPrompt(task(11)) }], 'rm')).toThrow('rm:1: field "prompt": repeats MBPP test task 11');
    expect(() => guard.check([{ prompt: '# write a function NUMBER 42\n# Your code should pass this test:\n# assert g()\n' }], 'rm')).toThrow(
      'repeats MBPP test task 42',
    );
  });

  it('accepts training records', () => {
    expect(() => guard.check([{ prompt: mbppPrompt(task(600)), task_id: 600 }, { prompt: 'anything else' }], 'f')).not.toThrow();
  });
});

describe('the shipped MBPP copy', () => {
  it('splits into 461 training tasks (3 repeat a test problem) and 500 evaluation tasks', async () => {
    const tasks = await readMbpp(path.join(__dirname, '../../../data/mbpp/mbpp.jsonl'));
    expect(tasks).toHaveLength(974);
    const d = mbppDatasets(tasks);
    expect(d.eval).toHaveLength(500);
    expect(d.excluded.map((e) => e.task_id)).toEqual([602, 704, 872]);
    expect(d.sft).toHaveLength(464 - 3);
    expect(d.sft.every((r) => r.task_id >= 511)).toBe(true);
    expect(d.ppo.filter((r) => r.setup !== undefined).map((r) => r.task_id)).toEqual([927]);
    expect(d.ppo.length + d.validation.length).toBe(d.sft.length);
    expect(d.validation.every((r) => r.task_id >= 511 && r.task_id <= 600)).toBe(true);
    expect(d.ppo.every((r) => r.task_id >= 601)).toBe(true);
  });
});
