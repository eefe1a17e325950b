// Credentials never reach the disk: what Continue posts as an outcome can carry them (the fork's body spreads every
// autocomplete option, `completionTrackingHeaders` with the bearer token among them; upstream's dev-data events carry
// `userId`, the user's Continue access token). Before an outcome is stored or logged, fields that are credentials by
// name are removed at any depth, so is any other string holding a secret (the configured tokens and API keys, and the
// credentials the request itself carried), and a secret inside the code fields (prompt, completion, prefix, suffix:
// training data) is replaced by a placeholder instead. A URL's user:password@ part (a git remote such as
// https://x-access-token:ghp_...@github.com/o/r.git in `gitRepo`) is removed from every other string.

/** Field (and header) names that hold credentials, wherever they appear (case and -/_ ignored). */
const CREDENTIAL_KEY =
  /^(completiontrackingheaders|headers|authorization|proxyauthorization|apikeys?|xapikey|accesstoken|token|tokens|usertoken|userid|bearer|password|secret|cookie)$/;
const normalise = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

/** Whether a field or header name is one that holds credentials (`Authorization`, `x-api-key`, `userId`, ...). */
export const isCredentialKey = (key: string): boolean => CREDENTIAL_KEY.test(normalise(key));

/** Text fields that are the code itself: a secret in them is masked, the field kept. */
const CODE_FIELDS = new Set(['prompt', 'completion', 'prefix', 'suffix']);
export const REDACTED = '[redacted]';

const holds = (value: string, secrets: readonly string[]) => secrets.some((s) => value.includes(s));

/** `scheme://user:password@host` -> `scheme://host`. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi;

/** `value` without credential fields and without strings holding a secret, at any depth; undefined = drop it. */
function clean(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return holds(value, secrets) ? undefined : value.replace(URL_USERINFO, '$1');
  if (Array.isArray(value)) return value.map((v) => clean(v, secrets)).filter((v) => v !== undefined);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isCredentialKey(k)) continue;
    const kept = clean(v, secrets);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

/**
 * The outcome without credentials. `secrets` are the configured tokens and API keys and the request's own credentials
 * (empty strings ignored); the result is a new object, the input is not changed.
 */
export function scrubOutcome<T extends object>(outcome: T, secrets: readonly string[]): T {
  const live = secrets.filter((s) => s.length > 0);
  const code: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(outcome)) {
    if (CODE_FIELDS.has(k) && typeof v === 'string') code[k] = live.reduce((text, s) => text.split(s).join(REDACTED), v);
  }
  return { ...(clean(outcome, live) as object), ...code } as T;
}
