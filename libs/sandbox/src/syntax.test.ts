import { checkSyntax } from './index';

describe('checkSyntax', () => {
  it('answers per snippet, in order', async () => {
    const codes = [
      'def f(x):\n    return x\n',
      'def f(x)\n    return x\n', // missing colon
      'return 1\n', // parses, but compile() rejects it outside a function
      '', // an empty module is valid
      'x = (1,\n', // unclosed bracket
      'a = 1\0', // null byte
      'if True:\n\tx = 1\n        y = 2\n', // inconsistent tabs and spaces
      "s = '\\d'\n", // only a SyntaxWarning: still valid
      '(' .repeat(300) + ')'.repeat(300), // too deeply nested for the parser
    ];
    expect(await checkSyntax(codes)).toEqual([true, false, false, true, false, false, false, true, false]);
  });

  it('needs no python for an empty list', async () => {
    expect(await checkSyntax([], { python: '/nonexistent/python3' })).toEqual([]);
  });

  it('handles many snippets in one call', async () => {
    const codes = Array.from({ length: 500 }, (_, i) => (i % 2 ? `x${i} = ${i}\n` : `x${i} = = ${i}\n`));
    const ok = await checkSyntax(codes);
    expect(ok.filter(Boolean)).toHaveLength(250);
    expect(ok.slice(0, 4)).toEqual([false, true, false, true]);
  });
});
