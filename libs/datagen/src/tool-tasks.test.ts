// The tool tasks: seeded, split by kind, and every answer confirmed by running its reference solution in the sandbox.
import { PythonInterpreter } from '@rlhf-code/sandbox';
import { answerMatches, generateToolTasks, HELD_OUT_KINDS, TOOL_TASK_KINDS } from './tool-tasks';

jest.setTimeout(60_000);

test('every kind: the reference solution prints the answer computed here', async () => {
  const tasks = generateToolTasks(Object.keys(TOOL_TASK_KINDS), 3, 'check');
  const py = new PythonInterpreter({ stateful: false, timeoutMs: 10_000 });
  for (const t of tasks) expect({ id: t.id, out: (await py.run(t.solution)).output }).toEqual({ id: t.id, out: `${t.answer}\n` });
  await py.close();
});

test('seeded and split by kind', () => {
  const kinds = Object.keys(TOOL_TASK_KINDS);
  expect(generateToolTasks(kinds, 4, 7)).toEqual(generateToolTasks(kinds, 4, 7));
  expect(generateToolTasks(kinds, 4, 7)).not.toEqual(generateToolTasks(kinds, 4, 8));
  // A kind's tasks do not depend on which other kinds are generated with it.
  expect(generateToolTasks(['fibonacci'], 4, 7)).toEqual(generateToolTasks(kinds, 4, 7).filter((t) => t.kind === 'fibonacci'));
  expect(HELD_OUT_KINDS.every((k) => k in TOOL_TASK_KINDS)).toBe(true);
  expect(kinds.length - HELD_OUT_KINDS.length).toBeGreaterThanOrEqual(6);
  expect(() => generateToolTasks(['sudoku'], 1, 0)).toThrow('tool tasks: unknown kind "sudoku"');
});

test('answerMatches: the answer as a whole token of the reply', () => {
  expect(answerMatches('The answer is 43.', '43')).toBe(true);
  expect(answerMatches('43', '43')).toBe(true);
  expect(answerMatches('It is 143.', '43')).toBe(false);
  expect(answerMatches('about 43.5', '43')).toBe(false);
  expect(answerMatches('-7 is the 3rd smallest', '-7')).toBe(true);
  expect(answerMatches('x is -7', '7')).toBe(false);
  expect(answerMatches("The result is 'Cc bb aa'", 'cc bb aa')).toBe(true);
});
