// getLuggage.do: the bags the airline sells with the ticket of a verify session or an offer.
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { baggageProducts } from './order.js';
import { bookingOf, type BookingDeps } from './airline-calls.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { GetLuggageRequest } from './wire.js';

export async function getLuggage(deps: BookingDeps, clientId: string, req: GetLuggageRequest) {
  const session = await deps.sessions.find(clientId, req.offerId, ['offer', 'verify'], deps.clock.now());
  if (!session) throw new ApiError(S.SESSION_INVALID, 'offerId (or sessionId) missing or expired');
  const products = baggageProducts(bookingOf(deps.airlines, session.itinerary.carrier), session.itinerary);
  return {
    status: 0,
    msg: 'success',
    products: products.map((p) => ({
      categoryCode: p.category,
      piece: p.piece,
      weight: p.weight,
      price: toAmount(p.priceMinor, p.currency),
      currency: p.currency,
      productCode: p.code,
      segmentIndex: p.segmentIndex,
      canPurchaseWithTicket: p.canPurchaseWithTicket,
      canPurchasePostTicket: p.canPurchasePostTicket,
    })),
  };
}
