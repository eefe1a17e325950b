// The tool tasks: seeded, split by kind, and every answer confirmed by running its reference solution in the sandbox.
import { PythonInterpreter } from '@rlhf-code/sandbox';
import { generateToolTasks, HELD_OUT_TEMPLATES, NEW_OPERATION_KINDS, solveToolTasks, TOOL_TASK_KINDS, TRAIN_KINDS, TRAIN_TEMPLATES } from './tool-tasks';

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

test('seeded; split by template and by operation', () => {
  const kinds = Object.keys(TOOL_TASK_KINDS);
  expect(generateToolTasks(kinds, 4, 7)).toEqual(generateToolTasks(kinds, 4, 7));
  expect(generateToolTasks(kinds, 4, 7)).not.toEqual(generateToolTasks(kinds, 4, 8));
  // A kind's tasks do not depend on which other kinds are generated with it.
  expect(generateToolTasks(['power_mod'], 4, 7)).toEqual(generateToolTasks(kinds, 4, 7).filter((t) => t.kind === 'power_mod'));
  expect(NEW_OPERATION_KINDS.every((k) => k in TOOL_TASK_KINDS && !TRAIN_KINDS.includes(k))).toBe(true);
  expect(TRAIN_KINDS.length).toBeGreaterThanOrEqual(6);
  expect(TRAIN_TEMPLATES.some((t) => HELD_OUT_TEMPLATES.includes(t))).toBe(false);
  // Templates take turns; the same computation phrased by a held-out template differs only in the question.
  const train = generateToolTasks(['product', 'two_step_list'], 6, 1, TRAIN_TEMPLATES);
  const held = generateToolTasks(['product', 'two_step_list'], 6, 1, HELD_OUT_TEMPLATES);
  expect(train.map((t) => t.template)).toEqual([...TRAIN_TEMPLATES, ...TRAIN_TEMPLATES, ...TRAIN_TEMPLATES, ...TRAIN_TEMPLATES]);
  expect(held.map((t) => t.calls)).toEqual(train.map((t) => t.calls));
  for (const [i, t] of held.entries()) {
    expect(t.question).not.toBe(train[i].question);
    expect(t.question).toContain(t.calls[t.calls.length - 1].replace(/^print\((.*)\)$/, '$1')); // the expression is in the question
  }
  expect(() => generateToolTasks(['sudoku'], 1, 0)).toThrow('tool tasks: unknown kind "sudoku"');
  expect(() => generateToolTasks(['product'], 1, 0, ['riddle'])).toThrow('tool tasks: unknown template "riddle"');
});
