// The feedback server (port 8082): where Continue reports, for each suggestion it showed, whether it was accepted.
// One URL takes both of Continue's forms:
//
//   POST /api/training/submit  Authorization: Bearer <token> (one of feedback.tokens), X-Project-ID: <project> optional
//     body, upstream Continue (a `data:` destination of its config.yaml, libs/continue dev-data.ts):
//       {"name": "autocomplete", "data": {completionId, prompt, completion, accepted, ...}, "schema", "level", ...}
//     body, RLinf's fork of Continue 1.3.9 (completionTrackingUrl): the bare AutocompleteOutcome
//       {completionId, prompt, completion, accepted, ...}
//     200 {status: "submitted", message, queue_position}   stored durably (fsync) before this answer
//     200 {status: "duplicate", ...}                         a completionId seen before (counted once)
//     200 {status: "no_code", ...}                           an upstream `level: noCode` outcome: no prompt or
//                                                            completion; stored and counted, never trained on
//     200 {status: "ignored", message}                       another upstream event type (chatInteraction, ...):
//                                                            counted in the status, nothing stored
//     401 missing or unknown token     403 an X-Project-ID that is not allowed     413 body over the limit
//     400 malformed JSON, wrong type or missing field: `error.field` names it (`accepted`, `data.accepted`, ...)
//   GET /api/training/status   JSON: policy version, events received / trained / pending, acceptance per version
//                              and per A/B arm, upstream event counts, last losses (no token needed: it holds no
//                              prompts or code)
//   GET /                      the live page (@rlhf-code/online-page): HTML with the charts; the token as the bearer header or
//                              as `?token=` (a browser cannot send a header), on this route only
//   GET /api/training/history  JSON: the series behind the page's charts (libs/online-page history.ts); the bearer header
// A request without X-Project-ID counts for feedback.defaultProject (upstream Continue sends only the headers of its
// `data:` entry's requestOptions). Authentication runs before the body is read, so an unauthenticated client cannot
// make the server parse anything. Headers are never stored or logged; the request's credentials (its bearer token,
// credential-named headers, the event's userId) are handed on so that no copy of them is stored either (scrub.ts).
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { bearerToken, installJsonHandling, QueryError, sendError, type FeedbackServerConfig } from '@rlhf-code/online-core';
import { isCredentialKey } from './scrub';
import { isDevDataEvent, parseDevDataEvent, parseOutcome, type AutocompleteOutcome, type NoCodeOutcome } from '@rlhf-code/continue';

export interface SubmitResult {
  duplicate: boolean;
  /** Events waiting for training after this one (RLinf's queue_position). */
  queuePosition: number;
}

interface PostedBase {
  /** completionTracking: the fork's bare outcome; devData: an upstream dev-data event. */
  via: 'completionTracking' | 'devData';
  /** Its X-Project-ID, or feedback.defaultProject. */
  project: string;
  /** Credentials the request carried (never to be stored, anywhere in the outcome). */
  secrets: string[];
}

/** An outcome as posted, before credentials are removed: with its code, or (upstream level noCode) without. */
export type PostedOutcome = PostedBase & ({ noCode: false; outcome: AutocompleteOutcome } | { noCode: true; outcome: NoCodeOutcome });

export interface FeedbackServerOptions {
  config: FeedbackServerConfig;
  /** Store the outcome; resolves once it is durable. */
  submit: (posted: PostedOutcome) => Promise<SubmitResult>;
  /** Count an upstream event of a type other than autocomplete (nothing of it is stored). */
  ignored: (eventName: string) => void;
  status: () => object;
  /** The live page and its series (@rlhf-code/online-page live-page.ts; its query errors are QueryErrors); absent: no such routes. */
  page?: { html: (query: unknown) => Promise<string>; history: (query: unknown) => object };
}

/**
 * Headers of the live page: never cached (it holds the run's figures, and its URL may hold the token), and nothing loaded
 * from anywhere but this server.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:",
};

/** Routes behind the bearer token: the submit URL, the page and its series (the status holds no code: it is open). */
const GUARDED = new Set(['/api/training/submit', '/', '/api/training/history']);

/** The page's `?token=` (never logged or stored: it is only compared). */
function queryToken(req: FastifyRequest): string | null {
  const t = (req.query as Record<string, unknown> | undefined)?.token;
  return typeof t === 'string' && t !== '' ? t : null;
}

/** Credentials shorter than this are not looked for elsewhere in the outcome (masking them would garble the code). */
const MIN_MASKED_SECRET = 8;

/** The request's own credentials: its bearer token and the values of credential-named headers (X-Api-Key, Cookie, ...). */
function requestSecrets(req: FastifyRequest): string[] {
  const out = [bearerToken(req) ?? ''];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== 'authorization' && isCredentialKey(name)) out.push(...(Array.isArray(value) ? value : [value ?? '']));
  }
  return out;
}

export function buildFeedbackServer(opts: FeedbackServerOptions): FastifyInstance {
  const { config } = opts;
  const app = Fastify({ bodyLimit: config.bodyLimitBytes });
  installJsonHandling(app);
  const anyProject = config.projects.includes('*');
  const projectOf = (req: FastifyRequest): string => {
    const named = req.headers['x-project-id'];
    return typeof named === 'string' && named.trim() !== '' ? named.trim() : config.defaultProject;
  };

  app.addHook('onRequest', async (req, reply) => {
    const url = req.routeOptions.url;
    if (url === undefined || !GUARDED.has(url)) return;
    if (config.tokens.length > 0) {
      const page = url === '/';
      const token = bearerToken(req) ?? (page ? queryToken(req) : null);
      if (token === null) {
        const how = page ? ': open /?token=<one of feedback.tokens>' : ' (Authorization: Bearer <token>; the apiKey of Continue\'s data: entry)';
        return sendError(reply, 401, 'unauthorized', `missing bearer token${how}`);
      }
      if (!config.tokens.includes(token)) return sendError(reply, 401, 'unauthorized', 'invalid bearer token');
    }
    if (url !== '/api/training/submit') return;
    const project = projectOf(req);
    if (!anyProject && !config.projects.includes(project)) return sendError(reply, 403, 'forbidden', `project "${project}" is not allowed`);
  });

  app.post('/api/training/submit', async (req, reply) => {
    const base = { project: projectOf(req), secrets: requestSecrets(req) };
    let posted: PostedOutcome;
    if (isDevDataEvent(req.body)) {
      const parsed = parseDevDataEvent(req.body);
      if (!parsed.ok) return sendError(reply, 400, 'invalid_request_error', `${parsed.problem.field}: ${parsed.problem.message}`, parsed.problem.field);
      const event = parsed.value;
      if (event.kind === 'other') {
        opts.ignored(event.name);
        const name = JSON.stringify(event.name.slice(0, 64));
        return { status: 'ignored', message: `${name} events are not used (only autocomplete ones are); nothing was stored. events: [autocomplete] in Continue's data: entry stops them` };
      }
      const secrets = [...base.secrets, ...event.credentials].filter((s) => s.length >= MIN_MASKED_SECRET);
      posted =
        event.kind === 'noCode'
          ? { via: 'devData', ...base, secrets, noCode: true, outcome: event.outcome }
          : { via: 'devData', ...base, secrets, noCode: false, outcome: event.outcome };
    } else {
      const parsed = parseOutcome(req.body);
      if (!parsed.ok) return sendError(reply, 400, 'invalid_request_error', `${parsed.problem.field}: ${parsed.problem.message}`, parsed.problem.field);
      posted = { via: 'completionTracking', ...base, secrets: base.secrets.filter((s) => s.length >= MIN_MASKED_SECRET), noCode: false, outcome: parsed.value };
    }
    const r = await opts.submit(posted);
    if (r.duplicate) return { status: 'duplicate', message: 'This completionId was already submitted; it counts once', queue_position: r.queuePosition };
    if (posted.noCode) {
      return {
        status: 'no_code',
        message: 'Stored and counted, but never trained on: level noCode sends no prompt or completion (set level: all in Continue\'s data: entry)',
        queue_position: r.queuePosition,
      };
    }
    return { status: 'submitted', message: 'Training data submitted successfully', queue_position: r.queuePosition };
  });

  app.get('/api/training/status', async () => opts.status());
  const page = opts.page;
  if (page) {
    const badQuery = (reply: FastifyReply, e: unknown) => {
      if (e instanceof QueryError) return sendError(reply, 400, 'invalid_request_error', e.message, e.field);
      throw e;
    };
    app.get('/', async (req, reply) => {
      let html: string;
      try {
        html = await page.html(req.query);
      } catch (e) {
        return badQuery(reply, e);
      }
      return reply.headers(PAGE_HEADERS).send(html);
    });
    app.get('/api/training/history', async (req, reply) => {
      try {
        return page.history(req.query);
      } catch (e) {
        return badQuery(reply, e);
      }
    });
  }
  return app;
}
