// Warm-start traces: the template's rendering of question, call, response and answer; the loss on the two
// assistant turns only; the tool's output is the task's answer (the solution really ran).
import * as path from 'path';
import { chatTemplateOf, loadTokenizer, renderChatTemplate } from '@rlhf-code/tokenizer';
import { interpreterTools, PYTHON_TOOL } from './episode';
import { toolCallText, warmStartExamples } from './warm-start';

jest.setTimeout(30_000);

test('traces: template rendering, loss on the assistant turns only, the solution run for real', async () => {
  const tok = loadTokenizer(path.join(__dirname, '../../../models/base'));
  const template = chatTemplateOf(tok);
  const tasks = [
    { question: 'What is 2**64?', answer: '18446744073709551616', solution: 'print(2**64)' },
    { question: "How many 'a' in 'banana'?", answer: '3', solution: "print('banana'.count('a'))" },
  ];
  const { examples, toolOutputs } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(false) });
  expect(toolOutputs).toEqual(['18446744073709551616\n', '3\n']);
  examples.forEach((ex, i) => {
    const t = tasks[i];
    const messages = [
      { role: 'user' as const, content: t.question },
      { role: 'assistant' as const, content: '', tool_calls: [{ type: 'function' as const, function: { name: 'python_interpreter', arguments: { code: t.solution } } }] },
      { role: 'tool' as const, content: `${t.answer}\n` },
      { role: 'assistant' as const, content: `The answer is ${t.answer}.` },
    ];
    expect(tok.decode(ex.ids, { skipSpecialTokens: false }) + '\n').toBe(renderChatTemplate(template, messages, { tools: [PYTHON_TOOL] }));
    const trained = tok.decode(ex.ids.filter((_, k) => ex.lossMask[k] === 1), { skipSpecialTokens: false });
    expect(trained).toBe(`${toolCallText(t.solution)}<|im_end|>The answer is ${t.answer}.<|im_end|>`);
  });
});
