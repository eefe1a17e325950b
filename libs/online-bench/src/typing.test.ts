// The typing session (typing.ts): pauses at word ends, the file with the most of them, prompts that grow at the cursor
// and share their start; and `online latency --typing` end to end on a tiny served model: its one row, with the prefix
// cache reusing the previous prompt of the session.
import { initBackend } from '@rlhf-code/backend';
import { makeTinyModelDir } from '@rlhf-code/online-core/testing';
import { measureTyping } from './latency';
import { typingPauses, typingSession, type TypedCase } from './typing';

const chars = (t: string) => t.length; // a stand-in token count

const CASES: TypedCase[] = [
  { path: 'a.py', prefix: 'import os\n\n', middle: 'x = 1\n', suffix: '\nprint(x)\n' },
  { path: 'b.py', prefix: 'def f(a, b):\n', middle: '    return a + b\n', suffix: '\n\nf(1, 2)\n' },
  { path: 'b.py', prefix: 'def f(a, b):\n    return a + b\n\n\n', middle: 'print(f(3, 4))', suffix: '\n' },
];

test('pauses: after each word and at the end of what is typed', () => {
  expect(typingPauses('    return a + b\n')).toEqual([10, 12, 16, 17]);
  expect(typingPauses('x')).toEqual([1]);
  expect(typingPauses('')).toEqual([]);
});

test("the session: the file with the most pauses, its cases in order, each prompt growing at the cursor", () => {
  const s = typingSession(CASES, 'head', chars, 1024, 100);
  expect(s.path).toBe('b.py');
  expect(s.requests.map((r) => r.code)).toEqual([
    'def f(a, b):\n    return',
    'def f(a, b):\n    return a',
    'def f(a, b):\n    return a + b',
    'def f(a, b):\n    return a + b\n',
    'def f(a, b):\n    return a + b\n\n\nprint',
    'def f(a, b):\n    return a + b\n\n\nprint(f',
    'def f(a, b):\n    return a + b\n\n\nprint(f(3',
    'def f(a, b):\n    return a + b\n\n\nprint(f(3, 4',
    'def f(a, b):\n    return a + b\n\n\nprint(f(3, 4))',
  ]);
  expect(s.requests[0].suffix).toBe('\n\nf(1, 2)\n');
  // a.py is the context snippet of every request: the prompts share their start (the repository header, then the code).
  const header = s.requests[0].prompt.slice(0, s.requests[0].prompt.indexOf('<|fim_prefix|>'));
  expect(header).toContain('<|file_sep|>a.py\nimport os');
  for (const r of s.requests) expect(r.prompt.startsWith(`${header}<|fim_prefix|>def f(a, b):\n    return`)).toBe(true);
  expect(typingSession(CASES, 'v139', chars, 1024, 3).requests).toHaveLength(3);
  expect(() => typingSession(CASES.slice(1), 'v139', chars, 1024, 3)).toThrow('at least 2 files');
});

test('online latency --typing on a tiny model: one row, the session reusing its previous prompts', async () => {
  await initBackend({ quiet: true });
  const model = await makeTinyModelDir(3);
  const row = await measureTyping({ model, engine: 'local', cases: CASES, form: 'v139', maxPromptTokens: 128, requests: 9, warmup: 1, completion: { maxTokensCap: 8 } });
  expect(row).toEqual({
    typing: true,
    engine: 'local',
    engine_weights: null,
    form: 'v139',
    file: 'b.py',
    requests: 9,
    failed: 0,
    first_line_ms: { p50: expect.any(Number), p95: expect.any(Number) },
    within_375ms: expect.any(Number),
    shown: expect.any(Number),
    cache_hit_rate: expect.any(Number),
    prompt_tokens_mean: expect.any(Number),
    prefilled_tokens_mean: expect.any(Number),
    prefilled_tokens_p50: expect.any(Number),
    completion_tokens_mean: expect.any(Number),
  });
  expect(row.first_line_ms.p95!).toBeGreaterThanOrEqual(row.first_line_ms.p50!);
  expect(row.cache_hit_rate).toBe(8 / 9); // every request after the first
  expect(row.prefilled_tokens_mean).toBeLessThan(row.prompt_tokens_mean / 2);
  expect(row.prefilled_tokens_p50!).toBeLessThan(row.prompt_tokens_mean / 2);
  expect(row.completion_tokens_mean).toBeGreaterThan(0);
  expect(row.completion_tokens_mean).toBeLessThanOrEqual(8); // maxTokensCap
});

// The same session served through llama.cpp (online serve --engine llamacpp, in the service's generation thread): every
// request answered, and llama.cpp's own prefix reuse reported as the local cache's is.
test('online latency --typing on the llamacpp engine: answered, prompts reused by llama.cpp', async () => {
  await initBackend({ quiet: true });
  const model = await makeTinyModelDir(3);
  const row = await measureTyping({ model, engine: 'llamacpp', engineWeights: 'Q8_0', cases: CASES, form: 'v139', maxPromptTokens: 128, requests: 9, warmup: 1, completion: { maxTokensCap: 8 } });
  expect([row.engine, row.engine_weights, row.requests, row.failed]).toEqual(['llamacpp', 'Q8_0', 9, 0]);
  expect(row.cache_hit_rate).toBeGreaterThanOrEqual(8 / 9); // not per user: the first may share the warm-up's opening tokens
  expect(row.prefilled_tokens_mean).toBeLessThan(row.prompt_tokens_mean / 2);
});
