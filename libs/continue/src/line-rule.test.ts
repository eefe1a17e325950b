import { isMultiline, LineRule, lineBelowCursor, lineRuleFor, wholeCut } from './line-rule';

/** Feed `text` one character at a time at the given clock; the first cut, or null. */
function run(rule: LineRule, text: string, clock: (i: number) => number = () => 0): number | null {
  for (let i = 1; i <= text.length; i++) {
    const cut = rule.cut(text.slice(0, i), clock(i));
    if (cut !== null) return cut;
  }
  return null;
}

const multi = (lineBelow = '', showWithinMs = Infinity) => new LineRule({ multiline: true, showWithinMs, lineBelow });

test("multilineCompletions auto: several lines unless the cursor's line is a comment (Continue's Python rule)", () => {
  expect(isMultiline('auto', 'def f(x):\n    ')).toBe(true);
  expect(isMultiline('auto', 'x = 1\n    # compute the ')).toBe(false);
  expect(isMultiline('auto', 'y = f(1)  # not a comment line: code first ')).toBe(true);
  expect(isMultiline('never', 'def f(x):\n    ')).toBe(false);
  expect(isMultiline('always', '# a comment ')).toBe(true);
});

test('the line below the cursor is the first non-blank line after the cursor line', () => {
  expect(lineBelowCursor(')\n\n    return y\nz = 1\n')).toBe('    return y');
  expect(lineBelowCursor('\n')).toBe('');
  expect(lineBelowCursor('')).toBe('');
  expect(lineRuleFor({ prefix: '# c ', suffix: '\nx\n' }, 'auto', 150)).toEqual({ multiline: false, showWithinMs: 150, lineBelow: 'x' });
});

test('single line: ends at the first newline, even one at the start (Continue then shows nothing)', () => {
  const single = () => new LineRule({ multiline: false, showWithinMs: Infinity, lineBelow: '' });
  expect(run(single(), 'total = a + b\n    return total')).toBe('total = a + b'.length);
  expect(run(single(), '\n    return 1')).toBe(0);
  expect(run(single(), 'no newline yet')).toBeNull();
});

test('multi-line: a blank line after the first ends it, a leading newline does not', () => {
  expect(run(multi(), 'a = 1\nb = 2\n\nc = 3\n')).toBe('a = 1\nb = 2'.length);
  expect(run(multi(), '\n    x = 1\n    y = 2')).toBeNull();
  expect(run(multi(), '\n    x = 1\n   \n')).toBe('\n    x = 1'.length); // whitespace-only counts as blank
});

test('multi-line: stops before a line equal to the line below the cursor, or a third identical line', () => {
  expect(run(multi('    return y'), '    y = x * 2\n    return y\n')).toBe('    y = x * 2'.length);
  expect(run(multi('return y'), '    return y\n')).toBe(0); // trimmed equality, first line: nothing to show
  expect(run(multi(')'), 'f(a,\n)\n  b\n')).toBeNull(); // a closing-bracket line below may be repeated
  expect(run(multi(), 'x\nx\nx\ny\n')).toBe('x\nx'.length);
});

test("the 150 ms rule: the first line finished after the deadline ends it, once a non-blank line is out; the clock is read as each line ends", () => {
  const text = '\n    a = 1\n    b = 2\n    c = 3\n';
  const at = (ms: number) => () => ms;
  expect(run(multi('', 150), text, at(10))).toBeNull(); // fast: every line
  expect(run(multi('', 150), text, at(200))).toBe('\n    a = 1'.length); // slow: the first non-blank line only
  // Line "a" ends at 100 ms, line "b" at 180 ms: Continue shows both (it checked at 100 ms, then stops at 180 ms).
  const clock = (i: number) => (i <= '\n    a = 1\n'.length ? 100 : 180);
  const rule = multi('', 150);
  expect(run(rule, text, clock)).toBe('\n    a = 1\n    b = 2'.length);
  // A later call with a later clock does not move the cut back to line "a".
  expect(rule.cut(text, 10_000)).toBe('\n    a = 1\n    b = 2'.length);
});

test('a suggestion that arrives whole: past 150 ms only its first non-blank line is shown; in time, all of it (the same rules otherwise)', () => {
  const o = { multiline: true, showWithinMs: 150, lineBelow: '' };
  const text = '\n    a = 1\n    b = 2';
  expect(wholeCut(text, o, 200)).toBe('\n    a = 1'.length);
  expect(wholeCut(text, o, 100)).toBe(text.length);
  expect(wholeCut('x = 1\n\ny = 2', o, 100)).toBe('x = 1'.length); // a blank line ends it whatever the time
  expect(wholeCut('a = 1\nb = 2', { ...o, multiline: false }, 0)).toBe('a = 1'.length);
  expect(wholeCut('', o, 200)).toBe(0);
  expect(wholeCut('x = 1\n', o, 100)).toBe('x = 1\n'.length); // a final newline (before the end token) is not a blank line
});
