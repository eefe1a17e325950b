// Credentials never reach the disk: what Continue posts as an outcome can carry them (its body spreads every
// autocomplete option, `completionTrackingHeaders` with the bearer token among them). Before an outcome is stored or
// logged, fields that are credentials by name are removed at any depth, so is any other string holding a configured
// secret, and a secret inside the code fields (prompt, completion, prefix, suffix: training data) is replaced by a
// placeholder instead.
import type { AutocompleteOutcome } from '@rlhf-code/continue';

/** Field names that hold credentials, wherever they appear (case and -/_ ignored). */
const CREDENTIAL_KEY = /^(completiontrackingheaders|headers|authorization|proxyauthorization|apikeys?|xapikey|accesstoken|token|tokens|bearer|password|secret|cookie)$/;
const normalise = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

/** Text fields that are the code itself: a secret in them is masked, the field kept. */
const CODE_FIELDS = new Set(['prompt', 'completion', 'prefix', 'suffix']);
export const REDACTED = '[redacted]';

const holds = (value: string, secrets: readonly string[]) => secrets.some((s) => value.includes(s));

/** `value` without credential fields and without strings holding a secret, at any depth; undefined = drop it. */
function clean(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return holds(value, secrets) ? undefined : value;
  if (Array.isArray(value)) return value.map((v) => clean(v, secrets)).filter((v) => v !== undefined);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (CREDENTIAL_KEY.test(normalise(k))) continue;
    const kept = clean(v, secrets);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

/**
 * The outcome without credentials. `secrets` are the configured tokens and API keys (empty strings ignored); the
 * result is a new object, the input is not changed.
 */
export function scrubOutcome(outcome: AutocompleteOutcome, secrets: readonly string[]): AutocompleteOutcome {
  const live = secrets.filter((s) => s.length > 0);
  const code: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outcome)) {
    if (CODE_FIELDS.has(k) && typeof v === 'string') code[k] = live.reduce((text, s) => text.split(s).join(REDACTED), v);
  }
  return { ...(clean(outcome, live) as object), ...code } as AutocompleteOutcome;
}
