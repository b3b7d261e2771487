// search.do and verify.do: the airline prices an itinerary; postbook keeps it as a routingIdentifier or a
// sessionId for the later steps (getOffers.do, the third pricing call, is offers.ts).
import { DateTime } from 'luxon';
import { CONNECTION_MINUTES, journeyKey, type AirlineSegment, type BookingConnector, type CallOptions, type FlightRef, type PricedItinerary, type SearchQuery } from '../airline/connector.js';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { airline, bookingOf, callOpts, DEFAULT_MAX_RESPONSE_MS, type BookingDeps } from './airline-calls.js';
import { baggageProducts } from './order.js';
import { ancillaryProductOf } from './luggage.js';
import { fullRoutingOf, type TermsOf } from './routing.js';
import { flightRefOf, itineraryOf, type ChainItinerary, type ChainSegment, type PaxCounts } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { SearchRequest, VerifyRequest } from './wire.js';

/** The carrier's published fare family terms (decision 0024), or null when its connector publishes none. */
export function termsOf(deps: BookingDeps, carrier: string): TermsOf | null {
  const b = deps.airlines.forCarrier(carrier)?.booking;
  return b?.fareFamilyTerms ? (family) => b.fareFamilyTerms!(carrier, family) : null;
}

// ---- search.do (plan §3.1, §6; docs/decisions/0021) ----

export const CODE = /^[A-Za-z]{3}$/;

/** "" and null are "absent" for an optional string (decision 0021). */
export const given = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

/** A count sent as an integer or its decimal string; null when absent, NaN when not a count. */
export function countOf(v: number | string | null | undefined): number | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number') return v;
  return /^\d{1,2}$/.test(v.trim()) ? Number(v.trim()) : NaN;
}

/** yyyyMMdd (the dashed yyyy-MM-dd of one model example is accepted too), or null when it is no date. */
export function dateOf(v: string): string | null {
  const d = v.trim().replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$1$2$3');
  return /^\d{8}$/.test(d) && DateTime.fromFormat(d, 'yyyyMMdd').isValid ? d : null;
}

/** The passenger mix of a search (or of verify.do's segment path): 102 / 212 with the original's msg variants. */
export function paxCountsOf(
  req: { adultNum?: number | string | null; childNum?: number | string | null; infantNum?: number | string | null },
  status: number,
  defaultAdults: number | null,
  /** The adults' field as the caller's endpoint names it (getOffers.do: `adults`; a review: its msg said adultNum). */
  adultsField = 'adultNum',
): PaxCounts {
  const adults = countOf(req.adultNum) ?? defaultAdults;
  const children = countOf(req.childNum) ?? 0;
  const infants = countOf(req.infantNum) ?? 0;
  if (adults === null) throw new ApiError(S.INVALID, `invalid request: ${adultsField} is required`);
  if ([adults, children, infants].some((n) => !Number.isInteger(n) || n < 0)) throw new ApiError(status, 'passenger numbers must be whole numbers of 0 or more');
  if (adults < 1) throw new ApiError(status, 'at least 1 adult is required');
  if (adults + children > 9) throw new ApiError(status, 'more than 9 passengers');
  if (infants > adults) throw new ApiError(status, 'every infant needs an adult');
  return { adults, children, infants };
}

/** The airports a city-or-airport code (and an optional pinned airport) stands for, over every bookable airline (plan §6). */
function placeOf(connectors: BookingConnector[], side: 'from' | 'to', cityField: string | null, airportField: string | null): string[] {
  const code = cityField ?? airportField;
  if (!code) throw new ApiError(S.SEARCH_ILLEGAL, `${side}City or ${side}Airport must not be empty`);
  for (const [field, v] of [[`${side}City`, cityField], [`${side}Airport`, airportField]] as const) {
    if (v !== null && !CODE.test(v)) throw new ApiError(S.SEARCH_FORMAT, `${field} must be a 3-letter IATA code`);
  }
  const of = (c: string) => {
    const all = new Set(connectors.flatMap((b) => b.airportsOf(c.toUpperCase()) ?? []));
    return all.size > 0 ? [...all] : null;
  };
  const airports = of(code);
  if (!airports) throw new ApiError(S.SEARCH_ILLEGAL, `unknown city code ${code.toUpperCase()}`);
  if (cityField && airportField) {
    const pinned = airportField.toUpperCase();
    if (!airports.includes(pinned)) throw new ApiError(S.SEARCH_ILLEGAL, `${side}Airport ${pinned} is not an airport of ${side}City ${cityField.toUpperCase()}`);
    return [pinned];
  }
  return airports;
}

export async function search(deps: BookingDeps, clientId: string, req: SearchRequest) {
  const tripType = String(req.tripType).trim();
  if (tripType !== '1' && tripType !== '2') throw new ApiError(S.SEARCH_FORMAT, 'tripType must be "1" (one-way) or "2" (return)');
  const pax = paxCountsOf(req, S.SEARCH_ILLEGAL, null);
  const fromText = given(req.fromDate);
  if (!fromText) throw new ApiError(S.SEARCH_ILLEGAL, 'fromDate must not be empty');
  const depDate = dateOf(fromText);
  if (!depDate) throw new ApiError(S.SEARCH_ILLEGAL, 'fromDate must be a date yyyyMMdd');
  let retDate: string | null = null;
  if (tripType === '2') {
    const retText = given(req.retDate);
    if (!retText) throw new ApiError(S.SEARCH_ILLEGAL, 'retDate must not be empty for a return trip');
    retDate = dateOf(retText);
    if (!retDate) throw new ApiError(S.SEARCH_ILLEGAL, 'retDate must be a date yyyyMMdd');
    if (retDate < depDate) throw new ApiError(S.SEARCH_ILLEGAL, 'retDate is before fromDate');
  }
  const currency = given(req.currency)?.toUpperCase() ?? null;
  if (currency !== null && !CODE.test(currency)) throw new ApiError(S.SEARCH_FORMAT, 'currency must be a 3-letter ISO 4217 code');
  const carriers = (req.airlines ?? []).map((c) => c.trim().toUpperCase()).filter(Boolean);
  const cabinClass = req.cabinClass ?? 1;

  const connectors = [...new Set(deps.airlines.carriers().map((c) => deps.airlines.forCarrier(c)?.booking).filter((b): b is BookingConnector => Boolean(b)))];
  const depAirports = placeOf(connectors, 'from', given(req.fromCity), given(req.fromAirport));
  const arrAirports = placeOf(connectors, 'to', given(req.toCity), given(req.toAirport));

  const flightsOf = (list: string[] | null | undefined) => (list?.length ? list.map((n) => n.split(',').map((x) => x.trim().toUpperCase())) : undefined);
  // a one-way search has no return to filter: its retFlightNumbers are ignored (they made every routing 114: a review)
  const [outFlights, retFlights] = [flightsOf(req.fromFlightNumbers), retDate ? flightsOf(req.retFlightNumbers) : undefined];
  // The airline is asked for the caller's carriers and flights, not for everything (a review: its cut to its first
  // answers came before our filters, and a failing carrier the caller did not ask for failed the search)
  const q: SearchQuery = {
    depAirports,
    arrAirports,
    depDate,
    retDate,
    cabinClass,
    allFareFamilies: req.includeMultipleFareFamily === true,
    ...(carriers.length > 0 ? { carriers } : {}),
    ...(outFlights ? { outFlights } : {}),
    ...(retFlights ? { retFlights } : {}),
  };
  const found: PricedItinerary[] = [];
  // Only the airlines of the caller's carriers are asked (one connector may serve several)
  const asked = carriers.length > 0 ? connectors.filter((b) => carriers.some((c) => deps.airlines.forCarrier(c)?.booking === b)) : connectors;
  for (const b of asked) found.push(...(await airline(() => b.search(null, q, callOpts()), { timeout: S.SEARCH_TIMEOUT, other: S.SEARCH_AIRLINE_INACTIVE })));

  // Checked again here: a connector need not filter (the interface asks it to)
  const outWanted = outFlights ? new Set(outFlights.map(journeyKey)) : null;
  const retWanted = retFlights ? new Set(retFlights.map(journeyKey)) : null;
  const numbersOf = (p: PricedItinerary, d: 'out' | 'ret') => journeyKey(p.segments.filter((s) => s.direction === d).map((s) => s.flightNumber));
  const flying = found.filter(
    (p) =>
      (carriers.length === 0 || carriers.includes(p.carrier)) &&
      (!outWanted || outWanted.has(numbersOf(p, 'out'))) &&
      (!retWanted || retWanted.has(numbersOf(p, 'ret'))) &&
      p.seatsLeft >= pax.adults + pax.children &&
      (pax.infants === 0 || p.infantsAllowed !== false),
  );
  if (flying.length === 0) throw new ApiError(S.SEARCH_NO_FLIGHTS, 'no flights for this search');
  // The settlement currency is the airline's sale currency (decision 0021): a routing in another one is not offered.
  const sold = currency ? flying.filter((p) => p.price.currency === currency) : flying;
  if (sold.length === 0) throw new ApiError(S.SEARCH_CURRENCY, `settlement currency ${currency} is not supported for this search (the airline sells in ${[...new Set(flying.map((p) => p.price.currency))].join(', ')})`);

  const now = deps.clock.now();
  const routings = [];
  for (const p of sold) {
    const it = itineraryOf(p, cabinClass);
    const s = await deps.sessions.create({ kind: 'search', clientId, itinerary: it, pax, now });
    routings.push(fullRoutingOf(it, s.id, { refreshTime: now, expireTime: s.expiresAt, terms: termsOf(deps, it.carrier) }));
  }
  return { status: 0, msg: 'success', routings };
}

// ---- verify.do (plan §3.2, §8.2; docs/decisions/0021) ----

/** "771", "0771" or "XS771" of carrier XS → "XS771"; null when it is no flight number. */
export function fullFlightNumber(carrier: string, flightNumber: string): string | null {
  const c = carrier.trim().toUpperCase();
  let n = flightNumber.trim().toUpperCase();
  if (n.startsWith(c) && /^\d+$/.test(n.slice(c.length))) n = n.slice(c.length);
  if (!/^\d{1,5}$/.test(n)) return null;
  const digits = String(Number(n));
  return digits.length <= 4 ? c + digits : null;
}

/**
 * Request segments named as the original names flights (verify.do and getOffers.do: carrier, flight number
 * without or with prefix, airports, departure date) as flights; `status` when one is malformed (verify.do 212,
 * getOffers.do 101).
 */
export function segmentRefsOf(segs: NonNullable<VerifyRequest['outboundSegments']>, direction: 'out' | 'ret', status: number) {
  return segs.map((s, i) => {
    const where = `${direction === 'out' ? 'outboundSegments' : 'inboundSegments'}[${i}]`;
    const carrier = s.carrier.trim().toUpperCase();
    if (!/^[A-Z0-9]{2}$/.test(carrier)) throw new ApiError(status, `${where}.carrier must be a 2-letter airline code`);
    const flightNumber = fullFlightNumber(carrier, s.flightNumber);
    if (!flightNumber) throw new ApiError(status, `${where}.flightNumber is not a flight number`);
    const depDate = dateOf(s.departureDate);
    if (!depDate) throw new ApiError(status, `${where}.departureDate must be a date yyyyMMdd`);
    for (const [f, v] of [['departureAirport', s.departureAirport], ['arrivalAirport', s.arrivalAirport]] as const) {
      if (!CODE.test(v)) throw new ApiError(status, `${where}.${f} must be a 3-letter airport code`);
    }
    return { direction, flight: { carrier, flightNumber, depDate, depAirport: s.departureAirport.toUpperCase(), arrAirport: s.arrivalAirport.toUpperCase() } satisfies FlightRef };
  });
}

/** verify.do's re-pricing: its own statuses for a closed airline (203), a time-out (205), a flight gone (207). */
async function reprice(
  deps: BookingDeps,
  flights: Array<{ flight: FlightRef; direction: 'out' | 'ret'; fareFamily?: string | null }>,
  cabinClass: number,
  opts: CallOptions,
  namedByCaller = false,
) {
  const carrier = flights[0]!.flight.carrier;
  if (flights.some((f) => f.flight.carrier !== carrier)) throw new ApiError(S.VERIFY_ILLEGAL, 'every segment must be of one carrier');
  const b = bookingOf(deps.airlines, carrier, S.VERIFY_AIRLINE_CLOSED);
  const priced = await airline(() => b.price(carrier, flights, cabinClass, opts), { timeout: S.VERIFY_TIMEOUT });
  if (!priced) throw new ApiError(S.VERIFY_FLIGHT_UNAVAILABLE, 'the flight is no longer available');
  const problem = namedByCaller ? journeyProblem(priced.segments) : null;
  if (problem) throw new ApiError(S.VERIFY_ILLEGAL, `these flights make no itinerary search.do offers: ${problem}`);
  return itineraryOf(priced, cabinClass);
}

/**
 * Why flights named one by one (verify.do's and getOffers.do's segments) make no itinerary search.do could have
 * offered, or null: a flight named twice, a connection that does not leave from where the flight before lands or
 * changes in less than 60 or more than 720 minutes, a return leaving before the outbound lands (a review: the same
 * flight twice was verified at twice the fare, and a return six days before the outbound).
 */
export function journeyProblem(segments: readonly AirlineSegment[]): string | null {
  const seen = new Set<string>();
  for (const s of segments) {
    const key = `${s.flightNumber}|${s.depAt.getTime()}`;
    if (seen.has(key)) return `flight ${s.flightNumber} is named twice`;
    seen.add(key);
  }
  const legs = (d: 'out' | 'ret') => segments.filter((s) => s.direction === d);
  for (const list of [legs('out'), legs('ret')]) {
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!];
      if (b.depAirport !== a.arrAirport) return `${b.flightNumber} does not leave from ${a.arrAirport}, where ${a.flightNumber} lands`;
      const change = (b.depAt.getTime() - a.arrAt.getTime()) / 60_000;
      if (change < CONNECTION_MINUTES.min || change > CONNECTION_MINUTES.max) {
        return `${b.flightNumber} leaves ${Math.round(change)} minutes after ${a.flightNumber} lands (a connection takes ${CONNECTION_MINUTES.min} to ${CONNECTION_MINUTES.max})`;
      }
    }
  }
  const [lastOut, firstRet] = [legs('out').at(-1), legs('ret')[0]];
  if (lastOut && firstRet && firstRet.depAt.getTime() <= lastOut.arrAt.getTime()) return `the return ${firstRet.flightNumber} leaves before ${lastOut.flightNumber} lands`;
  return null;
}

const priceFields = (it: ChainItinerary) => {
  const c = it.price.currency;
  return {
    AdultPrice: toAmount(it.price.adult.fareMinor, c),
    AdultTax: toAmount(it.price.adult.taxMinor, c),
    ChildPrice: toAmount(it.price.child.fareMinor, c),
    ChildTax: toAmount(it.price.child.taxMinor, c),
    InfantPrice: toAmount(it.price.infant.fareMinor, c),
    InfantTax: toAmount(it.price.infant.taxMinor, c),
  };
};

function priceChangeOf(before: ChainItinerary, now: ChainItinerary) {
  const o = priceFields(before);
  const n = priceFields(now);
  const prefixed = (p: string, v: Record<string, number>) => Object.fromEntries(Object.entries(v).map(([k, x]) => [p + k, x]));
  const isPriceChange = before.price.currency !== now.price.currency || JSON.stringify(o) !== JSON.stringify(n);
  return { isPriceChange, ...prefixed('original', o), ...prefixed('new', n) } as { isPriceChange: boolean } & Record<string, number>;
}

/** The original's per-field bookingRequirement (plan §2.7): what order.do needs for this passenger mix. */
export function bookingRequirementOf(pax: PaxCounts) {
  const req = (required: boolean) => ({ required });
  return {
    passenger: {
      name: req(true),
      passengerType: req(true),
      gender: req(false),
      birthday: req(pax.children + pax.infants > 0),
      cardType: req(false),
      cardNum: req(false),
      cardIssuePlace: req(false),
      cardExpired: req(false),
      nationality: req(false),
    },
  };
}

/** No routingIdentifier of ours is longer (verify.do answers a longer one 200, as any unknown id). */
export const ROUTING_ID_MAX_LENGTH = 120;

export async function verify(deps: BookingDeps, clientId: string, req: VerifyRequest) {
  const now = deps.clock.now();
  const budget = req.maxResponseTime ?? null;
  if (budget !== null && budget <= 0) throw new ApiError(S.VERIFY_ILLEGAL, 'maxResponseTime must be a positive number of milliseconds');
  // One budget for the request's airline calls (a review: the second call, by number and date alone, had its own);
  // none sent: the original's 5000 ms
  const opts = callOpts(budget ?? DEFAULT_MAX_RESPONSE_MS);
  const routingIdentifier = given(req.routingIdentifier);
  let it: ChainItinerary;
  let before: ChainItinerary;
  let pax: PaxCounts;
  if (routingIdentifier) {
    // Longer than any id search.do gives: unknown (200), without a look in the store.
    if (routingIdentifier.length > ROUTING_ID_MAX_LENGTH) throw new ApiError(S.VERIFY_ROUTING_ILLEGAL, 'routingIdentifier is not one of your search results (unknown or altered)');
    const found = await deps.sessions.lookup(clientId, routingIdentifier, ['search'], now);
    if (found.state === 'expired') throw new ApiError(S.VERIFY_ROUTING_EXPIRED, 'routingIdentifier expired (valid 6 h); search again');
    if (found.state !== 'live') throw new ApiError(S.VERIFY_ROUTING_ILLEGAL, 'routingIdentifier is not one of your search results (unknown or altered)');
    before = found.session.itinerary;
    pax = found.session.pax;
    // Asked with the routing's airports (the legs of a through flight share its number and date), then, when that
    // finds nothing, by number and date alone: a flight whose airport changed is then told by 213 below, not taken
    // for a flight gone (207; reviews)
    const ask = (ref: (s: ChainSegment) => FlightRef) => reprice(deps, before.segments.map((s) => ({ direction: s.direction, flight: ref(s), fareFamily: s.fareFamily })), before.cabinClass, opts);
    try {
      it = await ask(flightRefOf);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== S.VERIFY_FLIGHT_UNAVAILABLE) throw err;
      it = await ask((s) => ({ carrier: s.carrier, flightNumber: s.flightNumber, depDate: s.depDate }));
    }
    // The airline changed the flight (times or route) since the search: 213; its fare family no longer sold: 210.
    const changed = it.segments.some((s, i) => {
      const b = before.segments[i]!;
      return s.depLocal !== b.depLocal || s.arrLocal !== b.arrLocal || s.depAirport !== b.depAirport || s.arrAirport !== b.arrAirport;
    });
    if (changed || it.segments.length !== before.segments.length) throw new ApiError(S.VERIFY_FLIGHT_CHANGED, 'the flight information changed since the search; search again');
    if (it.segments.some((s, i) => s.fareFamily !== before.segments[i]!.fareFamily)) throw new ApiError(S.VERIFY_FARE_FAMILY_SOLD_OUT, 'the fare family of this routing is sold out');
  } else if (req.outboundSegments?.length) {
    pax = paxCountsOf(req, S.VERIFY_ILLEGAL, 1);
    it = await reprice(deps, [...segmentRefsOf(req.outboundSegments, 'out', S.VERIFY_ILLEGAL), ...segmentRefsOf(req.inboundSegments ?? [], 'ret', S.VERIFY_ILLEGAL)], 1, opts, true);
    before = it;
  } else {
    throw new ApiError(S.VERIFY_ILLEGAL, 'send routingIdentifier, or outboundSegments');
  }
  if (pax.infants > 0 && it.infantsAllowed === false) throw new ApiError(S.VERIFY_FLIGHT_UNAVAILABLE, `airline ${it.carrier} carries no infants`);
  if (it.seatsLeft < pax.adults + pax.children) throw new ApiError(S.VERIFY_FLIGHT_UNAVAILABLE, `the flight is sold out for ${pax.adults + pax.children} passenger(s): ${it.seatsLeft} seat(s) left`);
  const session = await deps.sessions.create({ kind: 'verify', clientId, itinerary: it, pax, now });
  // A fresh routingIdentifier for the re-priced routing (verify.do may be called with it again).
  const routing = await deps.sessions.create({ kind: 'search', clientId, itinerary: it, pax, now });
  const bags = baggageProducts(bookingOf(deps.airlines, it.carrier), it).map((p) => ancillaryProductOf(p));
  return {
    status: 0,
    msg: 'success',
    sessionId: session.id,
    maxSeats: it.seatsLeft,
    routing: fullRoutingOf(it, routing.id, { refreshTime: null, expireTime: null, bags, terms: termsOf(deps, it.carrier) }),
    bookingRequirement: bookingRequirementOf(pax),
    priceChange: priceChangeOf(before, it),
  };
}
