// Turn zod issues into DataProblems worded for people editing a JSONL file:
//   field "response": expected string, received number
//   field "prompt": missing (expected string)
//   field "task_id": expected number or string, received null
// The "received" part is read from the raw JSON value (zod 4 leaves `input` out of issues by default).
import type { z } from 'zod';
import type { DataProblem } from './data-error';

type Path = readonly PropertyKey[];

/** `['tests', 2, 'x']` -> `tests[2].x` */
export function formatFieldPath(path: Path): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** JSON-level type name of a parsed value: null, array, Infinity, number, string, ... */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** Follow `path` into `root`; `found: false` when some key on the way is absent. */
function lookup(root: unknown, path: Path): { found: boolean; value?: unknown } {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) {
      return { found: false };
    }
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value };
}

/** Expected type names of a union whose options are plain types, e.g. ['number', 'string']; null otherwise. */
function unionExpected(issue: z.core.$ZodIssue): string[] | null {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return null;
  const names: string[] = [];
  for (const branch of issue.errors) {
    const [only] = branch;
    if (branch.length !== 1 || only.code !== 'invalid_type' || only.path.length !== 0) return null;
    names.push(only.expected === 'object' ? 'a JSON object' : only.expected);
  }
  return names;
}

export function issueToProblem(issue: z.core.$ZodIssue, raw: unknown, file: string, line?: number): DataProblem {
  const field = issue.path.length === 0 ? undefined : formatFieldPath(issue.path);
  const at = lookup(raw, issue.path);
  const expected =
    issue.code === 'invalid_type'
      ? [issue.expected === 'object' ? 'a JSON object' : issue.expected]
      : unionExpected(issue);
  let message: string;
  if (expected === null) message = issue.message;
  else if (!at.found) message = `missing (expected ${expected.join(' or ')})`;
  else message = `expected ${expected.join(' or ')}, received ${jsonTypeName(at.value)}`;
  return { file, ...(line === undefined ? {} : { line }), field, message };
}
