import { spawnSync } from 'child_process';
import * as path from 'path';
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

describe('checkSyntax: its long-lived checker process', () => {
  it('answers a call after one that timed out (its process killed, a fresh one started)', async () => {
    const huge = 'x = 1\n'.repeat(2_000_000); // ~12 MB: compiling it takes far longer than 1 ms
    await expect(checkSyntax([huge], { timeoutMs: 1 })).rejects.toThrow(/checkSyntax: the python checker failed \(timed out after 1 ms\)/);
    expect(await checkSyntax(['x = 1\n', 'x = = 1\n'])).toEqual([true, false]);
  });

  it('answers concurrent calls each with its own results', async () => {
    const calls = Array.from({ length: 20 }, (_, i) => checkSyntax([`a${i} = ${i}\n`, i % 2 ? `b = (${i}\n` : `b = ${i}\n`]));
    const answers = await Promise.all(calls);
    answers.forEach((ok, i) => expect(ok).toEqual([true, i % 2 === 0]));
  });

  it('does not keep a program alive after its last call', () => {
    const script = "import('./libs/sandbox/src/index.ts').then(async (m) => console.log(JSON.stringify(await (m.checkSyntax ?? m.default.checkSyntax)(['x = 1', 'x ='])))) ";
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.join(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 });
    expect(r.error).toBeUndefined();
    expect(r.stdout.trim()).toBe('[true,false]');
    expect(r.status).toBe(0);
  });
});
