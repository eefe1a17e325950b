// The tool tasks: seeded, split by kind, and every answer confirmed by running its reference solution in the sandbox.
import { PythonInterpreter } from '@rlhf-code/sandbox';
import { generateToolTasks, HELD_OUT_KINDS, solveToolTasks, TOOL_TASK_KINDS, TRAIN_KINDS } from './tool-tasks';

jest.setTimeout(60_000);

test('every kind: the reference calls run and print one value; two-step kinds need the first call\'s variable', async () => {
  const tasks = generateToolTasks(Object.keys(TOOL_TASK_KINDS), 3, 'check');
  const solved = await solveToolTasks(tasks, () => new PythonInterpreter({ stateful: true, timeoutMs: 10_000 }));
  for (const t of solved) expect({ id: t.id, answer: t.answer }).toEqual({ id: t.id, answer: expect.stringMatching(/^-?\w[\w ]*$/) });
  // Values checked here independently of Python.
  const product = solved.find((t) => t.kind === 'product')!;
  const [a, b] = product.question.match(/\d+/g)!.map(BigInt);
  expect(product.answer).toBe(String(a * b));
  const reversed = solved.find((t) => t.kind === 'reverse_words')!;
  expect(reversed.answer).toBe(reversed.question.match(/'([a-z ]+)'\.split/)![1].split(' ').reverse().join(' '));
  // A stateless interpreter loses the variable of a two-step task's first call.
  const twoStep = tasks.filter((t) => t.calls.length === 2);
  expect(twoStep.length).toBeGreaterThan(0);
  await expect(solveToolTasks(twoStep.slice(0, 1), () => new PythonInterpreter({ stateful: false }))).rejects.toThrow(/tool tasks: two_step_\w+-check-0: its reference call failed: NameError/);
});

test('seeded and split by kind', () => {
  const kinds = Object.keys(TOOL_TASK_KINDS);
  expect(generateToolTasks(kinds, 4, 7)).toEqual(generateToolTasks(kinds, 4, 7));
  expect(generateToolTasks(kinds, 4, 7)).not.toEqual(generateToolTasks(kinds, 4, 8));
  // A kind's tasks do not depend on which other kinds are generated with it.
  expect(generateToolTasks(['power_mod'], 4, 7)).toEqual(generateToolTasks(kinds, 4, 7).filter((t) => t.kind === 'power_mod'));
  expect(HELD_OUT_KINDS.every((k) => k in TOOL_TASK_KINDS)).toBe(true);
  expect(TRAIN_KINDS.length).toBeGreaterThanOrEqual(6);
  expect(TRAIN_KINDS.some((k) => HELD_OUT_KINDS.includes(k))).toBe(false);
  expect(() => generateToolTasks(['sudoku'], 1, 0)).toThrow('tool tasks: unknown kind "sudoku"');
});
