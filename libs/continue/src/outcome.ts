// What Continue's completion tracking posts when a suggestion is accepted (Tab) or rejected: its AutocompleteOutcome.
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

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Check a parsed body; on failure name the first bad field (e.g. `accepted: expected boolean, received string`). */
export function parseOutcome(body: unknown): { ok: true; value: AutocompleteOutcome } | { ok: false; problem: FieldProblem } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problem: { field: '(body)', message: `expected a JSON object, received ${jsonType(body)}` } };
  }
  const r = AutocompleteOutcomeSchema.safeParse(body);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const field = issue.path.map(String).join('.') || '(body)';
  const raw = (body as Record<string, unknown>)[String(issue.path[0])];
  const message =
    issue.code === 'invalid_type' && raw === undefined && issue.path.length === 1
      ? `missing (expected ${issue.expected})`
      : issue.code === 'invalid_type'
        ? `expected ${issue.expected}, received ${jsonType(raw)}`
        : issue.message;
  return { ok: false, problem: { field, message } };
}
