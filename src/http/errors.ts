// The error handler (ApiError, validation and transport failures → the failure body) and the 404/405
// handler. The error type and the status families are src/errors.ts.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, COMMON, VALIDATION_STATUS, type ErrorBody, type Family } from '../errors.js';

/** Routes may add required fields to their failure bodies (extractPnr.do echoes airlinePnr …). */
export type ErrorShaper = (base: ErrorBody, request: FastifyRequest) => Record<string, unknown>;

declare module 'fastify' {
  interface FastifyContextConfig {
    family?: Family;
    /**
     * The statuses of this route's answers that refuse the request's own fields (a format or an illegal value):
     * spec 8's validation failures, not counted in a rate pool. Default: the family's validation status.
     */
    invalid?: readonly number[];
    errorShape?: ErrorShaper;
    /** Spec endpoints need client credentials; health, docs and metrics do not. */
    auth?: 'client' | 'admin' | 'none';
  }
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/** One accepted form of a field, as a refusal names it ("a string of at most 2 characters", "an integer"). */
function formOf(issue: ValidationIssue): string {
  const params = issue.params as { type?: string; limit?: number; allowedValues?: unknown[] } | undefined;
  switch (issue.keyword) {
    case 'type':
      return params?.type === 'integer' ? 'an integer' : params?.type === 'null' ? 'null' : `a ${params?.type ?? 'value'}`;
    case 'maxLength':
      return `a string of at most ${params?.limit} characters`;
    case 'minLength':
      return `a string of at least ${params?.limit} characters`;
    case 'enum':
      return `one of ${(params?.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${JSON.stringify((issue.params as { allowedValue?: unknown } | undefined)?.allowedValue)}`;
    default:
      return `a value that ${issue.message ?? 'is valid'}`;
  }
}

function describeValidation(err: FastifyError): string {
  const issues = err.validation ?? [];
  const first = issues[0];
  if (!first) return 'invalid request';
  const params = first.params as { requiredProperties?: string[]; missingProperty?: string } | undefined;
  const base = first.instancePath.split('/').slice(1).join('.');
  const missing = params?.requiredProperties?.[0] ?? params?.missingProperty;
  if (first.keyword === 'required' && missing) {
    return `invalid request: ${base ? `${base}.` : ''}${missing} is required`;
  }
  // A field of several accepted forms (a string or an integer, say): every form named, not only the first one tried
  // (found by a review: passengerType "must be string" though integers are accepted).
  const alternatives = issues.findIndex((i) => i.keyword === 'anyOf' && i.instancePath === first.instancePath);
  if (alternatives > 0) {
    const forms = [...new Set(issues.slice(0, alternatives).filter((i) => i.instancePath === first.instancePath).map(formOf))];
    if (forms.length > 1) return `invalid request: ${base || 'body'} must be ${forms.join(' or ')}`;
  }
  return `invalid request: ${base || 'body'} ${first.message ?? 'is invalid'}`;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, msg: string, httpStatus: number) {
  const base: ErrorBody = { status, msg };
  const shape = httpStatus === 200 ? request.routeOptions.config?.errorShape : undefined;
  const body = shape ? shape(base, request) : base;
  // Failure bodies bypass the route's success serializer: they have their own shape.
  return reply.code(httpStatus).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

/**
 * A request Node's HTTP parser refused before Fastify saw it (headers over 16 KB, a malformed request line or
 * framing, headers too slow to arrive): answered in the wire envelope with a request id, then the connection closed
 * (a review: Fastify's own `{error, message, statusCode}` body, no request id). 431/413 headers too large, 408/901
 * too slow, 400/901 not HTTP/1.1. Logged at debug: mostly a proxy's or a scanner's doing, and its bytes are not ours
 * to log.
 */
export function clientErrors(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [httpStatus, status, msg] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, COMMON.BODY_TOO_LARGE, 'request headers too large (16 KB at most)']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, COMMON.NOT_JSON, 'the request did not arrive in time']
        : [400, COMMON.NOT_JSON, 'the request is not valid HTTP/1.1'];
  this.log.debug({ code: err.code }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ status, msg });
    socket.write(
      `HTTP/1.1 ${httpStatus} ${STATUS_CODES[httpStatus]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** The request body codings @fastify/compress reads (its default). */
const REQUEST_CODINGS = 'gzip, deflate, br or identity';

/**
 * Errors Fastify answers before any route or hook (a path that is not a valid URL): in the wire envelope, with
 * the request id, as a path no route serves (they were Fastify's own body, its error code and the path as typed).
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (err.code === 'FST_ERR_BAD_URL') {
    void sendError(request, reply, COMMON.NOT_FOUND, `no endpoint: the request's path is not a valid URL path (${err.code})`, 400);
    return;
  }
  // anything else Fastify cannot route is ours to fix: a system error, logged
  request.log.error({ err }, 'unhandled framework error');
  void sendError(request, reply, COMMON.SYSTEM_ERROR, `system error; quote request id ${request.id} to support`, 500);
}

export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof ApiError) return sendError(request, reply, err.status, err.msg, err.httpStatus);
  const family = request.routeOptions.config?.family;
  if (err.validation && family) return sendError(request, reply, VALIDATION_STATUS[family], describeValidation(err), 200);
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendError(request, reply, COMMON.NOT_JSON, 'Content-Type must be application/json', 415);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(request, reply, COMMON.BODY_TOO_LARGE, 'request body is too large', 413);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendError(request, reply, COMMON.NOT_JSON, 'request body is empty; send a JSON object', 400);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendError(request, reply, COMMON.NOT_JSON, 'request body is not valid JSON', 400);
  }
  if (err.validation) return sendError(request, reply, VALIDATION_STATUS.admin, describeValidation(err), 400);
  // A request body in a coding we do not read (@fastify/compress reads gzip, deflate and br): 415, not a system
  // error (a review saw Content-Encoding: zstd answered 500/9999 and logged as unhandled).
  if (err.statusCode === 415) return sendError(request, reply, COMMON.NOT_JSON, `Content-Encoding must be one of ${REQUEST_CODINGS}, or absent`, 415);
  if (err instanceof SyntaxError || err.statusCode === 400) {
    return sendError(request, reply, COMMON.NOT_JSON, 'request body is not valid JSON', 400);
  }
  request.log.error({ err }, 'unhandled error');
  return sendError(request, reply, COMMON.SYSTEM_ERROR, `system error; quote request id ${request.id} to support`, 500);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * No route for this method and path: 405 with an Allow header when the path exists with other methods (a GET on
 * a POST endpoint), else 404.
 */
export function notFoundHandler(app: Pick<FastifyInstance, 'hasRoute'>) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.url.split('?')[0] ?? '/';
    // hasRoute reads its url as a route pattern: a path with `:`, `*` or `(` is no path of ours, and as a pattern it
    // threw (`/:x(`: HTTP 500 with the path in an error log line) or named a route (`/console/*`: 405; a review)
    const literal = !/[:*()]/.test(url);
    const allowed = literal ? METHODS.filter((method) => method !== request.method && app.hasRoute({ method, url })) : [];
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, COMMON.METHOD_NOT_ALLOWED, `method ${request.method} is not allowed on ${url}; use ${allowed.join(' or ')}`, 405);
    }
    return sendError(request, reply, COMMON.NOT_FOUND, `no endpoint ${request.method} ${url}`, 404);
  };
}
