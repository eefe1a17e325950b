import { acceptsCompletion, CONTINUE_STOP_STRINGS, continueDisplay, continueDisplayTimed, continueOutcome, continuePrompt, continueRequestBody, showCompletion } from './continue-client';
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

test("1.3.9's prompt: commented context, then the last two path parts; prefix <= 30% / suffix <= 20%; empty suffix -> newline", () => {
  const prefix = 'a = 1\nb = 2\nc = 3\nd = '; // 22 chars
  const p = continuePrompt('src/pkg/m.py', prefix, '', chars, 60); // prefix budget 18
  expect(p.code).toBe('b = 2\nc = 3\nd = '); // 16 chars; with "a = 1" it would be 22
  expect(p.prefix).toBe('\n# pkg/m.py\nb = 2\nc = 3\nd = '); // no other file: "\n# path\n", as 1.3.9 writes it
  expect(p.suffix).toBe('\n');
  expect(p.prompt).toBe('<|fim_prefix|>\n# pkg/m.py\nb = 2\nc = 3\nd = <|fim_suffix|>\n<|fim_middle|>');
  const q = continuePrompt('m.py', 'x = ', '\nline1\nline2\nline3\nline4\n', chars, 100);
  expect(q.suffix).toBe('\nline1\nline2\nline3'); // 18 chars <= 20
  // A snippet of another file fills the rest of the budget, cut from its end.
  // 30 tokens: 4 for the code, 1 for the suffix, 25 left; "u.py\ndef u():\n    return 1" would take 26.
  const r = continuePrompt('m.py', 'x = ', '\n', chars, 30, { snippets: [{ path: 'u.py', content: 'def u():\n    return 1\n\nZ = 2' }] });
  expect(r.prefix).toBe('# Path: u.py\n# def u():\n# m.py\nx = ');
});

test("upstream's prompt: the repository header only when there is context", () => {
  const snippets = [{ path: 'u.py', content: 'U = 1' }];
  const p = continuePrompt('pkg/m.py', 'x = ', '\n', chars, 1024, { form: 'head', snippets });
  expect(p.prompt).toBe('<|repo_name|>workspace\n<|file_sep|>u.py\nU = 1\n<|file_sep|>pkg/m.py\n<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>');
  expect(continuePrompt('pkg/m.py', 'x = ', '\n', chars, 1024, { form: 'head' }).prompt).toBe('<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>');
});

test('what Continue would show: stop strings, one line after a comment, stop at the code below, blank -> nothing', () => {
  expect(showCompletion('foo(x)\nbar()', 'y = ', '\n')).toBe('foo(x)\nbar()'); // Python, not a comment line: several lines
  expect(showCompletion('the sum\nreturn s', '    # compute ', '\n')).toBe('the sum'); // a comment line: one line
  expect(showCompletion('a = 1\nb = 2\n', 'def f():\n', '\n')).toBe('a = 1\nb = 2');
  expect(showCompletion('a = 1```\nb', '\n', '\n')).toBe('a = 1');
  expect(showCompletion('x = 1\n    return x\nmore', '\n', '\n    return x\n')).toBe('x = 1'); // reaches the line below
  expect(showCompletion('  \n\n', 'x = ', '')).toBeNull();
  expect(showCompletion('<|endoftext|>abc', 'x = ', '')).toBeNull();
  expect(showCompletion(' 1', 'x = ', '\n')).toBe('1'); // the prefix ends with a space: the leading one goes
});

test("Continue's clock: the 150 ms rule by line, the 10-chunk cut past 375 ms", () => {
  const lines = ['\n', '    a = 1\n', '    b = 2\n', '    c = 3'];
  const at = (ms: number[]) => lines.map((text, i) => ({ text, ms: ms[i] }));
  expect(continueDisplay(at([10, 20, 30, 40]), 'def f():', '\n')).toBe('\n    a = 1\n    b = 2\n    c = 3');
  expect(continueDisplay(at([10, 200, 210, 220]), 'def f():', '\n')).toBe('\n    a = 1'); // line "a" ends at 210 ms
  const pieces = Array.from({ length: 14 }, (_, i) => ({ text: 'x', ms: 40 * (i + 1) })); // the 10th piece at 400 ms
  expect(continueDisplay(pieces, 'y = ', '\n')).toBe('x'.repeat(10));
  // When it is shown: the piece where Continue stops reading, else the end of the stream.
  expect(continueDisplayTimed(at([10, 200, 210, 220]), 250, 'def f():', '\n')).toEqual({ shown: '\n    a = 1', ms: 200 });
  expect(continueDisplayTimed(at([10, 20, 30, 40]), 55, 'def f():', '\n')).toEqual({ shown: '\n    a = 1\n    b = 2\n    c = 3', ms: 55 });
  expect(continueDisplayTimed(pieces, 600, 'y = ', '\n').ms).toBe(400);
  expect(continueDisplayTimed([{ text: '  ', ms: 30 }], 45, 'y = ', '\n')).toEqual({ shown: null, ms: 45 });
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
