// The booking chain's and seatAvailability.do's routes, registered from the route table (http/routes.ts).
// Rate pools (spec 8): seatAvailability.do + getLuggage.do share the ancillary pool, verify.do + getOffers.do
// the verify pool; each pool's routes live in one plugin scope that attaches the pool first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app.js';
import { callerOf, clientAuthHook } from '../http/auth.js';
import { TRANSPORT_ERRORS } from '../http/wire.js';
import { seatAvailability } from '../seats/availability.js';
import { SeatAvailabilityRequest, SeatAvailabilityResponse } from '../seats/wire.js';
import { createOrder } from './order.js';
import { payOrder } from './pay.js';
import { getOffers, search, verify, type BookingDeps } from './pricing.js';
import { getLuggage, queryOrderDetails } from './query.js';
import {
  GetLuggageRequest,
  GetLuggageResponse,
  GetOffersRequest,
  GetOffersResponse,
  OrderRequest,
  OrderResponse,
  PayRequest,
  PayResponse,
  QueryOrderRequest,
  QueryOrderResponse,
  SearchRequest,
  SearchResponse,
  VerifyRequest,
  VerifyResponse,
} from './wire.js';

/** Whether an Accept-Encoding header allows gzip (q > 0, by name or by `*`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip') return allowed;
    if (name === '*') star = allowed;
  }
  return star;
}

export function bookingDepsOf(deps: AppDeps): BookingDeps {
  return { db: deps.db, airlines: deps.airlines, clock: deps.clock, seatMaps: deps.seatMaps, sessions: deps.sessions, lookToBook: deps.lookToBook };
}

export function registerBookingRoutes(app: FastifyInstance, deps: AppDeps): void {
  const booking = bookingDepsOf(deps);
  const client = (request: FastifyRequest) => callerOf(request).clientId;
  const auth = () => clientAuthHook(deps.authenticator, deps.config.headerPrefix);
  const tags = ['booking'];

  // ---- ancillary pool: seatAvailability.do, getLuggage.do ----
  void app.register(async (scope) => {
    deps.pools.ancillary.attach(scope);
    scope.addHook('onRequest', auth());
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/seatAvailability.do',
      {
        config: { family: 'seat', errorShape: (base) => ({ cabins: null, ...base }) },
        schema: {
          summary: 'Seat map and seat prices of a booking chain (sessionId or offerId)',
          tags: ['seats'],
          body: SeatAvailabilityRequest,
          response: { 200: SeatAvailabilityResponse, ...TRANSPORT_ERRORS },
        },
      },
      async (request, typedReply) => {
        // Untyped reply: the body is bytes from the seat map cache, made by this route's own serializer
        // (reply.serialize, the response schema) when the cache built them.
        const reply = typedReply as FastifyReply;
        const answer = await seatAvailability(booking, client(request), request.body);
        const gzip = acceptsGzip(request.headers['accept-encoding']) && request.headers['x-no-compression'] === undefined;
        const out = deps.seatMaps.bytes(answer.parts, gzip, (body) => reply.serialize(body) as string);
        // a reused buffer goes back once written out (after 'finish' the socket holds no reference to it)
        if (out.release) reply.raw.once('finish', out.release);
        reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
        if (out.gzip) reply.header('content-encoding', 'gzip');
        return reply.send(out.bytes);
      },
    );
    api.post(
      '/getLuggage.do',
      { config: { family: 'booking' }, schema: { summary: 'Bags sold with the ticket', tags, body: GetLuggageRequest, response: { 200: GetLuggageResponse, ...TRANSPORT_ERRORS } } },
      async (request) => getLuggage(booking, client(request), request.body),
    );
  });

  // ---- verify pool: verify.do, getOffers.do ----
  void app.register(async (scope) => {
    deps.pools.verify.attach(scope);
    scope.addHook('onRequest', auth());
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/verify.do',
      { config: { family: 'booking' }, schema: { summary: 'Verify the price of an itinerary and open a session (2 h)', tags, body: VerifyRequest, response: { 200: VerifyResponse, ...TRANSPORT_ERRORS } } },
      async (request) => verify(booking, client(request), request.body),
    );
    api.post(
      '/getOffers.do',
      { config: { family: 'booking' }, schema: { summary: 'Offers for passengers and flights', tags, body: GetOffersRequest, response: { 200: GetOffersResponse, ...TRANSPORT_ERRORS } } },
      async (request) => getOffers(booking, client(request), request.body),
    );
  });

  // ---- outside the pools: search.do, order.do, pay.do, queryOrderDetails.do ----
  void app.register(async (scope) => {
    scope.addHook('onRequest', auth());
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();
    api.post(
      '/search.do',
      { config: { family: 'booking' }, schema: { summary: 'Search the schedule (routingIdentifier valid 6 h)', tags, body: SearchRequest, response: { 200: SearchResponse, ...TRANSPORT_ERRORS } } },
      async (request) => search(booking, client(request), request.body),
    );
    api.post(
      '/order.do',
      { config: { family: 'booking' }, schema: { summary: 'Book: an unpaid order with a payment deadline', tags, body: OrderRequest, response: { 200: OrderResponse, ...TRANSPORT_ERRORS } } },
      async (request) => createOrder(booking, client(request), request.body),
    );
    api.post(
      '/pay.do',
      { config: { family: 'booking' }, schema: { summary: 'Pay an order; the airline issues the tickets', tags, body: PayRequest, response: { 200: PayResponse, ...TRANSPORT_ERRORS } } },
      async (request) => payOrder(booking, client(request), request.body),
    );
    api.post(
      '/queryOrderDetails.do',
      { config: { family: 'booking' }, schema: { summary: 'An order by orderNo, or by airlinePNR and carrier', tags, body: QueryOrderRequest, response: { 200: QueryOrderResponse, ...TRANSPORT_ERRORS } } },
      async (request) => queryOrderDetails(booking, client(request), request.body),
    );
  });
}
