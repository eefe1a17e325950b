// Hindsight: what was written at a cursor, read from other requests' code, and the suggestion compared with it.
import { ANCHOR_BEFORE, hindsightFeatures, MAX_WRITTEN, writtenAt } from './hindsight';

const file = [
  'import os',
  '',
  'def total(items):',
  '    """Sum the prices of the items in the basket."""',
  '    result = 0',
  '    for item in items:',
  '        result += item.price',
  '    return result',
  '',
  'def main():',
  '    print(total([]))',
  '',
].join('\n');

/** The code around a cursor at `at` with `middle` (what the user writes there) taken out, as a request shows it. */
function cursor(middle: string): { prefix: string; suffix: string } {
  const at = file.indexOf(middle);
  return { prefix: file.slice(0, at), suffix: file.slice(at + middle.length) };
}

test('what was written at a cursor: read between its surroundings in another request of the same file', () => {
  const here = cursor('result += item.price');
  const later = cursor('print(total([]))'); // a cursor further down: its prefix holds the line written above
  const earlier = cursor('import os'); // a cursor above: its suffix holds it
  expect(writtenAt(here, [later])).toBe('result += item.price');
  expect(writtenAt(here, [earlier])).toBe('result += item.price');
  // The request itself, and a request whose own cursor is inside the spot, show nothing of it.
  expect(writtenAt(here, [here])).toBeNull();
  expect(writtenAt(here, [cursor('item.price')])).toBeNull();
  // Another file: nothing.
  expect(writtenAt(here, [{ prefix: 'x = 1\n'.repeat(40), suffix: '' }])).toBeNull();
  // Nothing written (the user went on below): the empty string, not null.
  const empty = { prefix: file.slice(0, file.indexOf('def main')), suffix: file.slice(file.indexOf('def main')) };
  expect(writtenAt(empty, [later])).toBe('');
});

test('too little code around the cursor, an ambiguous anchor or a gap longer than MAX_WRITTEN: not read', () => {
  expect(writtenAt({ prefix: 'x = ', suffix: '\n    return result\n' }, [cursor('print(total([]))')])).toBeNull();
  // The text before the cursor found twice in the other request: which spot is meant is unknown.
  const block = 'a'.repeat(ANCHOR_BEFORE);
  const twice = { prefix: `${block}X${block}Y\nsuffix after it here\n`, suffix: '' };
  expect(writtenAt({ prefix: block, suffix: 'Y\nsuffix after it here\n' }, [twice])).toBeNull();
  const far = { prefix: `${block}${'z'.repeat(MAX_WRITTEN + 1)}after the gap, text\n`, suffix: '' };
  expect(writtenAt({ prefix: block, suffix: 'after the gap, text\n' }, [far])).toBeNull();
  expect(writtenAt({ prefix: block, suffix: 'after the gap, text\n' }, [{ prefix: `${block}${'z'.repeat(MAX_WRITTEN)}after the gap, text\n`, suffix: '' }])).toBe('z'.repeat(MAX_WRITTEN));
});

test('the suggestion against what was written: first line equal, its edit share, agreement from the start, blank', () => {
  expect(hindsightFeatures('result += item.price', 'result += item.price')).toEqual([1, 0, 1, 0]);
  // A right first line followed by a wrong one: equal first line, half the shown characters agree.
  const [exact, edit, agree, blank] = hindsightFeatures('a = 1\nb = 2', 'a = 1\nc = 3');
  expect([exact, edit, blank]).toEqual([0 + 1, 0, 0]);
  expect(agree).toBeCloseTo(6 / 11);
  // One character off in a 20-character line: edit share 1/20, not equal.
  expect(hindsightFeatures('result += item.prize', 'result += item.price').slice(0, 2)).toEqual([0, 1 / 20]);
  // Indentation and trailing spaces do not count against a line.
  expect(hindsightFeatures('    x = 1  ', 'x = 1')[0]).toBe(1);
  // The user wrote nothing there: whatever is shown is not their line.
  expect(hindsightFeatures('x = 1', '\n')).toEqual([0, 1, 0, 1]);
});
