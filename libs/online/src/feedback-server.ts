// The feedback server (port 8082): where Continue's completion tracking posts each AutocompleteOutcome.
//
//   POST /api/training/submit  Authorization: Bearer <token>, X-Project-ID: <project>, body: AutocompleteOutcome
//     200 {status: "submitted", message, queue_position}   stored durably (fsync) before this answer
//     200 {status: "duplicate", ...}                         a completionId seen before (counted once)
//     401 missing or unknown token     403 project not allowed     413 body over the limit
//     400 malformed JSON, wrong type or missing field: `error.field` names it
//   GET /api/training/status   JSON: policy version, events received / trained / pending, acceptance per version
//                              and per A/B arm, last losses (no token needed: it holds no prompts or code)
// Authentication runs before the body is read, so an unauthenticated client cannot make the server parse anything.
import Fastify, { type FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { FeedbackServerSchema } from './config';
import { bearerToken, installJsonHandling, sendError } from './http';
import { parseOutcome, type AutocompleteOutcome } from '@rlhf-code/continue';

export interface SubmitResult {
  duplicate: boolean;
  /** Events waiting for training after this one (RLinf's queue_position). */
  queuePosition: number;
}

export interface FeedbackServerOptions {
  config: z.output<typeof FeedbackServerSchema>;
  /** Store the outcome; resolves once it is durable. */
  submit: (outcome: AutocompleteOutcome) => Promise<SubmitResult>;
  status: () => object;
}

export function buildFeedbackServer(opts: FeedbackServerOptions): FastifyInstance {
  const { config } = opts;
  const app = Fastify({ bodyLimit: config.bodyLimitBytes });
  installJsonHandling(app);
  const anyProject = config.projects.includes('*');

  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.url !== '/api/training/submit') return;
    if (config.tokens.length > 0) {
      const token = bearerToken(req);
      if (token === null) return sendError(reply, 401, 'unauthorized', 'missing bearer token (Authorization: Bearer <token>)');
      if (!config.tokens.includes(token)) return sendError(reply, 401, 'unauthorized', 'invalid bearer token');
    }
    if (!anyProject) {
      const project = req.headers['x-project-id'];
      if (typeof project !== 'string' || project === '') return sendError(reply, 403, 'forbidden', 'missing X-Project-ID header');
      if (!config.projects.includes(project)) return sendError(reply, 403, 'forbidden', `project "${project}" is not allowed`);
    }
  });

  app.post('/api/training/submit', async (req, reply) => {
    const parsed = parseOutcome(req.body);
    if (!parsed.ok) {
      const { field, message } = parsed.problem;
      return sendError(reply, 400, 'invalid_request_error', `${field}: ${message}`, field);
    }
    const r = await opts.submit(parsed.value);
    return r.duplicate
      ? { status: 'duplicate', message: 'This completionId was already submitted; it counts once', queue_position: r.queuePosition }
      : { status: 'submitted', message: 'Training data submitted successfully', queue_position: r.queuePosition };
  });

  app.get('/api/training/status', async () => opts.status());
  return app;
}
