import { formatFim, formatRepoHeader } from '@rlhf-code/tokenizer';
import { ServedIndex } from './served-index';
import { servedRecord } from '@rlhf-code/online-core/testing';

const rec = servedRecord;

describe('matching an outcome to the completion it is about', () => {
  const prompt = formatFim('def f(x):\n    return ', '\n\nprint(f(1))\n');
  const stats = new ServedIndex();
  stats.remember(rec('a', prompt), prompt, 'x + 1');

  test('the same prompt: the whole suggestion, and the model ended it itself -> eos', () => {
    expect(stats.match(prompt, 'x + 1')).toEqual({ id: 'a', version: 0, arm: 'policy', typed: 0, eos: true });
    expect(stats.match(prompt, 'x')).toMatchObject({ id: 'a', eos: false }); // Continue showed part of it
  });

  test('typed through: the prefix grew by the start of the suggestion, same suffix', () => {
    const typed = formatFim('def f(x):\n    return x', '\n\nprint(f(1))\n');
    expect(stats.match(typed, ' + 1')).toEqual({ id: 'a', version: 0, arm: 'policy', typed: 1, eos: true });
    expect(stats.match(formatFim('def f(x):\n    return y', '\n\nprint(f(1))\n'), ' + 1')).toBeNull(); // not what was suggested
    expect(stats.match(formatFim('def f(x):\n    return x', '\n'), ' + 1')).toBeNull(); // another suffix
    expect(stats.match('plain text', 'x')).toBeNull();
  });

  test('a repository header is part of the context: another header is another context', () => {
    const repo = { name: 'r', files: [{ path: 'a.py', content: 'A = 1' }], path: 'b.py' };
    const withHeader = formatRepoHeader(repo) + formatFim('y = ', '\n');
    const s = new ServedIndex();
    s.remember(rec('h', withHeader, { endedByModel: false }), withHeader, 'A + 1');
    expect(s.match(formatRepoHeader(repo) + formatFim('y = A', '\n'), ' + 1')).toEqual({ id: 'h', version: 0, arm: 'policy', typed: 1, eos: false });
    expect(s.match(formatRepoHeader({ ...repo, path: 'c.py' }) + formatFim('y = A', '\n'), ' + 1')).toBeNull();
  });
});

