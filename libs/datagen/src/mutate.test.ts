// Mutations: each really changes the code; syntax-breaking ones never compile, logic ones always do
// (checked by python through checkSyntax, over small hand-made cases and over every MBPP reference).
import { readFileSync } from 'fs';
import * as path from 'path';
import { dataRandom } from '@rlhf-code/data';
import { LOGIC_MUTATIONS, mutants, mutate, MUTATIONS, SYNTAX_MUTATIONS, type MutationKind } from './mutate';
import { checkSyntax } from '@rlhf-code/sandbox';

const SAMPLES = [
  'def add(a, b):\n    return a + b\n',
  [
    'def max_run(xs):',
    '    best = cur = 0',
    '    for i in range(1, len(xs)):',
    '        if xs[i] == xs[i - 1]:  # same as before',
    '            cur += 1',
    '        else:',
    '            cur = 0',
    '        best = max(best, cur)',
    '    return best + 1',
    '',
  ].join('\n'),
  [
    'import re',
    'def words(text):',
    "\tparts = re.split(r'[,;: ]+', text)",
    '\tout = []',
    '\tfor p in parts:',
    '\t\tif len(p) > 2 and p[0] != "#":',
    '\t\t\tout.append(p.lower())',
    '\treturn (out)',
  ].join('\n'),
  'def area(r):\n    """Area of a circle: pi * r ** 2 (r > 0)."""\n    pi = 3.14159\n    return pi * r ** 2 / 1e-0\n',
];

const isSyntax = (k: MutationKind) => (SYNTAX_MUTATIONS as readonly string[]).includes(k);

describe('mutate', () => {
  it('changes the code, breaking syntax or only logic as its kind says', async () => {
    const cases: { kind: MutationKind; code: string }[] = [];
    for (const code of SAMPLES) {
      for (const kind of MUTATIONS) {
        for (let seed = 0; seed < 5; seed++) {
          const m = mutate(code, kind, dataRandom(seed));
          if (m === null) continue;
          expect(m).not.toBe(code);
          cases.push({ kind, code: m });
        }
      }
    }
    // every kind applies to at least one sample
    expect(new Set(cases.map((c) => c.kind))).toEqual(new Set(MUTATIONS));
    const ok = await checkSyntax(cases.map((c) => c.code));
    const wrong = cases.filter((c, i) => ok[i] === isSyntax(c.kind));
    expect(wrong).toEqual([]);
  });

  it('edits exactly where expected on one-site examples', () => {
    const r = dataRandom(1);
    expect(mutate('def f(x):\n    return x\n', 'drop_colon', r)).toBe('def f(x)\n    return x\n');
    expect(mutate('y = g(x)\n', 'unbalance_bracket', r)).toBe('y = g(x\n');
    expect(mutate('if a == b: pass\n', 'swap_comparison', r)).toBe('if a != b: pass\n');
    expect(mutate('z = a - b\n', 'swap_arithmetic', r)).toBe('z = a + b\n');
    expect(mutate('x = 1\ny = 2\n', 'bad_indent', dataRandom(0))).toMatch(/^( x = 1\ny = 2\n|x = 1\n y = 2\n)$/);
    expect(mutate('for i in range(n): pass\n', 'off_by_one', r)).toMatch(/^for i in range\(n [+-] 1\): pass\n$/);
    expect(mutate('v = xs[0]\n', 'off_by_one', r)).toMatch(/^v = xs\[(1|-1)\]\n$/);
    expect(mutate('def f(a):\n    b = a\n    return a\n', 'delete_line', r)).toBe('def f(a):\n    return a\n');
  });

  it('replaces a returned expression by another name or a constant', () => {
    const code = 'def f(a, b):\n    total = a + b\n    return total\n';
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++) seen.add(mutate(code, 'wrong_return', dataRandom(seed))!.split('\n')[2]);
    expect(seen.has('    return a')).toBe(true);
    expect(seen.has('    return None')).toBe(true);
    expect(seen.has('    return total')).toBe(false);
  });

  it('leaves strings, comments, unary minus, exponents and arrows alone', () => {
    const r = dataRandom(0);
    expect(mutate('s = "a < b"  # x > y\n', 'swap_comparison', r)).toBeNull();
    expect(mutate("s = '(x'\n", 'unbalance_bracket', r)).toBeNull();
    expect(mutate('def f() -> int:\n    return -1 if x else 1e-5\n', 'swap_arithmetic', r)).toBeNull();
    expect(mutate('f(*args, **kwargs)\n', 'swap_arithmetic', r)).toBeNull();
    expect(mutate('x = 1 << 2 >> 1\n', 'swap_comparison', r)).toBeNull();
  });

  it('never empties a block when deleting a line', () => {
    expect(mutate('def f():\n    return 1\n', 'delete_line', dataRandom(0))).toBeNull();
    expect(mutate('if x:\n    y = 1\nz = 2\n', 'delete_line', dataRandom(0))).toBe('if x:\n    y = 1\n');
  });
});

describe('mutants', () => {
  it('is deterministic for a seed and varies across seeds', () => {
    const code = SAMPLES[1];
    expect(mutants(code, 7)).toEqual(mutants(code, 7));
    const variants = new Set([0, 1, 2, 3, 4, 5].map((s) => JSON.stringify(mutants(code, s))));
    expect(variants.size).toBeGreaterThan(1);
  });

  it('gives distinct mutants, at most perKind of each kind', () => {
    const ms = mutants(SAMPLES[1], 3, { perKind: 3 });
    expect(new Set(ms.map((m) => m.code)).size).toBe(ms.length);
    for (const kind of MUTATIONS) expect(ms.filter((m) => m.kind === kind).length).toBeLessThanOrEqual(3);
    expect(ms.filter((m) => m.kind === 'truncate')).toHaveLength(3);
    expect(ms.every((m) => m.code !== SAMPLES[1])).toBe(true);
  });

  it('respects the kinds it is given, in order', () => {
    expect(mutants(SAMPLES[0], 0, { kinds: LOGIC_MUTATIONS }).map((m) => m.kind)).toEqual(['swap_arithmetic', 'wrong_return']);
  });

  it('keeps its promise on every MBPP reference solution', async () => {
    const file = path.join(__dirname, '../../../data/mbpp/mbpp.jsonl');
    const refs = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { code: string }).code.replace(/\r\n/g, '\n'));
    expect(refs.length).toBe(974);
    const all = refs.flatMap((code, i) => mutants(code, i));
    const ok = await checkSyntax(all.map((m) => m.code));
    const wrong = all.filter((m, i) => ok[i] === isSyntax(m.kind)).map((m) => `${m.kind}:\n${m.code}`);
    expect(wrong).toEqual([]);
    expect(all.length).toBeGreaterThan(974 * 6);
  });
});
