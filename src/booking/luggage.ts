// getLuggage.do (plan §3.4, §8.4; docs/decisions/0024): the bags the airline sells with the ticket of a verify
// session or an offer, as the original's AncillaryProduct list next to the itinerary's RoutingSegments.
import type { BaggageProduct } from '../airline/connector.js';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { airline, bookingOf, callOpts, DEFAULT_MAX_RESPONSE_MS, type BookingDeps } from './airline-calls.js';
import { airlineSegmentsOf, offerIdOf, routingSegmentOf } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { AncillaryProduct, GetLuggageRequest } from './wire-offers.js';

/**
 * A bag of the airline as the original's AncillaryProduct (plan §2.5), also verify.do's routing bags. The
 * settlement currency is the airline's sale currency (decision 0021), so the vendor price is the price.
 */
export function ancillaryProductOf(p: BaggageProduct): AncillaryProduct {
  const price = toAmount(p.priceMinor, p.currency);
  return {
    productCode: p.code,
    ancillaryCode: p.code,
    segmentIndex: p.segmentIndex,
    categoryCode: p.category,
    auxBaggageElement: { isAllWeight: false, piece: p.piece, weight: p.weight, size: null },
    canPurchaseWithTicket: p.canPurchaseWithTicket ? 1 : 0,
    canPurchasePostTicket: p.canPurchasePostTicket ? 1 : 0,
    price,
    currency: p.currency,
    vendorPrice: price,
    vendorCurrency: p.currency,
    clientTechnicalServiceFee: 0,
    maxQty: 1,
    minQty: 1,
  };
}

export async function getLuggage(deps: BookingDeps, clientId: string, req: GetLuggageRequest) {
  const id = offerIdOf(req);
  if (!id) throw new ApiError(S.LUGGAGE_ILLEGAL, 'invalid request: offerId is required (an offerID of getOffers.do, or a verify.do sessionId)');
  const budget = req.maxResponseTime ?? null;
  if (budget !== null && budget <= 0) throw new ApiError(S.LUGGAGE_ILLEGAL, 'maxResponseTime must be a positive number of milliseconds');
  const found = await deps.sessions.lookup(clientId, id, ['offer', 'verify'], deps.clock.now());
  if (found.state === 'expired') throw new ApiError(S.LUGGAGE_OFFER_UNKNOWN, 'offer expired (offers and sessions are valid 2 h); ask getOffers.do or verify.do again');
  if (found.state !== 'live') throw new ApiError(S.LUGGAGE_OFFER_UNKNOWN, 'offer does not exist (unknown id, or not yours)');
  const it = found.session.itinerary;
  const b = bookingOf(deps.airlines, it.carrier, S.LUGGAGE_AIRLINE);
  const bags = await airline(
    async () => (b.luggage ? b.luggage(it.carrier, airlineSegmentsOf(it), it.price.currency, callOpts(budget ?? DEFAULT_MAX_RESPONSE_MS)) : b.baggage(it.carrier, airlineSegmentsOf(it), it.price.currency)),
    { timeout: S.LUGGAGE_TIMEOUT, other: S.LUGGAGE_AIRLINE },
  );
  const segments = (direction: 'out' | 'ret') => it.segments.filter((s) => s.direction === direction).map((s) => routingSegmentOf(s, it.seatsLeft));
  return {
    status: 0,
    msg: 'success',
    data: {
      offerId: id,
      outboundSegments: segments('out'),
      inboundSegments: segments('ret'),
      ancillaryProductElements: bags.map(ancillaryProductOf),
    },
  };
}
