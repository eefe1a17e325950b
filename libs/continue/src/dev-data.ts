// Upstream Continue's dev-data events: what it posts, without any fork, to each http(s) destination of the `data:`
// list in its config.yaml (as read from its source of June 2026: core/data/log.ts, the autocomplete logging service
// and packages/config-yaml/src/schemas/data/):
//
//   POST <destination>   Content-Type: application/json, Authorization: Bearer <apiKey> (when the entry has one),
//                        other headers only from the entry's requestOptions.headers (so usually no X-Project-ID)
//   {"name": "autocomplete", "data": {...}, "schema": "0.2.0", "level": "all" | "noCode", "profileId": "..."}
//
// One event per autocomplete outcome: `accepted: true` on Tab, `accepted: false` 10 s after it was shown. Without an
// `events:` list in the entry every other event type is posted too (chatInteraction, editOutcome, nextEditOutcome,
// toolUsage, quickEdit, chatFeedback, tokensGenerated, ...). `data` of an autocomplete event (the schema's fields;
// Continue drops any other key before posting):
//   0.1.0  the outcome (completionId, prompt, completion, prefix, suffix, accepted, time, cacheHit, filepath, gitRepo,
//          modelProvider, modelName, uniqueId, timestamp) and the autocomplete options (maxPromptTokens,
//          debounceDelay, useCache, onlyMyCode, ..., completionOptions and disableInFiles as nested objects)
//   0.2.0  the same without the nested objects, plus eventName, schema, userAgent, selectedProfileId and userId:
//          the user's Continue access token (a secret: it is dropped here and never becomes part of an outcome)
//   level noCode drops prefix, suffix, prompt and completion: such an outcome can be counted but never trained on.
// Continue logs a non-2xx answer as an error and does not retry.
import { z } from 'zod';
import { AutocompleteOutcomeSchema, jsonType, problemOf, type AutocompleteOutcome, type FieldProblem } from './outcome';

export const DEV_DATA_LEVELS = ['all', 'noCode'] as const;
export type DevDataLevel = (typeof DEV_DATA_LEVELS)[number];

/** The envelope of every event; unknown keys (requestOptions.extraBodyProperties) are allowed and not kept. */
export const DevDataEnvelopeSchema = z.looseObject({
  /** The event type: "autocomplete", "chatInteraction", ... */
  name: z.string().min(1),
  data: z.looseObject({}),
  /** The data schema version of the destination (0.1.0 or 0.2.0). */
  schema: z.string().optional(),
  /** all: with the code; noCode: without prefix, suffix, prompt and completion. */
  level: z.enum(DEV_DATA_LEVELS).optional(),
  profileId: z.string().optional(),
});

/** The fields of `data` that are code; level noCode has none of them. */
const CODE_FIELDS = ['prompt', 'completion', 'prefix', 'suffix'] as const;

/**
 * Fields of `data` that are credentials, dropped before anything else sees the outcome: userId is the user's Continue
 * access token (0.2.0 fills it from the IDE's userToken setting).
 */
const CREDENTIAL_FIELDS = ['userId'] as const;

/** An autocomplete event's data at level all: the outcome, with Continue's id required (it is how duplicates are known). */
const AutocompleteDataSchema = AutocompleteOutcomeSchema.extend({
  completionId: z.string().min(1),
  /** The repository's remote URL, when the file is in a git repository. */
  gitRepo: z.string().optional(),
});

/** An outcome posted at level noCode: the outcome's fields without its code (prompt, completion, prefix, suffix). */
export const NoCodeOutcomeSchema = AutocompleteDataSchema.omit({ prompt: true, completion: true, prefix: true, suffix: true });
export type NoCodeOutcome = z.output<typeof NoCodeOutcomeSchema>;

export type DevDataEvent =
  /** An autocomplete outcome with its code: the same record as the fork's completion tracking posts. */
  | { kind: 'autocomplete'; outcome: AutocompleteOutcome; credentials: string[] }
  /** An autocomplete outcome without code (level noCode): nothing to train on. */
  | { kind: 'noCode'; outcome: NoCodeOutcome; credentials: string[] }
  /** Any other event type: not used here. */
  | { kind: 'other'; name: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a posted body is a dev-data event rather than the fork's bare outcome: an object with a string `name`, a
 * `data` key and no top-level `prompt` (the fork's outcome always has one).
 */
export function isDevDataEvent(body: unknown): boolean {
  return isObject(body) && typeof body.name === 'string' && 'data' in body && !('prompt' in body);
}

const prefixed = (p: FieldProblem): FieldProblem => ({ field: p.field === '(body)' ? 'data' : `data.${p.field}`, message: p.message });

/**
 * Check a dev-data event. An autocomplete event becomes an outcome (userId removed; at level noCode, or when `data`
 * has neither prompt nor completion, an outcome without code); any other event type is `other`. On failure the
 * problem names the field by its path in the body (e.g. `data.accepted: expected boolean, received string`).
 * `credentials` are the secret values the event carried (its userId), for the caller to mask wherever they appear.
 */
export function parseDevDataEvent(body: unknown): { ok: true; value: DevDataEvent } | { ok: false; problem: FieldProblem } {
  if (!isObject(body)) return { ok: false, problem: { field: '(body)', message: `expected a JSON object, received ${jsonType(body)}` } };
  const envelope = DevDataEnvelopeSchema.safeParse(body);
  if (!envelope.success) return { ok: false, problem: problemOf(envelope.error.issues[0], body) };
  const { name, data, level } = envelope.data;
  if (name !== 'autocomplete') return { ok: true, value: { kind: 'other', name } };

  const credentials = CREDENTIAL_FIELDS.map((k) => data[k]).filter((v): v is string => typeof v === 'string' && v !== '');
  const rest: Record<string, unknown> = { ...data };
  for (const k of CREDENTIAL_FIELDS) delete rest[k];
  const noCode = level === 'noCode' || (rest.prompt === undefined && rest.completion === undefined);
  if (noCode) {
    for (const k of CODE_FIELDS) delete rest[k]; // the user chose not to share code: none is kept even if sent
    const r = NoCodeOutcomeSchema.safeParse(rest);
    return r.success ? { ok: true, value: { kind: 'noCode', outcome: r.data, credentials } } : { ok: false, problem: prefixed(problemOf(r.error.issues[0], rest)) };
  }
  const r = AutocompleteDataSchema.safeParse(rest);
  return r.success ? { ok: true, value: { kind: 'autocomplete', outcome: r.data, credentials } } : { ok: false, problem: prefixed(problemOf(r.error.issues[0], rest)) };
}
