// markdownTable against tables written out by hand: alignment, padding, the 3-wide minimum, escaped pipes, and the
// errors for a row of the wrong length, a wrong number of alignments and a line break in a cell.
import { markdownTable } from './markdown';

describe('markdownTable', () => {
  it('pads every cell to its column; first column left, the others right by default', () => {
    expect(markdownTable(['model', 'pass@1'], [['sft', '0.250'], ['rl_longer', '1']])).toBe(
      ['| model     | pass@1 |', '| --------- | -----: |', '| sft       |  0.250 |', '| rl_longer |      1 |'].join('\n'),
    );
  });

  it('takes one alignment per column', () => {
    expect(markdownTable(['package', 'version', 'files'], [['numpy', '1.24', '7']], { align: ['left', 'left', 'right'] })).toBe(
      ['| package | version | files |', '| ------- | ------- | ----: |', '| numpy   | 1.24    |     7 |'].join('\n'),
    );
  });

  it('makes a column at least 3 wide, so its delimiter has 3 characters', () => {
    expect(markdownTable(['a', 'n'], [['x', '1']])).toBe(['| a   |   n |', '| --- | --: |', '| x   |   1 |'].join('\n'));
  });

  it('writes a header alone when there are no rows', () => {
    expect(markdownTable(['form', 'clients'], [])).toBe(['| form | clients |', '| ---- | ------: |'].join('\n'));
  });

  it('escapes | in a cell and counts the escape in the width', () => {
    expect(markdownTable(['op', 'n'], [['a|b', '2']])).toBe(['| op   |   n |', '| ---- | --: |', '| a\\|b |   2 |'].join('\n'));
  });

  it('rejects a row of the wrong length, a wrong number of alignments and a line break', () => {
    expect(() => markdownTable(['a', 'b'], [['1']])).toThrow('markdown table: row 1 has 1 cells, the header 2: 1');
    expect(() => markdownTable(['a', 'b'], [], { align: ['left'] })).toThrow('markdown table: 1 alignments for 2 columns');
    expect(() => markdownTable(['a'], [['x\ny']])).toThrow('markdown table: a cell cannot hold a line break: "x\\ny"');
  });
});
