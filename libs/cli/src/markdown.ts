// The one markdown-table writer of the project: eval.md (offline and tool use), the corpus and suite READMEs, the A/B
// analysis, the simulated user's summary, and the latency and GEMM bench tables all go through markdownTable, so every
// table reads the same in a terminal and renders the same on GitHub. Cells are padded to their column's width (a
// column is at least 3 wide: the delimiter row needs 3 dashes). A `|` in a cell is escaped as `\|` (GitHub renders it
// as the character, inside code spans too), so a model or task name with a pipe cannot break a report; a line break
// cannot be written in a cell and is an error.

/** How a column's cells are aligned: text left, numbers right. */
export type ColumnAlign = 'left' | 'right';

/**
 * A markdown table: the header, a delimiter row that carries each column's alignment, then the rows, every cell padded
 * to its column's width. `align` gives one alignment per column; without it the first column is left-aligned and the
 * others right-aligned (a name, then figures).
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], options: { align?: readonly ColumnAlign[] } = {}): string {
  const align = options.align ?? header.map((_, c) => (c === 0 ? 'left' : 'right'));
  if (align.length !== header.length) throw new Error(`markdown table: ${align.length} alignments for ${header.length} columns`);
  rows.forEach((r, i) => {
    if (r.length !== header.length) throw new Error(`markdown table: row ${i + 1} has ${r.length} cells, the header ${header.length}: ${r.join(' | ')}`);
  });
  const escaped = [header, ...rows].map((r) => r.map(escapeCell));
  const widths = header.map((_, c) => Math.max(3, ...escaped.map((r) => r[c].length)));
  const line = (cells: readonly string[]) => '| ' + cells.map((x, c) => (align[c] === 'left' ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join(' | ') + ' |';
  const rule = '| ' + widths.map((w, c) => (align[c] === 'left' ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ') + ' |';
  return [line(escaped[0]), rule, ...escaped.slice(1).map(line)].join('\n');
}

/** A cell's text with `|` escaped; a line break is an error (it would end the row). */
function escapeCell(text: string): string {
  if (/[\r\n]/.test(text)) throw new Error(`markdown table: a cell cannot hold a line break: ${JSON.stringify(text)}`);
  return text.replace(/\|/g, '\\|');
}
