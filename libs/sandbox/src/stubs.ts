// Trivial programs for a problem: the baselines no reward may pay and every evaluation shows as rows (`stub:<what>`).
// If one of them scores above a trained model on some metric, that metric measures something other than solving the
// problem. They need only what any problem in MBPP's form gives: the tests (which function they call, with how many
// arguments), and optionally the reference code (its parameter names) and the prompt.
import { CODE, scanPython } from './pyscan';

/** Python's builtins and common names that tests call without the solution defining them. */
const NOT_SOLUTION = new Set(
  ('abs all any ascii bin bool bytearray bytes callable chr complex dict dir divmod enumerate eval filter float format ' +
    'frozenset getattr globals hasattr hash hex id input int isinstance issubclass iter len list locals map max min next ' +
    'object oct open ord pow print range repr reversed round set setattr slice sorted str sum super tuple type vars zip ' +
    'isclose assert not and or in is lambda').split(' '),
);

/**
 * The functions a problem's tests call that a solution must define: identifiers followed by `(`, not after a `.`,
 * not Python builtins, not defined by the setup code. In the order the tests first call them.
 */
export function calledFunctions(tests: readonly string[], setup = ''): string[] {
  const names = new Set<string>();
  for (const t of tests) {
    for (const m of t.matchAll(/(?<![.\w])([A-Za-z_]\w*)\s*\(/g)) if (!NOT_SOLUTION.has(m[1])) names.add(m[1]);
  }
  const defined = new Set([...setup.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)/gm)].map((m) => m[1]));
  return [...names].filter((n) => !defined.has(n));
}

/** Number of arguments of the first call `name(...)` in `src` (commas at the call's own bracket depth), or null. */
export function callArity(src: string, name: string): number | null {
  const m = new RegExp(`(?<![.\\w])${name}\\s*\\(`).exec(src);
  if (!m) return null;
  const scan = scanPython(src);
  const open = m.index + m[0].length - 1;
  const inner = scan.depth[open + 1];
  let commas = 0;
  let sawArg = false;
  for (let i = open + 1; i < src.length; i++) {
    if (scan.kind[i] === CODE && scan.depth[i + 1] < inner) return sawArg ? commas + 1 : 0; // the closing bracket
    if (scan.kind[i] !== CODE || scan.depth[i] !== inner) {
      sawArg = true;
      continue;
    }
    const c = src[i];
    if (c === ',') {
      // a trailing comma before ")" does not start another argument
      const rest = src.slice(i + 1).trimStart();
      if (!rest.startsWith(')')) commas++;
    } else if (c.trim() !== '') sawArg = true;
  }
  return null;
}

/** Parameter names of `def name(...)` in `code` (annotations and defaults dropped), or null when it has none. */
export function parameterNames(code: string, name: string): string[] | null {
  const m = new RegExp(`^[ \\t]*(?:async[ \\t]+)?def[ \\t]+${name}[ \\t]*\\(([^)]*)\\)`, 'm').exec(code);
  if (!m) return null;
  const params = m[1]
    .split(',')
    .map((p) => p.trim().split(/[:=]/)[0].trim())
    .filter((p) => p !== '' && p !== '/' && p !== '*' && p !== 'self');
  return params;
}

export interface StubProblem {
  prompt: string;
  tests: readonly string[];
  setup?: string;
  /** A reference solution, when known: the stubs take its parameter names. */
  code?: string;
}

export interface Stub {
  /** `stub:<what>`, e.g. `stub:pass`: the row's name in eval tables. */
  name: string;
  /** The response text (what a model would have answered after the prompt). */
  response: string;
}

/** Each stub's function body, given the name of the function's first parameter (null when it has none). */
const BODIES: readonly { what: string; body: (first: string | null) => string }[] = [
  { what: 'pass', body: () => 'pass' },
  { what: 'return-none', body: () => 'return None' },
  { what: 'return-0', body: () => 'return 0' },
  { what: 'return-1', body: () => 'return 1' },
  { what: 'return-true', body: () => 'return True' },
  { what: 'return-false', body: () => 'return False' },
  { what: 'return-empty-list', body: () => 'return []' },
  { what: 'return-empty-string', body: () => "return ''" },
  { what: 'echo-arg', body: (first) => (first === null ? 'return None' : `return ${first}`) },
];

/** The names of every stub, in the order stubPrograms returns them. */
export const STUB_NAMES: readonly string[] = ['stub:empty', ...BODIES.map((b) => `stub:${b.what}`), 'stub:copy-prompt'];

/**
 * The trivial answers to a problem: nothing at all, the function the tests call with a trivial body (`pass`,
 * constant returns, returning its first argument unchanged), and a copy of the prompt. The function's parameters are
 * the reference's when `code` defines it, else `a, b, ...` as many as the first test passes it.
 */
export function stubPrograms(p: StubProblem): Stub[] {
  const fn = calledFunctions(p.tests, p.setup)[0] ?? 'solution';
  const arity = p.tests.map((t) => callArity(t, fn)).find((n) => n !== null) ?? 1;
  const params = (p.code ? parameterNames(p.code, fn) : null) ?? Array.from({ length: arity }, (_, i) => String.fromCharCode(97 + i));
  const def = `def ${fn}(${params.join(', ')}):\n`;
  return [
    { name: 'stub:empty', response: '' },
    ...BODIES.map((b) => ({ name: `stub:${b.what}`, response: `${def}    ${b.body(params[0] ?? null)}\n` })),
    { name: 'stub:copy-prompt', response: p.prompt },
  ];
}
