import { acceptsCompletion, CONTINUE_STOP_STRINGS, continueOutcome, continuePrompt, continueRequestBody, showCompletion } from './continue-client';
import { AutocompleteOutcomeSchema } from './outcome';

const chars = (s: string) => s.length; // a stand-in token count: one token per character

test('the request Continue sends: 12 stop strings, temperature 0.01, stream', () => {
  expect(CONTINUE_STOP_STRINGS).toHaveLength(12);
  expect(continueRequestBody('P', 'Qwen2.5-Coder-1.5B')).toEqual({
    model: 'Qwen2.5-Coder-1.5B',
    prompt: 'P',
    max_tokens: 4096,
    temperature: 0.01,
    stop: [...CONTINUE_STOP_STRINGS],
    stream: true,
  });
});

test('prompt: file path comment, prefix <= 30% / suffix <= 20% of maxPromptTokens, empty suffix -> newline', () => {
  const prefix = 'a = 1\nb = 2\nc = 3\nd = '; // 22 chars
  const p = continuePrompt('pkg/m.py', prefix, '', chars, 80); // prefix budget 24
  expect(p.prefix).toBe('# pkg/m.py\nc = 3\nd = '); // 21 chars; with "b = 2" it would be 27
  expect(p.suffix).toBe('\n');
  expect(p.prompt).toBe('<|fim_prefix|># pkg/m.py\nc = 3\nd = <|fim_suffix|>\n<|fim_middle|>');
  const q = continuePrompt('m.py', 'x = ', '\nline1\nline2\nline3\nline4\n', chars, 100);
  expect(q.suffix).toBe('\nline1\nline2\nline3'); // 18 chars <= 20
});

test('what Continue would show: stop strings, one line mid-line, stop at the code below, blank -> nothing', () => {
  expect(showCompletion('foo(x)\nbar()', 'y = ', '\n')).toBe('foo(x)'); // cursor line has code: single line
  expect(showCompletion('a = 1\nb = 2\n', 'def f():\n', '\n')).toBe('a = 1\nb = 2'); // at a line start: multi-line
  expect(showCompletion('a = 1```\nb', '\n', '\n')).toBe('a = 1');
  expect(showCompletion('x = 1\nreturn x\nmore', '\n', '\n    return x\n')).toBe('x = 1'); // reaches the suffix
  expect(showCompletion('  \n\n', 'x = ', '')).toBeNull();
  expect(showCompletion('<|endoftext|>abc', 'x = ', '')).toBeNull();
});

test('acceptance rule: first lines equal after trimming', () => {
  expect(acceptsCompletion('foo(x)', 'foo(x)')).toBe(true);
  expect(acceptsCompletion('  return a + b  ', 'return a + b\n    more\n')).toBe(true);
  expect(acceptsCompletion('return a - b', 'return a + b')).toBe(false);
  expect(acceptsCompletion('', '')).toBe(false);
  expect(acceptsCompletion('\nreturn 1', 'return 1')).toBe(false);
});

test('the posted outcome has the AutocompleteOutcome fields Continue sends', () => {
  const prompt = continuePrompt('m.py', 'x = ', '\n', chars);
  const o = continueOutcome({ prompt, filepath: 'm.py', completion: '1', accepted: true, modelName: 'M', timeMs: 5, uniqueId: 'u' });
  expect(AutocompleteOutcomeSchema.safeParse(o).success).toBe(true);
  expect(o).toMatchObject({ prompt: prompt.prompt, completion: '1', accepted: true, modelProvider: 'openai', cacheHit: false, numLines: 1 });
  expect(o.completionId).toMatch(/^[0-9a-f-]{36}$/);
});
