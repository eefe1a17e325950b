import { SandboxPool } from '@rlhf-code/sandbox';
import { executionScorer, responseProgram } from './execution-scorer';

describe('responseProgram', () => {
  it('continues the prompt with the raw template', () => {
    expect(responseProgram('# add two numbers\n', 'def add(a, b):\n    return a + b\n', 'raw')).toBe('# add two numbers\ndef add(a, b):\n    return a + b\n');
  });

  it('takes the code out of a Markdown fence with the chat template', () => {
    expect(responseProgram('Write add', 'Here:\n```python\ndef add(a, b):\n    return a + b\n```\nDone.', 'chat')).toBe('def add(a, b):\n    return a + b\n');
    expect(responseProgram('Write add', '```\nx = 1\n', 'chat')).toBe('x = 1\n'); // unterminated fence
    expect(responseProgram('Write add', 'x = 1\n', 'chat')).toBe('x = 1\n');
  });
});

describe('executionScorer', () => {
  it('scores each response against its own prompt tests in the sandbox; prompts without tests score 0', async () => {
    // A toy "tokenizer": one id per character.
    const decode = (ids: number[]) => String.fromCharCode(...ids);
    const encode = (s: string) => [...s].map((c) => c.charCodeAt(0));
    const EOS = 0;
    const scorer = executionScorer({
      pool: new SandboxPool({ concurrency: 2 }),
      prompts: [{ prompt: '# add\n', tests: ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'] }, { prompt: '# no tests\n' }],
      decode,
      stopTokenIds: [EOS],
      template: 'raw',
    });
    const sample = (promptIndex: number, code: string, eos = true) => ({
      promptIndex,
      promptIds: [1],
      responseIds: [...encode(code), ...(eos ? [EOS] : [])],
      endedWithEos: eos,
    });
    const scores = await scorer([
      sample(0, 'def add(a, b):\n    return a + b\n'),
      sample(0, 'def add(a, b):\n    return a - b\n', false),
      sample(0, 'def add(a, b) return\n'),
      sample(1, 'def add(a, b):\n    return a + b\n'),
    ]);
    expect(scores[0]).toBeCloseTo(1, 6); // syntax + all tests + quality
    expect(scores[1]).toBeGreaterThan(scores[2]); // runs, passes add(0, 0) only
    expect(scores[1]).toBeLessThan(scores[0]);
    expect(scores[2]).toBeLessThan(0.2); // syntax error
    expect(scores[3]).toBe(0);
  });
});
