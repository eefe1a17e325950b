// Function-body completion: finding documented functions line by line, cutting the model's continuation where the
// function ends, and scoring with the real python syntax check on bodies whose outcome is known.
import { checkSyntax } from '@rlhf-code/sandbox';
import { compilingCases, cutBody, functionCases, functionSource, maxLineRepeat, scoreFunctions, selectFunctionCases } from './function-eval';

const FILE = [
  'import os',
  '',
  '',
  'def join(a, b):',
  '    """Join two paths."""',
  '    return os.path.join(a, b)',
  '',
  '',
  'class Box:',
  '    @property',
  '    async def value(self,',
  '                    default=(1, 2)):  # a comment',
  "        r'''The value,",
  '        or the default.',
  "        '''",
  '        if self.v is None:',
  '            return default',
  '',
  '        return self.v',
  '',
  '    def no_doc(self):',
  '        return 1',
  '',
  '    def only_doc(self):',
  '        """Nothing else."""',
  '',
  'x = 1',
  '',
].join('\n');

describe('functionCases', () => {
  const cases = functionCases([{ path: 'pkg/box.py', text: FILE }]);

  it('finds documented functions with a body (methods, async, multi-line signatures, raw docstrings)', () => {
    expect(cases.map((c) => [c.name, c.indent])).toEqual([
      ['join', 0],
      ['value', 4],
    ]);
    expect(cases[0]).toEqual({
      path: 'pkg/box.py',
      name: 'join',
      indent: 0,
      prompt: 'import os\n\n\ndef join(a, b):\n    """Join two paths."""\n',
      head: 'def join(a, b):\n    """Join two paths."""\n',
      reference: '    return os.path.join(a, b)\n',
      suffix: FILE.slice(FILE.indexOf('\n\nclass Box')),
    });
    for (const c of cases) expect(c.prompt + c.reference + c.suffix).toBe(FILE);
    const value = cases[1];
    expect(value.prompt.endsWith("        or the default.\n        '''\n")).toBe(true);
    expect(value.head.startsWith('    async def value(self,\n')).toBe(true); // the decorator stays in the prompt only
    expect(value.reference).toBe('        if self.v is None:\n            return default\n\n        return self.v\n');
  });

  it('functionSource dedents a method to a module of its own, which compiles', async () => {
    const src = functionSource(cases[1], cases[1].reference);
    expect(src.startsWith('async def value(self,\n')).toBe(true);
    expect(src).toContain('\n    return self.v\n');
    expect(await checkSyntax(cases.map((c) => functionSource(c, c.reference)))).toEqual([true, true]);
    expect(await compilingCases(cases, checkSyntax)).toEqual(cases);
  });

  it('reads CRLF files as LF', () => {
    expect(functionCases([{ path: 'a.py', text: FILE.replace(/\n/g, '\r\n') }])).toEqual(functionCases([{ path: 'a.py', text: FILE }]));
  });

  it('selectFunctionCases takes a seeded subset in file order', () => {
    const many = functionCases(Array.from({ length: 10 }, (_, i) => ({ path: `m${i}.py`, text: FILE })));
    const a = selectFunctionCases(many, 5, 0);
    expect(a).toHaveLength(5);
    expect(selectFunctionCases(many, 5, 0)).toEqual(a);
    expect(a).toEqual(many.filter((c) => a.includes(c)));
    expect(selectFunctionCases(many, 50, 0)).toEqual(many);
  });
});

describe('cutBody', () => {
  it('ends the body before the first complete line back at the def\'s indentation', () => {
    expect(cutBody('        return 1\n\n    def next(self):\n        pass', 4, false)).toEqual({ body: '        return 1\n', ended: true });
    expect(cutBody('    x = 1\n\nprint(x)\n', 0, false)).toEqual({ body: '    x = 1\n', ended: true });
  });

  it('a completion ended by the end token keeps all its lines; one cut by the token limit drops its partial last line', () => {
    expect(cutBody('    return a +\n    b', 0, true)).toEqual({ body: '    return a +\n    b\n', ended: true });
    expect(cutBody('    y = 2\n    return f(y,', 0, false)).toEqual({ body: '    y = 2\n', ended: false });
    // An unfinished last line at column 0 is not a dedent yet (it may become "    " + more).
    expect(cutBody('    y = 2\n', 0, false)).toEqual({ body: '    y = 2\n', ended: false });
  });

  it('a function the model ends at once has an empty body', () => {
    expect(cutBody('\nclass Next:\n', 0, false)).toEqual({ body: '', ended: true });
  });
});

describe('maxLineRepeat', () => {
  it('counts the most frequent non-blank line, trimmed', () => {
    expect(maxLineRepeat('')).toBe(0);
    expect(maxLineRepeat('    x = 1\n\n  x = 1\n    y = 2\n')).toBe(2);
    expect(maxLineRepeat('a\nb\nc\n')).toBe(1);
  });
});

describe('scoreFunctions (real python syntax check)', () => {
  const [join] = functionCases([{ path: 'box.py', text: FILE }]);

  it('compiles head + body; empty bodies and broken code are invalid', async () => {
    const completions = [
      { text: '    return a + b\n\n\ndef other():\n', stopped: false }, // valid, ended by the dedent
      { text: '    return (a +\n\ndef other():\n', stopped: false }, // open bracket
      { text: 'def other():\n', stopped: false }, // nothing written
      { text: '    if a:\n        return b\n    return', stopped: false }, // cut by the limit: the complete lines compile
    ];
    const calls: number[] = [];
    const check = async (codes: string[]) => {
      calls.push(codes.length);
      return checkSyntax(codes);
    };
    const { figures, outcomes } = await scoreFunctions([join, join, join, join], completions, check);
    expect(calls).toEqual([4]);
    expect(outcomes.map((o) => o.syntaxOk)).toEqual([true, false, false, true]);
    expect(outcomes.map((o) => o.ended)).toEqual([true, true, true, false]);
    expect(outcomes[3].body).toBe('    if a:\n        return b\n');
    expect(figures).toEqual({
      n: 4,
      syntax_valid: 0.5,
      ended_rate: 0.75,
      syntax_valid_when_ended: 1 / 3,
      empty_rate: 0.25,
      mean_body_lines: (1 + 1 + 0 + 2) / 4,
      repetitive_rate: 0,
      mean_body_lines_usable: (1 + 2) / 2,
    });
  });

  it('counts a body stuck on one line as repetitive, its lines outside the usable mean', async () => {
    const stuck = '    x = a\n' + '    x = a\n'.repeat(3) + '    return x\n'; // 5 lines, "x = a" 4 times; compiles
    const twice = '    x = a\n    x = a\n    return x\n'; // at the limit (2): not repetitive
    const { figures, outcomes } = await scoreFunctions(
      [join, join],
      [stuck, twice].map((text) => ({ text, stopped: true })),
      checkSyntax,
    );
    expect(outcomes.map((o) => [o.syntaxOk, o.repetitive])).toEqual([
      [true, true],
      [true, false],
    ]);
    expect(figures.mean_body_lines).toBe((5 + 3) / 2);
    expect(figures.repetitive_rate).toBe(0.5);
    expect(figures.mean_body_lines_usable).toBe(3);
    const none = await scoreFunctions([join], [{ text: stuck, stopped: true }], checkSyntax);
    expect(none.figures.mean_body_lines_usable).toBeNull();
  });

  it('rejects mismatched inputs', async () => {
    await expect(scoreFunctions([], [], checkSyntax)).rejects.toThrow('scoreFunctions: no functions');
    await expect(scoreFunctions([join], [], checkSyntax)).rejects.toThrow('scoreFunctions: 0 completions for 1 functions');
  });
});
