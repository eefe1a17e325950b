// The strict judge: only a final answer turn in the declared form counts, compared exactly; programming tasks are
// judged by running the final turn's code against every hidden test, with the offline stub rule. The episodes are
// real ones (runEpisodes with scripted turns), so "a cut turn" and "a final tool call" are what the loop makes of them.
import * as path from 'path';
import { readToolTasks, type ToolTaskRecord } from '@rlhf-code/data';
import { SandboxPool, stubPrograms } from '@rlhf-code/sandbox';
import { chatTemplateOf, loadTokenizer } from '@rlhf-code/tokenizer';
import { interpreterTools, runEpisodes, taskMessages, type Episode, type TurnGenerator } from './episode';
import { answerText, codeAnswerText, finalCode, judgeCode, judgeEpisodes, sameValue, statedAnswer } from './judge';
import { toolCallText } from './warm-start';

jest.setTimeout(60_000);

const tok = loadTokenizer(path.join(__dirname, '../../../models/base'));
const template = chatTemplateOf(tok);
const pool = new SandboxPool({ concurrency: 2 });

/** One episode per script: the policy says script[k] at its turn k (cut when longer than maxTurnTokens). */
async function episodes(scripts: string[][], question: string, o: { maxTurns?: number; maxTurnTokens?: number } = {}): Promise<Episode[]> {
  const at = new Map<number, number>();
  const generate: TurnGenerator = async (sequences, maxNew, rows) =>
    sequences.map((_, k) => {
      const i = rows[k];
      const turn = at.get(i) ?? 0;
      at.set(i, turn + 1);
      const ids = tok.encode(scripts[i][Math.min(turn, scripts[i].length - 1)], { parseSpecialTokens: false });
      const cut = ids.length >= maxNew[k];
      const kept = cut ? ids.slice(0, maxNew[k]) : ids;
      return { ids: kept, stopId: cut ? null : tok.chat.imEnd, logprobs: [...kept, 0].map(() => -1) };
    });
  return runEpisodes(generate, scripts.map(() => taskMessages({ question })), {
    tokenizer: tok, template, maxTurns: o.maxTurns ?? 4, maxTurnTokens: o.maxTurnTokens ?? 200, maxTotalTokens: 1024, toolFor: interpreterTools(true),
  });
}

test('statedAnswer: the last line in the declared form, stated once', () => {
  expect(statedAnswer('The answer is 43.')).toBe('43');
  expect(statedAnswer('I ran it.\nThe answer is -7.')).toBe('-7');
  expect(statedAnswer('The answer is 4.5.')).toBe('4.5');
  expect(statedAnswer('The answer is cc bb aa')).toBe('cc bb aa');
  expect(statedAnswer('43')).toBeNull(); // not the declared form
  expect(statedAnswer('The answer is 43.\nI think.')).toBeNull(); // not the last line
  expect(statedAnswer('Maybe 12 or -7: the answer is -7.')).toBeNull(); // not at the start of the line
  expect(statedAnswer('The answer is 12.\nThe answer is -7.')).toBeNull(); // two answers: a hedge
  expect(statedAnswer('The answer is .')).toBeNull();
});

test('sameValue: exact, numbers as numbers, lists as lists', () => {
  expect(sameValue('6', '6')).toBe(true);
  expect(sameValue('6.0', '6')).toBe(true);
  expect(sameValue('6e0', '6.00')).toBe(true);
  expect(sameValue('-0', '0')).toBe(true);
  expect(sameValue('43.5', '43')).toBe(false);
  expect(sameValue('143', '43')).toBe(false);
  expect(sameValue('12157665459056928801', '12157665459056928800')).toBe(false); // equal as doubles, not as integers
  expect(sameValue('[1, -7, 12]', '[1,-7,12]')).toBe(true);
  expect(sameValue('[1, -7, 12.0]', '[1, -7, 12]')).toBe(true);
  expect(sameValue('[1, -7, 12]', '-7')).toBe(false); // a list is not one of its elements
  expect(sameValue('[1, 2]', '(1, 2)')).toBe(false);
  expect(sameValue('(1,)', '(1, )')).toBe(true);
  expect(sameValue('(5)', '5')).toBe(true); // parentheses, not a tuple
  expect(sameValue("['a', 'b,c']", '["a", "b,c"]')).toBe(true);
  expect(sameValue("'cc bb aa'", 'cc bb aa')).toBe(true); // print shows text without its quotes
  expect(sameValue('Cc bb aa', 'cc bb aa')).toBe(false);
  expect(sameValue("'6'", '6')).toBe(false);
  expect(sameValue('3 or -7', '-7')).toBe(false);
  expect(sameValue('True', '1')).toBe(false);
});

test('questions: an echoed list, several candidates, a cut turn and a final tool call all fail; the answer in its form passes', async () => {
  const question = 'Compute sorted([12, -7, 40, 3])[1].';
  const list = '[12, -7, 40, 3]';
  const call = toolCallText(`print(sorted(${list})[1])`);
  const scripts = [
    [call, answerText('3')], // correct, after the tool
    [answerText('3.0')], // correct: a number as a number
    [`sorted(${list})[1] is one of ${list}`], // the old judge: "3" is a whole token of the turn
    [answerText(list)], // the question's list echoed in the declared form
    [answerText('12, 3')], // several candidates
    ['The answer is 40.\nThe answer is 3.'], // a hedge across lines
    [call, `The answer is 3. ${'Let me explain at length why that is so. '.repeat(20)}`], // cut by the turn's token limit
    [call], // still calling the tool at the turn limit: the last turn is a call
    ['3'], // the bare value, not the declared form
  ];
  const es = await episodes(scripts, question, { maxTurns: 2, maxTurnTokens: 60 });
  expect(es.map((e) => e.end)).toEqual(['answer', 'answer', 'answer', 'answer', 'answer', 'answer', 'tokens', 'turns', 'answer']);
  const tasks = es.map(() => ({ question, answer: '3' }));
  const verdicts = await judgeEpisodes(es, tasks, pool);
  expect(verdicts.map((v) => v.success)).toEqual([true, true, false, false, false, false, false, false, false]);
  expect(verdicts.map((v) => v.score)).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0]);
  expect(verdicts.every((v) => v.testsPassed === null)).toBe(true);
});

/** A programming task as the suite's files give it (read by the tool-task reader, as the stages read them). */
async function suiteTask(): Promise<ToolTaskRecord> {
  const [t] = await readToolTasks(path.join(__dirname, '../../../data/suite/sft.jsonl'));
  return t;
}

test('finalCode: the last closed python block of the turn', () => {
  expect(finalCode('Here:\n```python\ndef f():\n    return 1\n```')).toBe('def f():\n    return 1\n');
  expect(finalCode('```py\nx = 1\n```\nthen\n```python\nx = 2\n```')).toBe('x = 2\n');
  expect(finalCode('```\nx = 3\n```')).toBe('x = 3\n');
  expect(finalCode('```python\ndef f():\n    return 1\n')).toBeNull(); // never closed
  expect(finalCode('def f():\n    return 1\n')).toBeNull(); // not in the declared form
  expect(finalCode('```text\nx = 1\n```')).toBeNull();
});

test('programming tasks: reward = the hidden tests passed by the final code, by the offline stub rule', async () => {
  const task = await suiteTask(); // plus(n, a): n + a, three tests, the first shown in the question
  expect(task.question).toContain(task.tests![0]);
  const fn = /def (\w+)\((\w+), (\w+)\)/.exec(task.reference!)!;
  const [, name, a, b] = fn;
  const shown = /assert \w+\((.+)\) == (.+)/.exec(task.tests![0])!;
  const right = task.reference!;
  const wrong = `def ${name}(${a}, ${b}):\n    return ${a} - ${b}\n`;
  const overfit = `def ${name}(${a}, ${b}):\n    return ${shown[2]}\n`; // passes the shown test only
  const call = toolCallText(`${right}\nprint(${name}(${shown[1]}))`);
  const scripts = [
    [call, codeAnswerText(right)], // runs it, then the final code: solved
    [codeAnswerText(wrong)],
    [codeAnswerText(overfit)], // the hidden tests decide, not the visible one
    [call, 'Done: the function above works.'], // the code was only in a tool call
    [call, `${codeAnswerText(wrong)}\nOr rather:\n${codeAnswerText(right)}`], // the last block is the final code
    [codeAnswerText(`def ${name}(${a}, ${b})\n    return ${a} + ${b}\n`)], // does not compile
    [call], // a final tool call
  ];
  const es = await episodes(scripts, task.question, { maxTurns: 2 });
  const verdicts = await judgeEpisodes(es, es.map(() => task), pool);
  expect(verdicts.map((v) => v.success)).toEqual([true, false, false, false, true, false, false]);
  expect(verdicts.map((v) => v.score)).toEqual([1, 0, 0, 0, 1, -0.1, 0]);
  expect(verdicts[2].testsPassed).toBeCloseTo(1 / 3, 10); // a diagnostic, never the reward
  // Every stub of the offline eval as the final code earns nothing (0; the copied question, prose, does not compile:
  // -0.1), as bare final code (the stub rows) and written in the declared form by a policy.
  const stubs = stubPrograms({ prompt: task.question, tests: task.tests!, setup: task.setup });
  const stubEpisodes = await episodes(stubs.map((s) => [codeAnswerText(s.response)]), task.question);
  for (const vs of [await judgeCode(stubs.map((s) => s.response), stubs.map(() => task), pool), await judgeEpisodes(stubEpisodes, stubEpisodes.map(() => task), pool)]) {
    expect(vs.map((v) => Math.max(0, v.score))).toEqual(stubs.map(() => 0));
    expect(vs.some((v) => v.success)).toBe(false);
  }
});
