import { CODE, COMMENT, QUOTE, STRING, endsOnSameLine, endsWithColon, followsHeader, scanPython, startsStatement } from './pyscan';

const kinds = (src: string) => Array.from(scanPython(src).kind).join('');

describe('scanPython', () => {
  it('tells code, strings and comments apart', () => {
    // x = 'a#' # c
    expect(kinds("x = 'a#' # c")).toBe(`${'0'.repeat(4)}${QUOTE}${STRING}${STRING}${STRING}${CODE}${COMMENT}${COMMENT}${COMMENT}`);
    expect(kinds('"a\\"b"')).toBe(`${QUOTE}${STRING.toString().repeat(5)}`);
    expect(kinds('"""a\n"b"\n"""x')).toBe(`${'1'.repeat(3)}${'2'.repeat(9)}0`);
  });

  it('tracks bracket depth outside strings', () => {
    const s = scanPython("f(a[1], '(')");
    expect(Array.from(s.depth)).toEqual([0, 0, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 0]);
  });

  it('finds statements, headers and continuation lines', () => {
    const src = ['def f(a,', '      b):  # header', '    x = """doc', 'more"""', '    y = 1 + \\', '        2', '    return x'].join('\n');
    const s = scanPython(src);
    expect(s.lines.map((_, i) => startsStatement(s, i))).toEqual([true, false, true, false, true, false, true]);
    expect(s.lines.map((l) => endsWithColon(s, l))).toEqual([false, true, false, false, false, false, false]);
    expect(s.lines.map((l) => endsOnSameLine(s, l))).toEqual([false, true, false, true, false, true, true]);
    expect(followsHeader(s, 2)).toBe(true);
    expect(followsHeader(s, 4)).toBe(false);
  });
});
