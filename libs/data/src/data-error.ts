// DataError: every problem with a dataset file is reported as "file:line: field "x": what is wrong",
// so the user can jump straight to the bad line. One error may carry many problems (one per bad line or field)
// so a broken file is fixed in one pass instead of one rerun per mistake.

/** One problem with one line of a data file. `message` is the text after the location. */
export interface DataProblem {
  file: string;
  /** 1-based line number; absent for whole-file problems (missing file, empty dataset). */
  line?: number;
  /** Field path inside the record, e.g. `response` or `tests[2]`; absent when the whole line is bad. */
  field?: string;
  message: string;
}

/** `data/sft.jsonl:17: field "response": expected string, received number` */
export function formatProblem(p: DataProblem): string {
  const where = p.line === undefined ? p.file : `${p.file}:${p.line}`;
  const field = p.field === undefined ? '' : `field "${p.field}": `;
  return `${where}: ${field}${p.message}`;
}

export class DataError extends Error {
  override readonly name = 'DataError';
  /** Location of the first problem (the whole error when there is just one). */
  readonly file: string;
  readonly line?: number;
  readonly field?: string;
  /** The problems shown in the message (capped, see readJsonl's maxErrors). */
  readonly problems: readonly DataProblem[];
  /** Number of distinct bad lines in the file (may exceed problems.length). */
  readonly badLines: number;

  constructor(message: string, problems: readonly DataProblem[], badLines = problems.length) {
    super(message);
    if (problems.length === 0) throw new Error('DataError needs at least one problem');
    this.file = problems[0].file;
    this.line = problems[0].line;
    this.field = problems[0].field;
    this.problems = problems;
    this.badLines = badLines;
  }

  /** An error for exactly one problem; its message is the formatted problem. */
  static of(problem: DataProblem): DataError {
    return new DataError(formatProblem(problem), [problem], problem.line === undefined ? 0 : 1);
  }
}
