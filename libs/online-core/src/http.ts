// What both servers share: bodies parsed as JSON whatever the content type says, errors answered as JSON
// `{error: {message, field?, type}}` with the right status (400 malformed JSON, 413 too large, ...), never a crash.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorBody {
  error: { message: string; type: string; field?: string };
}

export function errorBody(type: string, message: string, field?: string): ErrorBody {
  return { error: { message, type, ...(field ? { field } : {}) } };
}

/** Send an error answer; the `field` names the request field that is wrong, when there is one. */
export function sendError(reply: FastifyReply, status: number, type: string, message: string, field?: string): FastifyReply {
  return reply.code(status).send(errorBody(type, message, field));
}

/** A query parameter that is not valid: its name and why (answered 400, `error.field` naming it). */
export class QueryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
}

/** Parse every body as JSON (clients send text/plain or no content type at all) and answer every error as JSON. */
export function installJsonHandling(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, 'request_too_large', 'request body is larger than the configured limit');
    }
    if (status === 400 || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return sendError(reply, 400, 'invalid_request_error', `malformed JSON body: ${err.message}`, '(body)');
    }
    if (status < 500) return sendError(reply, status, 'invalid_request_error', err.message);
    process.stderr.write(`[online] internal error: ${err.stack ?? err.message}\n`);
    return sendError(reply, 500, 'server_error', `internal error: ${err.message}`);
  });
  app.setNotFoundHandler((req, reply) => sendError(reply, 404, 'not_found', `no route ${req.method} ${req.url}`));
}
