// Every HTTP endpoint of postbook, in one table. Handlers are thin: validate (schema), call one command,
// shape the answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ApiError, VALIDATION_STATUS, sendError } from './errors.js';
import { adminAuthHook, callerOf, clientAuthHook } from './auth.js';
import { TRANSPORT_ERRORS } from './wire.js';
import type { AppDeps } from '../app.js';
import { extractErrorShape, extractPnr } from '../pnr/extract.js';
import { claimPnr } from '../pnr/claim.js';
import { PNR_STATUS } from '../pnr/statuses.js';
import { ClaimRequest, ClaimResponse, ExtractPnrRequest, ExtractPnrResponse } from '../pnr/wire.js';
import type { StoredAnswer } from './idempotency.js';
import { quoteRefund } from '../refunds/quote.js';
import { submitRefund } from '../refunds/submit.js';
import { queryRefunds } from '../refunds/query.js';
import {
  QueryRefundOrdersRequest,
  QueryRefundOrdersResponse,
  RefundQuotationRequest,
  RefundQuotationResponse,
  RefundSubmitRequest,
  RefundSubmitResponse,
} from '../refunds/wire.js';
import type { RefundCaller } from '../refunds/deps.js';
import { TestClock } from '../clock.js';
import { registerBookingRoutes } from '../booking/routes.js';

type App = FastifyInstance<never, never, never, never, TypeBoxTypeProvider> | FastifyInstance;

/** Business failures become stored answers so Idempotency-Key can replay them. */
async function answerOf(work: () => Promise<object>): Promise<StoredAnswer> {
  try {
    return { httpStatus: 200, body: await work() };
  } catch (err) {
    if (err instanceof ApiError && err.httpStatus === 200) return { httpStatus: 200, body: { status: err.status, msg: err.msg } };
    throw err;
  }
}

function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: StoredAnswer) {
  const body = answer.body as { status: number; msg: string };
  if (body.status !== 0) return sendError(request, reply, body.status, body.msg, answer.httpStatus);
  return reply.code(answer.httpStatus).send(body);
}

export function registerRoutes(app: FastifyInstance, deps: AppDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  // ---- operational, unauthenticated ----
  // A newcomer's first request: where the API is described.
  typed.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({
    service: 'postbook',
    openapi: '/openapi.json',
    health: '/health',
    msg: 'every endpoint, its request and its answers: GET /openapi.json',
  }));
  typed.get('/health', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok', store: deps.store.kind }));
  typed.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (_req, reply) =>
    reply.type(deps.metrics.contentType).send(await deps.metrics.render()),
  );
  typed.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());

  // ---- spec endpoints: client credentials on every call (spec 5) ----
  void app.register(async (scope) => {
    scope.addHook('onRequest', clientAuthHook(deps.authenticator, deps.config.headerPrefix));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    // spec 4.5
    api.post(
      '/extractPnr.do',
      {
        config: { family: 'pnr', errorShape: (base, req) => extractErrorShape(base, req.body) },
        schema: { summary: 'Extract an airline PNR', tags: ['pnr'], body: ExtractPnrRequest, response: { 200: ExtractPnrResponse, ...TRANSPORT_ERRORS } },
      },
      async (request) => extractPnr(deps.airlines, request.body),
    );

    // spec 4.6
    api.post(
      '/pnr/claim.do',
      {
        config: { family: 'pnr' },
        schema: {
          summary: 'Claim an airline booking as an order of the calling client',
          tags: ['pnr'],
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
          body: ClaimRequest,
          response: { 200: ClaimResponse, ...TRANSPORT_ERRORS },
        },
      },
      async (request, reply) => {
        const client = callerOf(request);
        const answer = await deps.idempotency.run(
          {
            clientId: client.clientId,
            endpoint: 'pnr/claim.do',
            key: request.headers['idempotency-key'],
            body: request.body,
            validationStatus: VALIDATION_STATUS.pnr,
            // a claim is idempotent by itself (one order per record): a twin still running after the wait is run again
            busy: null,
          },
          () => answerOf(() => claimPnr(deps, client.clientId, request.body)),
          (a) => ![PNR_STATUS.TIMEOUT, PNR_STATUS.AIRLINE_ERROR].includes((a.body as { status: number }).status as 99006),
        );
        return sendAnswer(request, reply, answer);
      },
    );
  });

  // ---- refunds: spec 4.1–4.3 ----
  void app.register(async (scope) => {
    scope.addHook('onRequest', clientAuthHook(deps.authenticator, deps.config.headerPrefix));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    const caller = (request: FastifyRequest): RefundCaller => {
      const c = callerOf(request);
      return { clientId: c.clientId, settings: c.settings };
    };

    api.post(
      '/refundQuotation.do',
      {
        config: { family: 'refund' },
        schema: { summary: 'Quote a refund and get a refundOfferId', tags: ['refunds'], body: RefundQuotationRequest, response: { 200: RefundQuotationResponse, ...TRANSPORT_ERRORS } },
      },
      async (request) => quoteRefund(deps.refunds, caller(request), request.body),
    );

    api.post(
      '/refund.do',
      {
        config: { family: 'refund' },
        schema: {
          summary: 'Submit a refund (by refundOfferId, or by refundRequestList in one step)',
          tags: ['refunds'],
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
          body: RefundSubmitRequest,
          response: { 200: RefundSubmitResponse, ...TRANSPORT_ERRORS },
        },
      },
      async (request, reply) => {
        const who = caller(request);
        const answer = await deps.idempotency.run(
          {
            clientId: who.clientId,
            endpoint: 'refund.do',
            key: request.headers['idempotency-key'],
            body: request.body,
            validationStatus: VALIDATION_STATUS.refund,
            busy: { httpStatus: 200, body: { status: 814, msg: 'refund submission already in progress; wait before retrying' } },
          },
          () => answerOf(() => submitRefund(deps.refunds, who, request.body)),
          // 814 means "try again shortly": not a final answer
          (a) => (a.body as { status: number }).status !== 814,
        );
        return sendAnswer(request, reply, answer);
      },
    );

    api.post(
      '/queryRefundOrders.do',
      {
        config: { family: 'refund', errorShape: (base) => ({ ...base, refundOrders: [] }) },
        schema: { summary: 'Refund orders of an order, newest first', tags: ['refunds'], body: QueryRefundOrdersRequest, response: { 200: QueryRefundOrdersResponse, ...TRANSPORT_ERRORS } },
      },
      async (request) => queryRefunds(deps.refunds, caller(request), request.body),
    );
  });

  registerBookingRoutes(app, deps);

  // ---- sandbox administration: exists only in sandbox mode ----
  if (deps.config.sandbox && deps.clock instanceof TestClock) {
    const clock = deps.clock;
    void app.register(async (scope) => {
      scope.addHook('onRequest', adminAuthHook(deps.config.adminToken ?? deps.world?.adminToken ?? null));
      const admin = scope.withTypeProvider<TypeBoxTypeProvider>();
      const ClockBody = Type.Object({ now: Type.String({ format: 'date-time' }), offsetMs: Type.Integer() });
      admin.get('/sandbox/clock', { config: { family: 'admin' }, schema: { tags: ['sandbox'], response: { 200: ClockBody, ...TRANSPORT_ERRORS } } }, async () => ({
        now: clock.now().toISOString(),
        offsetMs: clock.now().getTime() - Date.now(),
      }));
      admin.post(
        '/sandbox/clock',
        {
          config: { family: 'admin' },
          schema: {
            summary: 'Move the sandbox clock forward (advanceMinutes) or to an instant (to)',
            tags: ['sandbox'],
            body: Type.Object({
              advanceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5_256_000 })),
              to: Type.Optional(Type.String({ format: 'date-time' })),
            }),
            response: { 200: ClockBody, ...TRANSPORT_ERRORS },
          },
        },
        async (request) => {
          const { advanceMinutes, to } = request.body;
          if ((advanceMinutes === undefined) === (to === undefined)) throw new ApiError(100, 'invalid request: send exactly one of advanceMinutes or to', 400);
          if (to !== undefined) {
            const target = new Date(to);
            if (target.getTime() < clock.now().getTime()) throw new ApiError(100, 'invalid request: the clock only moves forward', 400);
            clock.set(target);
          } else {
            clock.advance((advanceMinutes ?? 0) * 60_000);
          }
          request.log.info({ now: clock.now().toISOString() }, 'sandbox clock moved');
          return { now: clock.now().toISOString(), offsetMs: clock.now().getTime() - Date.now() };
        },
      );
    });
  }
}
export type { App };
