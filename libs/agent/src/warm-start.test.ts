// Warm-start traces: the template's rendering of question, calls, responses and answer; the loss on the assistant
// turns only; the calls really run (a two-call trace keeps its variable in the stateful interpreter); direct traces
// answer without the tool.
import * as path from 'path';
import { chatTemplateOf, loadTokenizer, renderChatTemplate, type TemplateMessage } from '@rlhf-code/tokenizer';
import { interpreterTools, PYTHON_TOOL } from './episode';
import { answerText, toolCallText, warmStartExamples } from './warm-start';

jest.setTimeout(30_000);

test('traces: template rendering, loss on the assistant turns only, the calls run for real', async () => {
  const tok = loadTokenizer(path.join(__dirname, '../../../models/base'));
  const template = chatTemplateOf(tok);
  const tasks = [
    { question: 'What is 2**64?', answer: '18446744073709551616', calls: ['print(2**64)'] },
    { question: "Let s = 'banana'. What is s.count('a')?", answer: '3', calls: ["s = 'banana'", "print(s.count('a'))"] },
    { question: 'What is 3 ** 40?', answer: '12157665459056928801', calls: ['print(3 ** 40)'], direct: true },
  ];
  const { examples, toolOutputs } = await warmStartExamples(tasks, { tokenizer: tok, template, toolFor: interpreterTools(true) });
  expect(toolOutputs).toEqual([['18446744073709551616\n'], ['', '3\n'], []]);
  examples.forEach((ex, i) => {
    const t = tasks[i];
    const messages: TemplateMessage[] = [{ role: 'user', content: t.question }];
    const calls = t.direct ? [] : t.calls;
    calls.forEach((code, k) => {
      messages.push({ role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'python_interpreter', arguments: { code } } }] });
      messages.push({ role: 'tool', content: toolOutputs[i][k] });
    });
    messages.push({ role: 'assistant', content: answerText(t.answer) });
    expect(tok.decode(ex.ids, { skipSpecialTokens: false }) + '\n').toBe(renderChatTemplate(template, messages, { tools: [PYTHON_TOOL] }));
    const trained = tok.decode(ex.ids.filter((_, k) => ex.lossMask[k] === 1), { skipSpecialTokens: false });
    expect(trained).toBe([...calls.map(toolCallText), answerText(t.answer)].map((s) => `${s}<|im_end|>`).join(''));
  });
});
