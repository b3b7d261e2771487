// Every HTTP endpoint of postbook, in one table: operations, the spec endpoints, the booking chain and
// seatAvailability.do, the sandbox administration. Handlers are thin: validate (schema), call one command,
// shape the answer. Policy lives elsewhere: client authentication and rate pools are per scope,
// Idempotency-Key replay is the `idempotent` wrapper (./idempotency.ts), errors go to ./errors.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { READINESS_LOG_MS, readiness } from './health.js';
import { VALIDATION_STATUS } from '../errors.js';
import { bearerAuthHook, callerOf, clientAuthHook } from './auth.js';
import { idempotent, type IdempotentEndpoint } from './idempotency.js';
import { sendSeatMap } from './seat-map-reply.js';
import { fromLane, keepSerializer, replayLaneBody } from './lane.js';
import { REFUND_QUOTATION_ROUTE } from './lane-routes.js';
import { ErrorBody, TRANSPORT_ERRORS } from '../wire.js';
import type { AppDeps } from '../deps.js';
import type { RatePool } from '../ratelimit/pools.js';
import { ClockState, MoveClockRequest, clockState } from '../sandbox-clock.js';
import { extractErrorShape, extractPnr } from '../pnr/extract.js';
import { sendKept } from './kept-answer.js';
import { claimPnr } from '../pnr/claim.js';
import { PNR_STATUS } from '../pnr/statuses.js';
import { BOOKING_STATUS as S } from '../booking/statuses.js';
import { SEAT_STATUS } from '../booking/seat-statuses.js';
import { ClaimRequest, ClaimResponse, ExtractPnrRequest, ExtractPnrResponse } from '../pnr/wire.js';
import { quoteRefund } from '../refunds/quote.js';
import { submitRefund } from '../refunds/submit.js';
import { queryRefunds } from '../refunds/query.js';
import type { RefundCaller } from '../refunds/deps.js';
import {
  QueryRefundOrdersRequest,
  QueryRefundOrdersResponse,
  RefundQuotationRequest,
  RefundQuotationResponse,
  RefundSubmitRequest,
  RefundSubmitResponse,
} from '../refunds/wire.js';
import { quoteVoid } from '../voids/quote.js';
import { submitVoid } from '../voids/submit.js';
import { queryVoids } from '../voids/query.js';
import { QueryVoidOrdersRequest, QueryVoidOrdersResponse, VoidQuotationRequest, VoidQuotationResponse, VoidSubmitRequest, VoidSubmitResponse } from '../voids/wire.js';
import { updateWebhookUrl } from '../webhooks/register.js';
import { UpdateWebhookUrlRequest, UpdateWebhookUrlResponse } from '../webhooks/wire.js';
import { seatAvailability } from '../booking/seat-availability.js';
import { SeatAvailabilityRequest, SeatAvailabilityResponse } from '../booking/seat-wire.js';
import { createOrder } from '../booking/order.js';
import { payFingerprint, payOrder } from '../booking/pay.js';
import type { BookingDeps } from '../booking/airline-calls.js';
import { getOffers } from '../booking/offers.js';
import { search, verify } from '../booking/pricing.js';
import { getLuggage } from '../booking/luggage.js';
import { queryOrderDetails } from '../booking/order-query.js';
import { OrderRequest, OrderResponse, PayRequest, PayResponse, QueryOrderRequest, QueryOrderResponse } from '../booking/wire-order.js';
import { GetLuggageRequest, GetLuggageResponse, GetOffersRequest, GetOffersResponse } from '../booking/wire-offers.js';
import {
  SearchRequest,
  SearchResponse,
  VerifyRequest,
  VerifyResponse,
} from '../booking/wire.js';

type App = FastifyInstance<never, never, never, never, TypeBoxTypeProvider> | FastifyInstance;
function typed(scope: FastifyInstance) {
  return scope.withTypeProvider<TypeBoxTypeProvider>();
}
type Api = ReturnType<typeof typed>;

const IdempotencyKey = Type.Object({ 'idempotency-key': Type.Optional(Type.String()) });

/**
 * pnr/claim.do is idempotent by itself (one order per record): a twin still running after the wait runs again.
 * Not final, so the key is free to retry: the airline's time-out and error, and 99013 "not ticketed yet" — a
 * "claim it once tickets are issued" (decision 0004), which a replay would have answered for 24 h after the
 * tickets were (found by a review).
 */
const CLAIM_NOT_FINAL: readonly number[] = [
  PNR_STATUS.TIMEOUT,
  PNR_STATUS.AIRLINE_ERROR,
  PNR_STATUS.NOT_TICKETED,
  // fixed by an operator, not by the caller (a review: a retry under its key was answered 99016 for 24 h after
  // support had moved the order its message asks to move): a carrier connected, claims allowed, an order moved
  PNR_STATUS.CARRIER_NOT_SERVED,
  PNR_STATUS.CLAIM_NOT_SUPPORTED,
  PNR_STATUS.TICKETS_ON_OTHER_ORDER,
];
const CLAIM_REPLAY: IdempotentEndpoint = {
  endpoint: 'pnr/claim.do',
  validationStatus: VALIDATION_STATUS.pnr,
  busy: null,
  isFinal: (a) => !CLAIM_NOT_FINAL.includes((a.body as { status: number }).status),
};

/**
 * order.do: one booking per key (each order.do holds seats at the airline under a new order number, so a retried
 * request without a key books again). A twin still running after the wait answers 318 (duplicate booking) with
 * nothing booked by it; an airline time-out or system issue (316, 324) is no final answer: the key is free to retry.
 */
const ORDER_REPLAY: IdempotentEndpoint = {
  endpoint: 'order.do',
  validationStatus: VALIDATION_STATUS.order,
  busy: { httpStatus: 200, body: { status: 318, msg: 'duplicate booking: an order.do with this Idempotency-Key is being made right now; retry it shortly for its answer' } },
  isFinal: (a) => ![316, 324].includes((a.body as { status: number }).status),
};

/**
 * refund.do: 814 ("try again shortly"), 809 (not ticketed yet: wait for order_status=2) and 826 (the tax refund
 * status cannot be confirmed yet) are no final answers: the key is free for the retry their msg asks for (a
 * review: they were replayed for 24 h, the retry never reaching the order).
 */
const REFUND_NOT_FINAL: readonly number[] = [814, 809, 826];
const REFUND_REPLAY: IdempotentEndpoint = {
  endpoint: 'refund.do',
  validationStatus: VALIDATION_STATUS.refund,
  busy: { httpStatus: 200, body: { status: 814, msg: 'refund submission already in progress; wait before retrying' } },
  isFinal: (a) => !REFUND_NOT_FINAL.includes((a.body as { status: number }).status),
  mayHaveActed: true,
};

/** void.do: as refund.do, 814 and 809 (not ticketed yet) are no final answers. */
const VOID_NOT_FINAL: readonly number[] = [814, 809];
const VOID_REPLAY: IdempotentEndpoint = {
  endpoint: 'void.do',
  validationStatus: VALIDATION_STATUS.refund,
  busy: { httpStatus: 200, body: { status: 814, msg: 'void submission already in progress; wait before retrying' } },
  isFinal: (a) => !VOID_NOT_FINAL.includes((a.body as { status: number }).status),
  mayHaveActed: true,
};

/**
 * pay.do: one payment per key — a retry after a lost answer replays it (it answered 404 "order already paid", which
 * the caller whose success was lost reads as a failure). Not final, the key free for the retry their msg asks for:
 * 400 (a corrected card or field is sent again under the key), 402 (an operator connects the airline), 406 (in
 * progress: settled within minutes) and 411 (nothing charged: the airline may issue on a retry). A request that
 * failed (HTTP 500) may have paid: the retry that takes its key over answers the payment made since (pay.ts).
 * The key's request hash is taken of `payFingerprint(body)`: no card number nor CVV is kept, not even as a hash.
 */
const PAY_NOT_FINAL: readonly number[] = [400, 402, 406, 411];
const PAY_REPLAY: IdempotentEndpoint = {
  endpoint: 'pay.do',
  validationStatus: VALIDATION_STATUS.pay,
  busy: { httpStatus: 200, body: { status: 406, msg: 'payment in progress: a pay.do with this Idempotency-Key is being made right now; retry it shortly for its answer' } },
  isFinal: (a) => !PAY_NOT_FINAL.includes((a.body as { status: number }).status),
  mayHaveActed: true,
  fingerprint: payFingerprint,
};

/** What the booking chain's commands are given (the routes here, and the answer lane's: lane-routes.ts). */
export function bookingDepsOf(app: FastifyInstance, deps: AppDeps): BookingDeps {
  return { db: deps.db, airlines: deps.airlines, clock: deps.clock, seatMaps: deps.seatMaps, sessions: deps.sessions, lookToBook: deps.lookToBook, rates: deps.refunds.rates, log: app.log };
}

export function registerRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { pools } = deps;
  const booking = bookingDepsOf(app, deps);
  const clientId = (request: FastifyRequest) => callerOf(request).clientId;
  const refundCaller = (request: FastifyRequest): RefundCaller => {
    const c = callerOf(request);
    return { clientId: c.clientId, settings: c.settings };
  };
  /** A scope of spec endpoints: client credentials on every call (spec 5), a rate pool first when given (spec 8). */
  const clients = (pool: RatePool | null, routes: (api: Api) => void) =>
    void app.register(async (scope) => {
      pool?.attach(scope, (name) => deps.metrics.poolRefused(name));
      scope.addHook('onRequest', clientAuthHook(deps.authenticator, deps.config.headerPrefix));
      routes(typed(scope));
    });
  const errors = TRANSPORT_ERRORS;
  const tags = ['booking'];

  // ---- operational, unauthenticated ----
  const ops = typed(app);
  const open = { config: { auth: 'none' as const }, schema: { hide: true } };
  // A newcomer's first request: where the API is described.
  ops.get('/', open, async () => ({
    service: 'postbook',
    docs: '/docs',
    openapi: '/openapi.json',
    health: '/healthz',
    ready: '/readyz',
    metrics: '/metrics',
    msg: 'every endpoint, its request and its answers: /docs (browsable) or GET /openapi.json',
  }));
  // Liveness: the process serves HTTP. /health is the older name, kept for existing probes.
  for (const url of ['/healthz', '/health']) ops.get(url, open, async () => ({ status: 'ok', store: deps.store.kind }));
  // Readiness: the store answers, its migrations are this build's, the job queue runs (else 503 and why).
  // A failed probe's detail logged once in READINESS_LOG_MS: load balancers poll every few seconds
  let readinessLogged = 0;
  ops.get('/readyz', open, async (req, reply) => {
    const r = await readiness(deps, (err) => {
      if (Date.now() - readinessLogged < READINESS_LOG_MS) return;
      readinessLogged = Date.now();
      req.log.warn({ err }, 'readiness probe failed (logged once a minute while it fails)');
    });
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'not ready', ...r.checks });
  });
  // A token of its own when METRICS_TOKEN is set (Prometheus sends it as authorization.credentials).
  const metricsAuth = deps.config.metricsToken ? [bearerAuthHook(deps.config.metricsToken, 'metrics token')] : [];
  ops.get('/metrics', { config: open.config, schema: open.schema, onRequest: metricsAuth }, async (_req, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.render()));
  ops.get('/openapi.json', open, async () => app.swagger());

  // ---- PNR: spec 4.5, 4.6; a pool of their own against probing (decision 0026) ----
  clients(deps.pools.pnr, (api) => {
    api.post(
      '/extractPnr.do',
      {
        config: { family: 'pnr', errorShape: (base, req) => extractErrorShape(base, req.body) },
        // a request the answer lane read and handed over: its body (lane.ts)
        preParsing: replayLaneBody,
        schema: { summary: 'Extract an airline PNR', tags: ['pnr'], body: ExtractPnrRequest, response: { 200: ExtractPnrResponse, ...errors } },
      },
      async (request, reply) => sendKept(request, reply, await fromLane(request, () => extractPnr(deps.airlines, request.body))),
    );
    api.post(
      '/pnr/claim.do',
      {
        config: { family: 'pnr' },
        schema: { summary: 'Claim an airline booking as an order of the calling client', tags: ['pnr'], headers: IdempotencyKey, body: ClaimRequest, response: { 200: ClaimResponse, ...errors } },
      },
      idempotent(deps.idempotency, CLAIM_REPLAY, (client, body: ClaimRequest) => claimPnr(deps, client.clientId, body)),
    );
  });

  // ---- refunds: spec 4.1–4.3 ----
  clients(null, (api) => {
    api.post(
      '/refundQuotation.do',
      {
        config: { family: 'refund' },
        // a request the answer lane read and handed over: its body (lane.ts)
        preParsing: replayLaneBody,
        schema: { summary: 'Quote a refund and get a refundOfferId', tags: ['refunds'], body: RefundQuotationRequest, response: { 200: RefundQuotationResponse, ...errors } },
      },
      async (request, reply) => {
        // the answer lane writes quotes with this route's serializer (lane-routes.ts)
        keepSerializer(deps.answerSerializers, REFUND_QUOTATION_ROUTE, reply);
        return fromLane(request, () => quoteRefund(deps.refunds, refundCaller(request), request.body));
      },
    );
    api.post(
      '/refund.do',
      {
        config: { family: 'refund' },
        schema: {
          summary: 'Submit a refund (by refundOfferId, or by refundRequestList in one step)',
          tags: ['refunds'],
          headers: IdempotencyKey,
          body: RefundSubmitRequest,
          response: { 200: RefundSubmitResponse, ...errors },
        },
      },
      idempotent(deps.idempotency, REFUND_REPLAY, (client, body: RefundSubmitRequest, progress) =>
        submitRefund(deps.refunds, { clientId: client.clientId, settings: client.settings }, body, progress.resumedFrom),
      ),
    );
    api.post(
      '/queryRefundOrders.do',
      {
        // eslint-disable-next-line no-restricted-syntax -- error answers only, off the hot path
        config: { family: 'refund', errorShape: (base) => ({ ...base, refundOrders: [] }) },
        schema: { summary: 'Refund orders of an order, newest first', tags: ['refunds'], body: QueryRefundOrdersRequest, response: { 200: QueryRefundOrdersResponse, ...errors } },
      },
      async (request) => queryRefunds(deps.refunds, refundCaller(request), request.body),
    );
  });

  // ---- voids (docs/voids.md): the refund family's statuses ----
  clients(null, (api) => {
    api.post(
      '/voidQuotation.do',
      {
        // eslint-disable-next-line no-restricted-syntax -- error answers only, off the hot path
        config: { family: 'refund', errorShape: (base) => ({ ...base, isVoidable: false }) },
        schema: { summary: 'Check that an order can be voided today and get a voidOfferId', tags: ['voids'], body: VoidQuotationRequest, response: { 200: VoidQuotationResponse, ...errors } },
      },
      async (request) => quoteVoid(deps.voids, { clientId: clientId(request) }, request.body),
    );
    api.post(
      '/void.do',
      {
        config: { family: 'refund' },
        schema: { summary: 'Void a whole order with its latest voidOfferId', tags: ['voids'], headers: IdempotencyKey, body: VoidSubmitRequest, response: { 200: VoidSubmitResponse, ...errors } },
      },
      idempotent(deps.idempotency, VOID_REPLAY, (client, body: VoidSubmitRequest, progress) => submitVoid(deps.voids, { clientId: client.clientId }, body, progress.resumedFrom)),
    );
    api.post(
      '/queryVoidOrders.do',
      {
        // eslint-disable-next-line no-restricted-syntax -- error answers only, off the hot path
        config: { family: 'refund', errorShape: (base) => ({ ...base, voidOrders: [] }) },
        schema: { summary: 'Void orders of an order (by voidCode or orderNo), newest first', tags: ['voids'], body: QueryVoidOrdersRequest, response: { 200: QueryVoidOrdersResponse, ...errors } },
      },
      async (request) => queryVoids(deps.voids, { clientId: clientId(request) }, request.body),
    );
  });

  // ---- webhooks: the original's registration call (docs/webhooks.md) ----
  clients(null, (api) => {
    api.post(
      '/updateWebhookURL.do',
      {
        // eslint-disable-next-line no-restricted-syntax -- error answers only, off the hot path
        config: { family: 'webhook', errorShape: (base) => ({ ...base, webhookSecret: null }) },
        schema: {
          summary: 'Register the URL receiving refund status webhooks; the first registration answers the signing secret, once (rotateSecret: a new one)',
          tags: ['webhooks'],
          body: UpdateWebhookUrlRequest,
          response: { 200: UpdateWebhookUrlResponse, ...errors },
        },
      },
      async (request) => updateWebhookUrl(deps.webhooks, clientId(request), request.body),
    );
  });

  // ---- booking chain, ancillary pool (spec 8): seatAvailability.do, getLuggage.do ----
  clients(pools.ancillary, (api) => {
    api.post(
      '/seatAvailability.do',
      {
        // 220 illegal parameter, 215 a segment without its index: the request's own fields (not counted, spec 8)
        config: { family: 'seat', invalid: [SEAT_STATUS.ILLEGAL_PARAMETER, SEAT_STATUS.SEGMENT_INDEX_MISSING], errorShape: (base) => ({ cabins: null, ...base }) },
        // a request the answer lane read and handed over: its body (lane.ts)
        preParsing: replayLaneBody,
        schema: { summary: 'Seat map and seat prices of a booking chain (sessionId or offerId)', tags: ['seats'], body: SeatAvailabilityRequest, response: { 200: SeatAvailabilityResponse, ...errors } },
      },
      // the body is bytes the seat map cache made with this route's serializer
      async (request, reply) => {
        const caller = callerOf(request);
        const answer = await fromLane(request, () => seatAvailability(booking, caller.clientId, request.body, caller.settings));
        await booking.lookToBook.recordSeatRequest(caller.clientId);
        return sendSeatMap(deps.seatMaps, deps.answerSerializers, request, reply, answer);
      },
    );
    api.post(
      '/getLuggage.do',
      { config: { family: 'luggage' }, schema: { summary: 'Bags sold with the ticket', tags, body: GetLuggageRequest, response: { 200: GetLuggageResponse, ...errors } } },
      async (request) => getLuggage(booking, clientId(request), request.body),
    );
  });

  // ---- booking chain, verify pool (spec 8): verify.do, getOffers.do ----
  clients(pools.verify, (api) => {
    api.post(
      '/verify.do',
      { config: { family: 'verify' }, schema: { summary: 'Verify the price of an itinerary and open a session (2 h)', tags, body: VerifyRequest, response: { 200: VerifyResponse, ...errors } } },
      async (request) => verify(booking, clientId(request), request.body),
    );
    api.post(
      '/getOffers.do',
      { config: { family: 'booking', invalid: [S.INVALID, S.OFFERS_FORMAT, S.OFFERS_ILLEGAL] }, schema: { summary: 'Offers for passengers and flights', tags, body: GetOffersRequest, response: { 200: GetOffersResponse, ...errors } } },
      async (request) => getOffers(booking, clientId(request), request.body),
    );
  });

  // ---- booking chain, search pool (10 a second, a rolling second; the original interface's public notes): search.do ----
  clients(pools.search, (api) => {
    api.post(
      '/search.do',
      { config: { family: 'booking', invalid: [S.INVALID, S.SEARCH_FORMAT, S.SEARCH_ILLEGAL] }, schema: { summary: 'Search the schedule (routingIdentifier valid 6 h)', tags, body: SearchRequest, response: { 200: SearchResponse, ...errors } } },
      async (request) => search(booking, clientId(request), request.body),
    );
  });

  // ---- booking chain outside the pools: order.do, pay.do, queryOrderDetails.do ----
  clients(null, (api) => {
    api.post(
      '/order.do',
      {
        config: { family: 'order' },
        schema: {
          summary: 'Book: an unpaid order with a payment deadline (308/322: re-priced, see docs/decisions/0023)',
          tags: ['orders'],
          headers: IdempotencyKey,
          body: OrderRequest,
          response: { 200: OrderResponse, ...errors },
        },
      },
      idempotent(deps.idempotency, ORDER_REPLAY, async (client, body: OrderRequest, progress) => {
        const answer = await createOrder(booking, client.clientId, body, progress);
        // 308/322 carry the new price and a re-priced session, not an order (decision 0023): sent as they are.
        return 'repriced' in answer ? answer.body : answer;
      }),
    );
    api.post(
      '/pay.do',
      { config: { family: 'pay' }, schema: { summary: 'Pay an order; the airline issues the tickets', tags: ['payments'], headers: IdempotencyKey, body: PayRequest, response: { 200: PayResponse, ...errors } } },
      idempotent(deps.idempotency, PAY_REPLAY, (client, body: PayRequest, progress) => payOrder(booking, client.clientId, body, progress.resumedFrom)),
    );
    api.post(
      '/queryOrderDetails.do',
      {
        config: { family: 'booking' },
        schema: { summary: 'An order by orderNo, pnrCode (our booking reference), or airlinePNR and carrier', tags, body: QueryOrderRequest, response: { 200: QueryOrderResponse, ...errors } },
      },
      async (request) => queryOrderDetails(booking, clientId(request), request.body),
    );
  });

  // ---- sandbox administration: exists only in sandbox mode (the command: ../sandbox-clock.ts) ----
  if (deps.config.sandbox && deps.sandboxClock) {
    const shared = deps.sandboxClock;
    void app.register(async (scope) => {
      scope.addHook('onRequest', bearerAuthHook(deps.config.adminToken ?? deps.world?.adminToken ?? null, 'admin token'));
      const admin = typed(scope);
      admin.get('/sandbox/clock', { config: { family: 'admin' }, schema: { summary: 'The sandbox clock: now and its offset from the real time', tags: ['sandbox'], response: { 200: ClockState, ...errors } } }, async () => {
        await shared.load(); // a move made through another process shows at once
        return clockState(shared.clock);
      });
      admin.post(
        '/sandbox/clock',
        {
          config: { family: 'admin' },
          schema: { summary: 'Move the sandbox clock forward (advanceMinutes) or to an instant (to)', tags: ['sandbox'], body: MoveClockRequest, response: { 200: ClockState, ...errors, 409: ErrorBody } },
        },
        async (request) => {
          const moved = await shared.move(request.body);
          request.log.info({ now: moved.now }, 'sandbox clock moved');
          return moved;
        },
      );
    });
  }
}
export type { App };
