// Judging an episode: the answer as a whole token of the final reply, or the reply's code through the task's tests.
import { SandboxPool } from '@rlhf-code/sandbox';
import type { Episode } from './episode';
import { answerMatches, judgeEpisodes } from './judge';

jest.setTimeout(30_000);

test('answerMatches: the answer as a whole token of the reply', () => {
  expect(answerMatches('The answer is 43.', '43')).toBe(true);
  expect(answerMatches('43', '43')).toBe(true);
  expect(answerMatches('It is 143.', '43')).toBe(false);
  expect(answerMatches('about 43.5', '43')).toBe(false);
  expect(answerMatches('-7 is the 3rd smallest', '-7')).toBe(true);
  expect(answerMatches('x is -7', '7')).toBe(false);
  expect(answerMatches("The result is 'Cc bb aa'", 'cc bb aa')).toBe(true);
});

test('judgeEpisodes: answers by value, tests by running the fenced code', async () => {
  const ep = (finalText: string) => ({ finalText }) as Episode;
  const tasks = [
    { question: 'q', answer: '42' },
    { question: 'q', tests: ['assert add(1, 2) == 3', 'assert add(0, 0) == 0'] },
    { question: 'q', tests: ['assert add(1, 2) == 3'] },
  ];
  const pool = new SandboxPool({ concurrency: 2 });
  const good = await judgeEpisodes([ep('The answer is 42.'), ep('Here:\n```python\ndef add(a, b):\n    return a + b\n```'), ep('```python\ndef add(a, b):\n    return a - b\n```')], tasks, pool);
  expect(good).toEqual([true, true, false]);
  expect(await judgeEpisodes([ep('It is 420.')], tasks, pool)).toEqual([false]);
});
