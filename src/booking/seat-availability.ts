// seatAvailability.do: the seat maps of a booking chain's segments (spec 1 seat rules, 2.12, 4.4, 7.2).
// Check order: shape (220) → look-to-book (223) → session (214; flight-only match or 220) → carrier (220)
// → segment indexes (215) → airline and route (218/219) → fare family (221) → the airline's map (216/217).
import { ConnectorError, normalizeFlightNumber, type FlightRef, type SeatMapAnswer, type SeatMapCabin } from '../airline/connector.js';
import { bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { flightKeyOf, flightRefOf, offerIdOf, wireTime, type ChainSegment, type ChainSession } from './sessions.js';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { SeatMapCache, type CachedSeatMap, type SeatAnswerPart } from './seat-cache.js';
import { seatProductCode, sessionBinding } from './seat-product-code.js';
import { SEAT_STATUS as S } from './seat-statuses.js';
import type { SeatAvailabilityRequest, SeatCabin, SeatSegment } from './seat-wire.js';

const REFUSAL_STATUS = {
  airlineWithoutSeats: S.AIRLINE_WITHOUT_SEATS,
  routeWithoutSeats: S.ROUTE_WITHOUT_SEATS,
  noFareFamily: S.NO_FARE_FAMILY,
  selectionFailed: S.SELECTION_FAILED,
  unknown: S.UNKNOWN_ERROR,
} as const;

/** A success: the parts the route writes as bytes (seat-cache.ts); failures are thrown as ApiError. */
export interface SeatAvailabilityAnswer {
  status: 0;
  parts: SeatAnswerPart[];
}

/**
 * `settings`: the caller's client settings as authenticated (a console edit or world reload reaches them at once in
 * this process); without them look-to-book reads its own copy, kept 30 s. The caller records the request in
 * look-to-book (`recordSeatRequest`) once its rate pool has counted it: the route after its pool's hook, the answer
 * lane after its own count (src/http/lane-routes.ts).
 */
export async function seatAvailability(
  deps: BookingDeps,
  clientId: string,
  req: SeatAvailabilityRequest,
  settings?: Record<string, unknown>,
): Promise<SeatAvailabilityAnswer> {
  await deps.lookToBook.check(clientId, settings);
  const session = await sessionOf(deps, clientId, req);
  const plan = planOf(session, req);
  const connector = deps.airlines.forCarrier(plan.carrier);
  if (!connector?.booking || !connector.supports(plan.carrier, 'seatSelection')) {
    throw new ApiError(S.AIRLINE_WITHOUT_SEATS, `airline ${plan.carrier} does not support seat selection currently`);
  }

  const parts: SeatAnswerPart[] = [];
  for (const planned of plan.segments) {
    const map = await seatMapAt(deps, planned);
    if ('ok' in map) throw new ApiError(REFUSAL_STATUS[map.reason], map.message);
    const { segment } = planned;
    parts.push({ map, signature: planned.signature, binding: planned.binding, wireCabins: (binding) => map.cabins.map((c) => wireCabin(segment, c, binding)) });
  }
  return { status: 0, parts };
}

/** A segment of the session as a request asks for it: checked, with what its seat map is looked up and written by. */
interface PlannedSegment {
  segment: ChainSegment;
  cabinClass: number;
  /** The seat map cache's key (SeatMapCache.key) and the airline's flight reference. */
  key: string;
  ref: FlightRef;
  signature: string;
  binding: string;
}

/** What a request asks of its session, once checked: its carrier and its segments in the answer's order. */
interface SeatPlan {
  carrier: string;
  segments: PlannedSegment[];
}

/**
 * Plans by session and request object. The answer lane keeps the requests it answered by their text, deep-frozen
 * (src/http/lane.ts), and hands the same object to every later request of that text; a session is one object while
 * this process keeps it (ChainSessions). Both are immutable, and a plan is a function of the two alone, so a request
 * asked again is not checked again (~3 % of a kept seat map's thread). Refusals are not kept (they are thrown), nor
 * plans of requests that are not frozen (Fastify's bodies, parsed anew each time: nothing would find them).
 */
const plans = new WeakMap<ChainSession, WeakMap<SeatAvailabilityRequest, SeatPlan>>();
/** Requests checked against their session (a test reads it: a kept request is checked once per session). */
export const seatPlanStats = { checked: 0 };

function planOf(session: ChainSession, req: SeatAvailabilityRequest): SeatPlan {
  if (!Object.isFrozen(req)) return checkedPlan(session, req);
  let bySession = plans.get(session);
  if (bySession === undefined) plans.set(session, (bySession = new WeakMap()));
  let plan = bySession.get(req);
  if (plan === undefined) {
    plan = checkedPlan(session, req);
    // frozen: the airline's connector may keep what it finds per reference object (the sandbox airline's flight)
    for (const planned of plan.segments) Object.freeze(planned.ref);
    bySession.set(req, plan);
  }
  return plan;
}

/** The request checked against its session (spec 2.12, 4.4): its plan, or the refusal thrown. */
function checkedPlan(session: ChainSession, req: SeatAvailabilityRequest): SeatPlan {
  seatPlanStats.checked++;
  const requested = [...req.outboundSegments, ...(req.inboundSegments ?? [])];
  const carrier = req.carrier.toUpperCase();
  if (carrier !== session.itinerary.carrier) {
    throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: carrier ${carrier} is not the itinerary's carrier ${session.itinerary.carrier}`);
  }
  const seen = new Set<number>();
  const segments = requested.map((r, i): PlannedSegment => {
    if (r.segmentIndex === undefined || r.segmentIndex === null) throw new ApiError(S.SEGMENT_INDEX_MISSING, `segment index missing (segment ${i + 1} of the request)`);
    const s = session.itinerary.segments.find((x) => x.index === r.segmentIndex);
    if (!s) throw new ApiError(S.SEGMENT_INDEX_MISSING, `segment index ${r.segmentIndex} is not in the session`);
    // spec 2.12: one cabins entry per flight segment; outbound segments in outboundSegments, return ones in
    // inboundSegments (found by a review: a segment sent twice got two entries, a return one passed as outbound)
    if (seen.has(s.index)) throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: segment ${s.index} is asked for twice`);
    seen.add(s.index);
    const inbound = i >= req.outboundSegments.length;
    if ((s.direction === 'ret') !== inbound) {
      throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: segment ${s.index} is ${s.direction === 'ret' ? 'a return' : 'an outbound'} segment of the session: send it in ${s.direction === 'ret' ? 'inboundSegments' : 'outboundSegments'}`);
    }
    // The original's seat request carries every segment of the itinerary in the order of take-off (segmentIndex
    // counts take-offs from 1, outbound then return); another order was answered in its own order until 2026-12-06.
    const before = i > 0 ? requested[i - 1]!.segmentIndex : undefined;
    if (typeof before === 'number' && before > s.index) {
      throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: send the segments in the order of take-off; segment ${s.index} comes after segment ${before}`);
    }
    // spec 4.4: a segment names its flight by number; XS0701 and XS701 are one flight, as verify.do reads them
    // (a review: the numbers were compared as text and a zero-padded one answered 220)
    if (normalizeFlightNumber(s.carrier, s.flightNumber) !== normalizeFlightNumber(s.carrier, r.flightNumber) || s.depAirport !== r.depAirport.toUpperCase() || s.arrAirport !== r.arrAirport.toUpperCase()) {
      throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: segment ${r.segmentIndex} is ${s.flightNumber} ${s.depAirport}-${s.arrAirport} in the session`);
    }
    // The departure as the session has it (airport-local): the day, and the time when one is sent — another
    // day's flight of the same number is another seat map (a review found the depTime not compared at all).
    if (!departsAt(s, r.depTime)) {
      throw new ApiError(S.ILLEGAL_PARAMETER, `invalid request: segment ${r.segmentIndex} departs ${wireTime(s.depLocal)} (airport-local) in the session, not ${r.depTime}`);
    }
    // The cabin the segment was verified in: a seat of another cabin could not be ordered with this session
    // (found by a review: business seats of an economy session came with productCodes order.do answered 320 to).
    const asked = cabinClassOf(r) ?? s.cabinClass;
    if (asked !== s.cabinClass) throw new ApiError(S.SELECTION_FAILED, `seat selection failed: segment ${s.index} was verified in cabin class ${s.cabinClass}; seats of class ${asked} cannot be ordered with this session`);
    const signature = `${s.index}|${s.carrier}|${s.depAirport}|${s.arrAirport}`;
    const { key, ref } = lookupOf(s, asked);
    return { segment: s, cabinClass: asked, key, ref, signature, binding: bindingOf(session, s.index) };
  });
  // Every segment of the itinerary (some of them were answered with their maps alone until 2026-12-06)
  const missing = session.itinerary.segments.find((x) => !seen.has(x.index));
  if (missing) {
    throw new ApiError(
      S.ILLEGAL_PARAMETER,
      `invalid request: send every segment of the itinerary; segment ${missing.index} (${missing.flightNumber} ${missing.depAirport}-${missing.arrAirport}) is missing from ${missing.direction === 'ret' ? 'inboundSegments' : 'outboundSegments'}`,
    );
  }
  return { carrier, segments };
}

/** `depTime` (yyyyMMdd or yyyyMMddHHmm) names the segment's departure: its day, and its time when given. */
function departsAt(s: ChainSegment, depTime: string): boolean {
  if (!depTime.startsWith(s.depDate)) return false;
  // depLocal is 'yyyy-MM-dd HH:mm'
  return depTime.length === 8 || (depTime.charCodeAt(8) === s.depLocal.charCodeAt(11) && depTime.charCodeAt(9) === s.depLocal.charCodeAt(12) && depTime.charCodeAt(10) === s.depLocal.charCodeAt(14) && depTime.charCodeAt(11) === s.depLocal.charCodeAt(15));
}

/** Session bindings per session object (kept in memory by ChainSessions): a sha256 once, not per request. */
const bindings = new WeakMap<ChainSession, Map<number, string>>();

function bindingOf(session: ChainSession, segmentIndex: number): string {
  let known = bindings.get(session);
  if (!known) bindings.set(session, (known = new Map<number, string>()));
  let binding = known.get(segmentIndex);
  if (binding === undefined) known.set(segmentIndex, (binding = sessionBinding(session.id, segmentIndex)));
  return binding;
}

/** The session named by the request, or (flight-only, spec 1 seat rule 5) the caller's verify session on these flights. */
async function sessionOf(deps: BookingDeps, clientId: string, req: SeatAvailabilityRequest): Promise<ChainSession> {
  const now = deps.clock.now();
  // Either field takes either id (plan §8.5: the guides blur a verify sessionId and a getOffers.do offerID).
  const id = req.sessionId?.trim() || offerIdOf(req);
  if (id) {
    const session = await deps.sessions.find(clientId, id, ['verify', 'offer'], now);
    if (!session) throw new ApiError(S.SESSION_INVALID, `${req.sessionId?.trim() ? 'sessionId' : 'offerId'} invalid or expired`);
    return session;
  }
  const requested = [...req.outboundSegments, ...(req.inboundSegments ?? [])];
  const match = await deps.sessions.matchVerify(
    clientId,
    flightKeyOf(requested.map((s) => ({ flightNumber: s.flightNumber, depDate: s.depTime.slice(0, 8) }))),
    requested.map(cabinClassOf),
    now,
  );
  if (match.state === 'none') throw new ApiError(S.ILLEGAL_PARAMETER, 'invalid request: sessionId or offerId is required (independent mode is no longer supported)');
  // spec 1 seat rule 5: the flight is matched to the caller's cached sessionId; several that differ (passengers,
  // cabin, fare family) leave the match open, and productCodes of the wrong one would be refused at order.do (309)
  if (match.state === 'ambiguous') throw new ApiError(S.ILLEGAL_PARAMETER, 'invalid request: several of your verify sessions on these flights differ (passengers, cabin class or fare family): send the sessionId');
  return match.session;
}

/** A segment's cabinClass as asked: absent, null or blank is none (as verified). */
function cabinClassOf(r: SeatSegment): number | null {
  return r.cabinClass === undefined || r.cabinClass === null || (typeof r.cabinClass === 'string' && r.cabinClass.trim() === '') ? null : Number(r.cabinClass);
}

/** What a segment's seat map in a cabin is looked up by: the seat map cache's key and the airline's flight reference. */
type SegmentLookup = Pick<PlannedSegment, 'segment' | 'cabinClass' | 'key' | 'ref'>;

function lookupOf(s: ChainSegment, cabinClass: number): SegmentLookup {
  return { segment: s, cabinClass, key: SeatMapCache.key(s.carrier, s.flightNumber, s.depDate, s.depAirport, s.arrAirport, cabinClass, s.fareFamily), ref: flightRefOf(s) };
}

/** The airline's seat map of a chain segment, through the cache. Connector failures answer 217. */
export function seatMapOf(deps: BookingDeps, s: ChainSegment, cabinClass: number): Promise<CachedSeatMap | SeatMapRefusalAnswer> {
  return seatMapAt(deps, lookupOf(s, cabinClass));
}

/** seatMapOf with the segment's key and flight reference made already (a plan's). */
async function seatMapAt(deps: BookingDeps, { segment: s, cabinClass, key, ref }: SegmentLookup): Promise<CachedSeatMap | SeatMapRefusalAnswer> {
  const booking = bookingOf(deps.airlines, s.carrier);
  try {
    return await deps.seatMaps.map(
      key,
      () => booking.seatMapVersion(s.carrier, ref),
      () => booking.seatMap(s.carrier, ref, cabinClass, s.fareFamily, callOpts()),
    );
  } catch (err) {
    if (err instanceof ConnectorError) return { ok: false, reason: 'unknown', message: `unknown error: the airline did not answer (${err.kind})` };
    throw err;
  }
}

type SeatMapRefusalAnswer = Exclude<SeatMapAnswer, { ok: true }>;

function wireCabin(s: ChainSegment, c: SeatMapCabin, binding: string): SeatCabin {
  return {
    segmentIndex: s.index,
    cabin: {
      // spec 2.12 deck; the original's values are Main and Upper deck (public-notes.md; its seat map enum): the
      // world's and the connector's Upper is sent as Upper deck (a review found Upper on the wire)
      deck: c.deck === 'Upper' ? 'Upper deck' : c.deck,
      cabinClass: c.cabinClass,
      cabinLayout: { columns: c.columns, rows: c.rows, exitRowPositions: c.exitRows },
      rows: c.seatRows.map((r) => ({
        number: r.number,
        seats: r.seats.map((seat) => {
          const price = toAmount(seat.priceMinor, seat.currency);
          return {
            column: seat.column,
            seatStatus: seat.occupied ? ('O' as const) : ('F' as const),
            seatCharacteristics: seat.characteristics,
            price,
            currency: seat.currency,
            vendorPrice: price,
            vendorCurrency: seat.currency,
            productCode: seatProductCode(`${r.number}${seat.column}`, s.carrier, s.depAirport, s.arrAirport, seat.priceMinor, binding),
          };
        }),
      })),
    },
  };
}
