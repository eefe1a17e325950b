import { SandboxPool, stubPrograms } from '@rlhf-code/sandbox';
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
    expect(scores[0]).toBe(1); // every test passes
    expect(scores[1]).toBe(0); // runs, passes add(0, 0) only: no partial credit
    expect(scores[2]).toBeCloseTo(-0.1, 12); // syntax error: the shaping penalty
    expect(scores[3]).toBe(0);
  });

  it('pays no stub anything: the empty answer, pass, constant returns, echoing an argument, a copy of the prompt', async () => {
    const decode = (ids: number[]) => String.fromCharCode(...ids);
    const encode = (s: string) => [...s].map((c) => c.charCodeAt(0));
    // tests a stub partly satisfies (False == 0 and an echo of 0, an empty list, a fixed point)
    const prompts = [
      { prompt: '# Write a function is_even(n).\n# assert is_even(4) == True\n', tests: ['assert is_even(4) == True', 'assert is_even(3) == False', 'assert is_even(0) == True'] },
      { prompt: '# Write a function double_all(xs).\n# assert double_all([1]) == [2]\n', tests: ['assert double_all([1]) == [2]', 'assert double_all([]) == []', 'assert double_all([0]) == [0]'] },
    ];
    const scorer = executionScorer({ pool: new SandboxPool({ concurrency: 2 }), prompts, decode, stopTokenIds: [0], template: 'raw' });
    const stubs = prompts.flatMap((p, promptIndex) => stubPrograms(p).map((s) => ({ promptIndex, promptIds: [1], responseIds: [...encode(s.response), 0], endedWithEos: true })));
    expect(stubs.length).toBeGreaterThanOrEqual(20);
    expect(await scorer(stubs)).toEqual(stubs.map(() => 0));
  });
});
