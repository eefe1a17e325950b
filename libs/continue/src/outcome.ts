// What Continue's completion tracking (RLinf's fork of Continue 1.3.9) posts when a suggestion is accepted (Tab) or
// rejected: its AutocompleteOutcome. Upstream Continue posts the same outcome inside a dev-data event (dev-data.ts).
// Only prompt, completion and accepted are required; the other known fields are checked when present, and any
// unknown field is kept as is (Continue adds tabAutocompleteOptions keys, and versions differ).
import { z } from 'zod';

export const AutocompleteOutcomeSchema = z.looseObject({
  /** Continue's own id of the suggestion (a UUID); duplicates count once. */
  completionId: z.string().optional(),
  /** The full prompt sent to the completion server (FIM form). */
  prompt: z.string(),
  /** What Continue showed (may be a cut-down version of what the server generated). */
  completion: z.string(),
  accepted: z.boolean(),
  prefix: z.string().optional(),
  suffix: z.string().optional(),
  filepath: z.string().optional(),
  modelProvider: z.string().optional(),
  modelName: z.string().optional(),
  /** Milliseconds the completion took. */
  time: z.number().optional(),
  /** True when Continue reused a cached completion instead of asking the server. */
  cacheHit: z.boolean().optional(),
  numLines: z.number().optional(),
  timestamp: z.union([z.string(), z.number()]).optional(),
  uniqueId: z.string().optional(),
  completionOptions: z.unknown().optional(),
});

export type AutocompleteOutcome = z.output<typeof AutocompleteOutcomeSchema>;

/** A validation problem worded for an HTTP client: the field it is about and what is wrong. */
export interface FieldProblem {
  field: string;
  message: string;
}

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The value at `path` inside `body` (undefined when any step is missing or not an object). */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** A zod issue worded for a client: its dotted path (e.g. `data.accepted`) and what is wrong, never the value itself. */
export function problemOf(issue: z.core.$ZodIssue, body: unknown): FieldProblem {
  const field = issue.path.map(String).join('.') || '(body)';
  const raw = valueAt(body, issue.path);
  const message =
    issue.code === 'invalid_type' && raw === undefined && issue.path.length > 0
      ? `missing (expected ${issue.expected})`
      : issue.code === 'invalid_type'
        ? `expected ${issue.expected}, received ${jsonType(raw)}`
        : issue.message;
  return { field, message };
}

/** Check a parsed body; on failure name the first bad field (e.g. `accepted: expected boolean, received string`). */
export function parseOutcome(body: unknown): { ok: true; value: AutocompleteOutcome } | { ok: false; problem: FieldProblem } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problem: { field: '(body)', message: `expected a JSON object, received ${jsonType(body)}` } };
  }
  const r = AutocompleteOutcomeSchema.safeParse(body);
  return r.success ? { ok: true, value: r.data } : { ok: false, problem: problemOf(r.error.issues[0], body) };
}
