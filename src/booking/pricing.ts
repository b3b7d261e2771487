// search.do, verify.do and getOffers.do: the airline prices an itinerary; postbook keeps it as a
// routingIdentifier, a sessionId or an offerId for the later steps.
import type { BookingConnector, FlightRef } from '../airline/connector.js';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { airline, bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { isoUtc, itineraryOf, routingOf, type PaxCounts } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { GetOffersRequest, SearchRequest, VerifyRequest } from './wire.js';

export function paxOf(req: { adults: number; children?: number | null; infants?: number | null }): PaxCounts {
  const pax = { adults: req.adults, children: req.children ?? 0, infants: req.infants ?? 0 };
  if (pax.infants > pax.adults) throw new ApiError(S.PASSENGERS_INVALID, 'passengers: every infant needs an adult');
  if (pax.adults + pax.children > 9) throw new ApiError(S.PASSENGERS_INVALID, 'passengers: at most 9 seated passengers');
  return pax;
}

const BOOKING_REQUIREMENT = { documentRequired: false, birthdayRequiredFor: [1, 2] };

export async function search(deps: BookingDeps, clientId: string, req: SearchRequest) {
  const pax = paxOf(req);
  const cabinClass = req.cabinClass ?? 1;
  const q = { depAirport: req.depAirport.toUpperCase(), arrAirport: req.arrAirport.toUpperCase(), depDate: req.depDate, retDate: req.retDate ?? null, cabinClass };
  const carriers = req.carrier ? [req.carrier.toUpperCase()] : null;
  const connectors = new Set(
    (carriers ?? deps.airlines.carriers()).map((c) => deps.airlines.forCarrier(c)?.booking).filter((b): b is BookingConnector => Boolean(b)),
  );
  const found = [];
  for (const b of connectors) found.push(...(await airline(() => b.search(carriers?.[0] ?? null, q, callOpts()))));
  const now = deps.clock.now();
  const routings = [];
  for (const p of found.filter((f) => f.seatsLeft >= pax.adults + pax.children)) {
    const it = itineraryOf(p, cabinClass);
    const s = await deps.sessions.create({ kind: 'search', clientId, itinerary: it, pax, now });
    routings.push({ routingIdentifier: s.id, maxSeats: it.seatsLeft, ...routingOf(it) });
  }
  return { status: 0, msg: routings.length ? 'success' : 'no flights found', routings };
}

/** Flights of request segments (`depTime` yyyyMMdd[HHmm]). */
function refsOf(segs: Array<{ carrier: string; flightNumber: string; depAirport: string; arrAirport: string; depTime: string }>, direction: 'out' | 'ret') {
  return segs.map((s) => ({
    direction,
    flight: { carrier: s.carrier.toUpperCase(), flightNumber: s.flightNumber.toUpperCase(), depDate: s.depTime.slice(0, 8), depAirport: s.depAirport.toUpperCase(), arrAirport: s.arrAirport.toUpperCase() } satisfies FlightRef,
  }));
}

async function priceFlights(deps: BookingDeps, flights: Array<{ flight: FlightRef; direction: 'out' | 'ret' }>, cabinClass: number) {
  const carrier = flights[0]!.flight.carrier;
  const b = bookingOf(deps.airlines, carrier);
  const priced = await airline(() => b.price(carrier, flights, cabinClass, callOpts()));
  if (!priced) throw new ApiError(S.FLIGHT_NOT_FOUND, 'flight not found in the airline schedule');
  return itineraryOf(priced, cabinClass);
}

export async function verify(deps: BookingDeps, clientId: string, req: VerifyRequest) {
  const pax = paxOf(req);
  const now = deps.clock.now();
  let it;
  let priceChange = false;
  if (req.routingIdentifier) {
    const routing = await deps.sessions.find(clientId, req.routingIdentifier, ['search'], now);
    if (!routing) throw new ApiError(S.ROUTING_INVALID, 'routingIdentifier unknown or expired (valid 6 h); search again');
    it = await priceFlights(
      deps,
      routing.itinerary.segments.map((s) => ({ direction: s.direction, flight: { carrier: s.carrier, flightNumber: s.flightNumber, depDate: s.depDate, depAirport: s.depAirport, arrAirport: s.arrAirport } })),
      routing.itinerary.cabinClass,
    );
    priceChange = JSON.stringify(it.price) !== JSON.stringify(routing.itinerary.price);
  } else if (req.fromSegments?.length) {
    const cabinClass = req.fromSegments[0]!.cabinClass ?? 1;
    it = await priceFlights(deps, [...refsOf(req.fromSegments, 'out'), ...refsOf(req.retSegments ?? [], 'ret')], cabinClass);
  } else {
    throw new ApiError(S.INVALID, 'invalid request: send routingIdentifier or fromSegments');
  }
  if (it.seatsLeft < pax.adults + pax.children) throw new ApiError(S.SOLD_OUT, `only ${it.seatsLeft} seat(s) left`);
  const session = await deps.sessions.create({ kind: 'verify', clientId, itinerary: it, pax, now });
  return {
    status: 0,
    msg: 'success',
    sessionId: session.id,
    expiresAt: isoUtc(session.expiresAt),
    maxSeats: it.seatsLeft,
    routing: routingOf(it),
    bookingRequirement: BOOKING_REQUIREMENT,
    priceChange,
  };
}

export async function getOffers(deps: BookingDeps, clientId: string, req: GetOffersRequest) {
  const pax = paxOf(req);
  const toRefs = (segs: GetOffersRequest['outboundSegments'], direction: 'out' | 'ret') =>
    refsOf(segs.map((s) => ({ carrier: s.carrier, flightNumber: s.flightNumber, depAirport: s.departureAirport, arrAirport: s.arrivalAirport, depTime: s.departureDate })), direction);
  const it = await priceFlights(deps, [...toRefs(req.outboundSegments, 'out'), ...toRefs(req.inboundSegments ?? [], 'ret')], req.cabinClass ?? 1);
  if (it.seatsLeft < pax.adults + pax.children) throw new ApiError(S.SOLD_OUT, `only ${it.seatsLeft} seat(s) left`);
  const offer = await deps.sessions.create({ kind: 'offer', clientId, itinerary: it, pax, now: deps.clock.now() });
  const c = it.price.currency;
  const fares = [
    { passengerType: 0, count: pax.adults, price: toAmount(it.price.adult.fareMinor, c), tax: toAmount(it.price.adult.taxMinor, c) },
    { passengerType: 1, count: pax.children, price: toAmount(it.price.child.fareMinor, c), tax: toAmount(it.price.child.taxMinor, c) },
    { passengerType: 2, count: pax.infants, price: toAmount(it.price.infant.fareMinor, c), tax: toAmount(it.price.infant.taxMinor, c) },
  ].filter((f) => f.count > 0);
  return {
    status: 0,
    msg: 'success',
    data: [
      {
        offer: {
          offerId: offer.id,
          expiresAt: isoUtc(offer.expiresAt),
          currency: c,
          fares,
          penalties: [{ type: 'REFUND_BEFORE_DEPARTURE', amount: null, currency: c }],
          services: [{ type: 'SEAT_SELECTION', included: false }, { type: 'CHECKED_BAGGAGE', included: false }],
          routing: routingOf(it),
        },
      },
    ],
    serviceFee: { amount: toAmount(it.price.feeMinor, c), currency: c, mode: it.price.feeMode },
    bookingRequirement: BOOKING_REQUIREMENT,
  };
}
