import { isCredentialKey, REDACTED, scrubOutcome } from './scrub';

test('credential fields (userId, Authorization, apiKey, ...) go at any depth; configured secrets are masked in code and drop other strings', () => {
  const outcome = {
    prompt: 'x = "tok-12345678"',
    completion: '1',
    accepted: true,
    userId: 'sk-continue-user-SECRET123',
    options: { 'X-Api-Key': 'k', user_token: 't', note: 'has tok-12345678', keep: 'fine' },
    gitRepo: 'https://x-access-token:ghp_GITSECRET@github.com/o/r.git',
  };
  const out = scrubOutcome(outcome, ['tok-12345678', '']);
  expect(out).toEqual({ prompt: `x = "${REDACTED}"`, completion: '1', accepted: true, options: { keep: 'fine' }, gitRepo: 'https://github.com/o/r.git' });
  expect(outcome.userId).toBe('sk-continue-user-SECRET123'); // the input is not changed
  for (const k of ['userId', 'Authorization', 'x-api-key', 'cookie', 'apiKey', 'proxy-authorization']) expect(isCredentialKey(k)).toBe(true);
  for (const k of ['uniqueId', 'completionId', 'content-type', 'x-project-id', 'user-agent']) expect(isCredentialKey(k)).toBe(false);
});
