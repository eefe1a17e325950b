// Warm-start traces: the template's rendering of question, calls, responses and final turn; the loss on the assistant
// turns only; the calls really run (a two-call trace keeps its variable in the stateful interpreter); direct traces
// answer without the tool; programming traces write the reference, check it against the shown test (printing the
// call, or running the assert; some after a wrong first attempt) and end with the reference in a ```python block.
import * as path from 'path';
import { readToolTasks } from '@rlhf-code/data';
import { chatTemplateOf, loadTokenizer, renderChatTemplate, type TemplateMessage } from '@rlhf-code/tokenizer';
import { interpreterTools, PYTHON_TOOL } from './episode';
import { answerText, codeAnswerText } from './judge';
import { brokenAttempt, codeTraceCalls, solvedTask, toolCallText, warmStartExamples, type SolvedTask } from './warm-start';

jest.setTimeout(30_000);

const tok = loadTokenizer(path.join(__dirname, '../../../models/base'));
const template = chatTemplateOf(tok);

/** Each trace is the template's rendering of its conversation, and only the assistant turns are trained. */
function expectRendered(tasks: SolvedTask[], examples: { ids: number[]; lossMask: number[] }[], toolOutputs: string[][]) {
  examples.forEach((ex, i) => {
    const t = tasks[i];
    const messages: TemplateMessage[] = [{ role: 'user', content: t.question }];
    const calls = t.direct ? [] : t.calls;
    calls.forEach((code, k) => {
      messages.push({ role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'python_interpreter', arguments: { code } } }] });
      messages.push({ role: 'tool', content: toolOutputs[i][k] });
    });
    messages.push({ role: 'assistant', content: t.final });
    expect(tok.decode(ex.ids, { skipSpecialTokens: false }) + '\n').toBe(renderChatTemplate(template, messages, { tools: [PYTHON_TOOL] }));
    const trained = tok.decode(ex.ids.filter((_, k) => ex.lossMask[k] === 1), { skipSpecialTokens: false });
    expect(trained).toBe([...calls.map((c) => toolCallText(c)), t.final].map((s) => `${s}<|im_end|>`).join(''));
  });
}

test('question traces: template rendering, loss on the assistant turns only, the calls run for real', async () => {
  const tasks = [
    { question: 'What is 2**64?', calls: ['print(2**64)'], final: answerText('18446744073709551616') },
    { question: "Let s = 'banana'. What is s.count('a')?", calls: ["s = 'banana'", "print(s.count('a'))"], final: answerText('3') },
    { question: 'What is 3 ** 40?', calls: ['print(3 ** 40)'], final: answerText('12157665459056928801'), direct: true },
  ];
  const { examples, toolOutputs } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(true) });
  expect(toolOutputs).toEqual([['18446744073709551616\n'], ['', '3\n'], []]);
  expectRendered(tasks, examples, toolOutputs);
});

test('codeTraceCalls and brokenAttempt: the reference checked against the shown test, after a wrong attempt', () => {
  const ref = 'def plus(n, a):\n    return n + a\n';
  const test = 'assert plus(9, 47) == 56';
  expect(codeTraceCalls(ref, test, { assert: false })).toEqual(['def plus(n, a):\n    return n + a\n\nprint(plus(9, 47))']);
  expect(codeTraceCalls(ref, test, { assert: true })).toEqual([`def plus(n, a):\n    return n + a\n\n${test}`]);
  const broken = brokenAttempt(ref);
  expect(broken).toBe('def plus(n, a):\n    return n - a\n'); // plus for minus: the slip a small model makes
  expect(codeTraceCalls(ref, test, { assert: false, broken })).toEqual(['def plus(n, a):\n    return n - a\n\nprint(plus(9, 47))', 'def plus(n, a):\n    return n + a\n\nprint(plus(9, 47))']);
  expect(codeTraceCalls(ref, 'assert set(f(1)) == {1}', { assert: false })[0]).toMatch(/\nprint\(set\(f\(1\)\)\)$/);
  expect(codeTraceCalls(ref, 'assert math.isclose(f(1), 2.0)', { assert: false })[0]).toMatch(/\nassert math\.isclose\(f\(1\), 2\.0\)$/); // no "==": the assert as it is
  // `pick` chooses among the slips that apply, in SLIPS' order; only the body changes (never the def line)
  const evens = 'def sum_even(items):\n    return sum(x for x in items if x % 2 == 0)\n';
  expect(brokenAttempt(evens, 0)).toBe('def sum_even(items):\n    return sum(x for x in items if x % 2 == 1)\n'); // the odd filter for the even
  expect(brokenAttempt(evens, 0.99)).toBe('def sum_even(items):\n    return max(x for x in items if x % 2 == 0)\n');
  expect(brokenAttempt('def max_of(a_b, c):\n    return max(a_b, c)\n')).toBe('def max_of(a_b, c):\n    return min(a_b, c)\n');
  // no slip applies: the last return dropped (the function returns None); nothing to break: null
  expect(brokenAttempt('def f(xs):\n    if not xs:\n        return 0\n    return xs.pop()\n')).toBe('def f(xs):\n    if not xs:\n        return 0\n    xs.pop()\n');
  expect(brokenAttempt('def f():\n    pass\n')).toBeNull();
});

test('programming traces from the suite: the reference run against the shown test, the final code in its declared form', async () => {
  const [t] = await readToolTasks(path.join(__dirname, '../../../data/suite/sft.jsonl')); // plus(n, a), first test: plus(9, 47) == 56
  const tasks = [
    solvedTask(t, { direct: false, assert: false, fix: false })!,
    solvedTask(t, { direct: false, assert: true, fix: false })!,
    solvedTask(t, { direct: false, assert: true, fix: 0 })!,
    solvedTask(t, { direct: true, assert: false, fix: false })!,
  ];
  expect(tasks.every((x) => x.final === codeAnswerText(t.reference!))).toBe(true);
  expect(solvedTask({ ...t, reference: undefined }, { direct: false, assert: false, fix: false })).toBeNull(); // the rl split: no trace
  const { examples, toolOutputs } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(true) });
  expect(toolOutputs[0]).toEqual(['56\n']);
  expect(toolOutputs[1]).toEqual(['']); // the assert holds: nothing printed
  expect(tasks[2].calls[0]).toMatch(/return n - a/); // the wrong attempt: minus for plus
  expect(tasks.map((x) => x.wrongFirst === true)).toEqual([false, false, true, false]); // what the warm-start's drop rule reads
  expect(toolOutputs[2][0]).toMatch(/AssertionError/);
  expect(toolOutputs[2][1]).toBe('');
  expect(toolOutputs[3]).toEqual([]);
  expectRendered(tasks, examples, toolOutputs);
});

test('code-form calls: the code as a ```python block in <tool_call>, run for real, parsed back by the episodes', async () => {
  const [t] = await readToolTasks(path.join(__dirname, '../../../data/suite/sft.jsonl')); // plus(n, a)
  const task = solvedTask(t, { direct: false, assert: true, fix: 0 })!; // minus first, then the reference
  const { examples, toolOutputs } = await warmStartExamples([task], { tokenizer: tok, template, toolFor: interpreterTools(true), callForm: 'code' });
  expect(toolOutputs[0][0]).toMatch(/AssertionError/);
  expect(toolOutputs[0][1]).toBe('');
  const trained = tok.decode(examples[0].ids.filter((_, k) => examples[0].lossMask[k] === 1), { skipSpecialTokens: false });
  const calls = task.calls.map((c) => `<tool_call>\n\`\`\`python\n${c}\n\`\`\`\n</tool_call><|im_end|>`);
  expect(trained).toBe(calls.join('') + `${task.final}<|im_end|>`);
  expect(toolCallText('x = 1', 'code')).toBe('<tool_call>\n```python\nx = 1\n```\n</tool_call>');
});
