// The checkpoint's own chat template rendered with tools (as transformers' apply_chat_template does), and the tool
// calls of a generated turn parsed back.
import * as path from 'path';
import { formatChat } from './chat';
import { chatTemplateOf, QWEN25_STYLE_TEMPLATE, renderChatTemplate, type TemplateMessage, type ToolSpec } from './chat-template';
import { parseToolCalls } from './tool-call';
import { loadTokenizer, Tokenizer } from './tokenizer';

const BASE = path.join(__dirname, '../../../models/base');
const PYTHON: ToolSpec = {
  type: 'function',
  function: { name: 'python_interpreter', description: 'Run Python code and return what it prints.', parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] } },
};
const call = (code: string) => ({ type: 'function' as const, function: { name: 'python_interpreter', arguments: { code } } });

test('the shipped model carries the template; without tools it is plain ChatML (as encodeChat formats)', () => {
  expect(chatTemplateOf(loadTokenizer(BASE))).toBe(QWEN25_STYLE_TEMPLATE);
  const chats: TemplateMessage[][] = [
    [{ role: 'user', content: 'hi' }],
    [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }],
  ];
  for (const messages of chats) {
    for (const addGenerationPrompt of [true, false]) {
      expect(renderChatTemplate(QWEN25_STYLE_TEMPLATE, messages, { addGenerationPrompt })).toBe(formatChat(messages as never, { addGenerationPrompt }));
    }
  }
});

test("with tools: Qwen2.5's system turn, <tool_call> JSON in the assistant turn, <tool_response> in a user turn", () => {
  const messages: TemplateMessage[] = [
    { role: 'user', content: 'What is 2**100 mod 7?' },
    { role: 'assistant', content: 'Let me compute it.', tool_calls: [call('print(2**100 % 7)')] },
    { role: 'tool', content: '2\n' },
    { role: 'assistant', content: 'It is 2.' },
  ];
  const text = renderChatTemplate(QWEN25_STYLE_TEMPLATE, messages, { tools: [PYTHON], addGenerationPrompt: false });
  expect(text).toBe(
    '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
      '{"type": "function", "function": {"name": "python_interpreter", "description": "Run Python code and return what it prints.", ' +
      '"parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}\n</tools>\n\n' +
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\nWhat is 2**100 mod 7?<|im_end|>\n' +
      '<|im_start|>assistant\nLet me compute it.\n<tool_call>\n{"name": "python_interpreter", "arguments": {"code": "print(2**100 % 7)"}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\n<tool_response>\n2\n\n</tool_response><|im_end|>\n' +
      '<|im_start|>assistant\nIt is 2.<|im_end|>\n',
  );
  // The call as rendered parses back to the same call.
  const turn = text.split('<|im_start|>assistant\n')[1];
  expect(parseToolCalls(turn, { python_interpreter: ['code'] })).toEqual([{ ok: true, call: call('print(2**100 % 7)') }]);
});

test('malformed tool calls are errors naming what is wrong, each block on its own', () => {
  const tools = { python_interpreter: ['code'] };
  const text =
    '<tool_call>\n{"name": "python_interpreter", "arguments": {"code": "x = 1"}}\n</tool_call>' +
    '<tool_call>{"name": "python_interpreter", "arguments": {"code": 5}}</tool_call>' +
    '<tool_call>{"name": "shell", "arguments": {}}</tool_call>' +
    '<tool_call>{"name": "python_interpreter", "arguments": {"code": "x"</tool_call>' +
    '<tool_call>{"name": "python_interpreter", "arguments": {"code": "y"}}';
  expect(parseToolCalls(text, tools).map((p) => (p.ok ? 'ok' : p.error))).toEqual([
    'ok',
    'python_interpreter: argument "code" must be a string',
    'unknown tool "shell" (available: python_interpreter)',
    expect.stringMatching(/^tool call is not valid JSON/),
    'tool call not closed with </tool_call>',
  ]);
  expect(parseToolCalls('no calls here', tools)).toEqual([]);
});

test('a code tool takes its code as a fenced block too; without codeTool such a block is not JSON', () => {
  const tools = { python_interpreter: ['code'] };
  const codeTool = { name: 'python_interpreter', arg: 'code' };
  const text = 'Check it.\n<tool_call>\n```python\ndef f(x):\n    return "a\\n" * x\n\nprint(f(2))\n```\n</tool_call>' + '<tool_call>```\nx = 1```</tool_call>';
  expect(parseToolCalls(text, tools, codeTool)).toEqual([
    { ok: true, call: { type: 'function', function: { name: 'python_interpreter', arguments: { code: 'def f(x):\n    return "a\\n" * x\n\nprint(f(2))' } } } },
    { ok: true, call: { type: 'function', function: { name: 'python_interpreter', arguments: { code: 'x = 1' } } } },
  ]);
  expect(parseToolCalls(text, tools).map((p) => (p.ok ? 'ok' : p.error))).toEqual([expect.stringMatching(/^tool call is not valid JSON/), expect.stringMatching(/^tool call is not valid JSON/)]);
  // a block with text besides the fence is neither form
  expect(parseToolCalls('<tool_call>run this:\n```python\nx\n```</tool_call>', tools, codeTool).map((p) => p.ok)).toEqual([false]);
});

test('a tokenizer without a chat template, or a broken template, is one clear error', () => {
  const bare = new Tokenizer(loadTokenizer(BASE)['json' as never], {}, '/m/tokenizer.json');
  expect(() => chatTemplateOf(bare)).toThrow('/m/tokenizer_config.json: no "chat_template"; tool use needs the checkpoint\'s own chat template');
  expect(() => renderChatTemplate('{% for %}', [], { where: 'x/tokenizer_config.json' })).toThrow(/^x\/tokenizer_config.json: not a valid Jinja template/);
});
