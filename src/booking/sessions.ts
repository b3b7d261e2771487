// The booking chain's stored steps: routingIdentifier (search, 6 h), sessionId (verify, 2 h), offerId
// (getOffers, 2 h). One table, booking_sessions; every lookup is scoped to the calling client.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { DateTime } from 'luxon';
import { normalizeFlightNumber, type AirlineSegment, type FlightRef, type ItineraryPrice, type PricedItinerary } from '../airline/connector.js';
import { FifoMap } from '../bounded-map.js';
import { toAmount } from '../money/money.js';
import type { Database } from '../store/schema.js';
import type { Routing, RoutingSegment, WireSegment } from './wire.js';

export type SessionKind = 'search' | 'verify' | 'offer';

export const SESSION_TTL_MS: Record<SessionKind, number> = {
  search: 6 * 3_600_000,
  verify: 2 * 3_600_000,
  offer: 2 * 3_600_000,
};

const PREFIX: Record<SessionKind, string> = { search: 'rt_', verify: 'ses_', offer: 'ofr_' };

/** A segment as the chain keeps it: plain values (no Date), enough to answer and to book. */
export type ChainSegment = Pick<
  AirlineSegment,
  | 'index'
  | 'direction'
  | 'carrier'
  | 'flightNumber'
  | 'depAirport'
  | 'arrAirport'
  | 'depLocal'
  | 'arrLocal'
  | 'depTerminal'
  | 'arrTerminal'
  | 'fareFamily'
  | 'aircraftCode'
  | 'codeShare'
  | 'operatingCarrier'
  | 'operatingFlightNumber'
  | 'durationMinutes'
> & {
  /** yyyyMMdd of depLocal */
  depDate: string;
  /** As priced (the airline's segment may leave it null: 1). */
  cabinClass: number;
};

export interface ChainItinerary {
  carrier: string;
  cabinClass: number;
  segments: ChainSegment[];
  price: ItineraryPrice;
  seatsLeft: number;
  ancillarySupported: boolean;
  /**
   * A session order.do made on a 308/322 (docs/decisions/0023): the sessions it re-priced, the first one first
   * (seat productCodes bound to any of them stay valid; one id in sessions stored before 2026-12-02), and the seat
   * prices the caller accepted, by "segmentIndex/seat".
   */
  repricedFrom?: string | string[];
  seatPrices?: Record<string, { priceMinor: number; currency: string }>;
  /**
   * When its first flight leaves (ISO UTC): a session ends then at the latest, as a flight that has left is sold no
   * more (absent in sessions stored before 2026-12-02, which keep their own expiry).
   */
  departsAt?: string;
  /** False: the airline carries no infants (PricedItinerary.infantsAllowed); absent: it does. */
  infantsAllowed?: false;
}

/** The sessions a re-priced session's itinerary came from, the first one first (none for a verified one). */
export function repricedSessions(it: Pick<ChainItinerary, 'repricedFrom'>): string[] {
  const from = it.repricedFrom;
  return from === undefined ? [] : typeof from === 'string' ? [from] : from;
}

export interface PaxCounts {
  adults: number;
  children: number;
  infants: number;
}

export interface ChainSession {
  id: string;
  kind: SessionKind;
  clientId: string;
  itinerary: ChainItinerary;
  pax: PaxCounts;
  expiresAt: Date;
}

export function chainSegmentOf(s: AirlineSegment): ChainSegment {
  return {
    index: s.index,
    direction: s.direction,
    carrier: s.carrier,
    flightNumber: s.flightNumber,
    depAirport: s.depAirport,
    arrAirport: s.arrAirport,
    depLocal: s.depLocal,
    arrLocal: s.arrLocal,
    depDate: s.depLocal.slice(0, 10).replaceAll('-', ''),
    depTerminal: s.depTerminal,
    arrTerminal: s.arrTerminal,
    cabinClass: s.cabinClass ?? 1,
    fareFamily: s.fareFamily,
    aircraftCode: s.aircraftCode,
    codeShare: s.codeShare,
    operatingCarrier: s.operatingCarrier,
    operatingFlightNumber: s.operatingFlightNumber,
    durationMinutes: s.durationMinutes,
  };
}

export function itineraryOf(p: PricedItinerary, cabinClass: number): ChainItinerary {
  const firstDeparture = Math.min(...p.segments.map((s) => s.depAt.getTime()));
  return {
    carrier: p.carrier,
    cabinClass,
    segments: p.segments.map(chainSegmentOf),
    price: p.price,
    seatsLeft: p.seatsLeft,
    ancillarySupported: p.ancillarySupported,
    ...(Number.isFinite(firstDeparture) ? { departsAt: new Date(firstDeparture).toISOString() } : {}),
    ...(p.infantsAllowed === false ? { infantsAllowed: false as const } : {}),
  };
}

/**
 * A new session's expiry: its kind's time to live, ended sooner by its first flight's departure (a review: a verify
 * session answered seat maps and kept seats priced for a flight that had left).
 */
export function sessionExpiry(kind: SessionKind, it: Pick<ChainItinerary, 'departsAt'>, now: Date): Date {
  const ttlEnd = now.getTime() + SESSION_TTL_MS[kind];
  const departs = it.departsAt === undefined ? NaN : Date.parse(it.departsAt);
  return new Date(Number.isFinite(departs) ? Math.min(ttlEnd, departs) : ttlEnd);
}

/**
 * The offer id of a request under any spelling the original's documents use (plan §4 C2: `offerId`,
 * `offerID`, `OfferId`); "" and null are absent. Null when none is given.
 */
export function offerIdOf(req: { offerId?: string | null; offerID?: string | null; OfferId?: string | null }): string | null {
  for (const v of [req.offerId, req.offerID, req.OfferId]) if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return null;
}

/** A chain itinerary's segments as the connector's AirlineSegment (the schedule as priced; times not needed). */
export function airlineSegmentsOf(it: ChainItinerary): AirlineSegment[] {
  return it.segments.map((s) =>
    Object.assign({}, s, {
      depAt: new Date(0),
      arrAt: new Date(0),
      depTimeZone: 'UTC',
      arrTimeZone: 'UTC',
      bookedDepLocal: s.depLocal,
      bookedArrLocal: s.arrLocal,
      scheduleStatus: 'onTime' as const,
    }),
  );
}

export function flightRefOf(s: ChainSegment): FlightRef {
  return { carrier: s.carrier, flightNumber: s.flightNumber, depDate: s.depDate, depAirport: s.depAirport, arrAirport: s.arrAirport };
}

/**
 * "XS101/20260105|XS102/20260112": how flight-only seat requests find a verify session. The numbers normalized
 * (normalizeFlightNumber: "XS0101" is "XS101", as verify.do reads it; a review found a zero-padded number unmatched).
 */
export function flightKeyOf(flights: Array<{ flightNumber: string; depDate: string }>): string {
  return flights.map((f) => `${normalizeFlightNumber('', f.flightNumber)}/${f.depDate}`).join('|');
}

/** A segment's local time as the wire writes it: `yyyyMMddHHmm`. */
export const wireTime = (local: string) => local.replace(/[- :]/g, '');

/**
 * The one segment mapper: a chain segment as the original's RoutingSegment (plan §2.2), used by search.do,
 * verify.do and getLuggage.do (routing.ts) and by the older routing of order.do (routingOf).
 */
export function routingSegmentOf(s: ChainSegment, seatCount: number): RoutingSegment {
  return {
    segmentIndex: s.index,
    carrier: s.carrier,
    flightNumber: s.flightNumber,
    depAirport: s.depAirport,
    arrAirport: s.arrAirport,
    depTime: wireTime(s.depLocal),
    arrTime: wireTime(s.arrLocal),
    depTerminal: s.depTerminal,
    arrTerminal: s.arrTerminal,
    duration: s.durationMinutes,
    cabin: null,
    cabinClass: s.cabinClass,
    fareFamily: s.fareFamily ?? '',
    seatCount,
    codeShare: s.codeShare,
    operatingCarrier: s.operatingCarrier,
    operatingFlightnumber: s.operatingFlightNumber,
    aircraftCode: s.aircraftCode,
    stopCities: null,
  };
}

/** routingSegmentOf in decision 0012's spellings (order.do's routing until it serves the original's). */
const legacySegment = (s: ChainSegment, seatCount: number): WireSegment =>
  Object.assign(routingSegmentOf(s, seatCount), {
    fareFamily: s.fareFamily,
    operatingCarrier: s.operatingCarrier,
    operatingFlightNumber: s.operatingFlightNumber,
  });

export function routingOf(it: ChainItinerary): Routing {
  const c = it.price.currency;
  return {
    currency: c,
    adultPrice: toAmount(it.price.adult.fareMinor, c),
    adultTax: toAmount(it.price.adult.taxMinor, c),
    childPrice: toAmount(it.price.child.fareMinor, c),
    childTax: toAmount(it.price.child.taxMinor, c),
    infantPrice: toAmount(it.price.infant.fareMinor, c),
    infantTax: toAmount(it.price.infant.taxMinor, c),
    transactionFee: toAmount(it.price.feeMinor, c),
    transactionFeeMode: it.price.feeMode,
    fromSegments: it.segments.filter((s) => s.direction === 'out').map((s) => legacySegment(s, it.seatsLeft)),
    retSegments: it.segments.filter((s) => s.direction === 'ret').map((s) => legacySegment(s, it.seatsLeft)),
    ancillarySupported: it.ancillarySupported,
  };
}

/** The booking fee for this passenger mix, by the airline's mode. */
export function feeMinorOf(it: ChainItinerary, pax: PaxCounts): number {
  const people = pax.adults + pax.children + pax.infants;
  switch (it.price.feeMode) {
    case 'PER_BOOKING':
      return it.price.feeMinor;
    case 'PER_SEGMENT':
      return it.price.feeMinor * it.segments.length * people;
    default:
      return it.price.feeMinor * people;
  }
}

type Row = { id: string; kind: SessionKind; client_id: string; itinerary: unknown; pax: PaxCounts; expires_at: Date };

function sessionOf(r: Row): ChainSession {
  return { id: r.id, kind: r.kind, clientId: r.client_id, itinerary: r.itinerary as ChainItinerary, pax: r.pax, expiresAt: new Date(r.expires_at) };
}

const MAX_CACHED_SESSIONS = 50_000;

/** The verify sessions of the asked cabin classes a flight-only match reads, newest first: past them an older one is not weighed. */
const MATCH_CANDIDATES = 20;

export type VerifyMatch = { state: 'match'; session: ChainSession } | { state: 'ambiguous' } | { state: 'none' };

/**
 * The chain's sessions: stored in booking_sessions (the source of truth, shared by every API process) and
 * kept in this process's memory once created or read, so seatAvailability.do finds its session without a
 * query. A session never changes after it is created; only its expiry is checked on every use.
 */
export class ChainSessions {
  private readonly cache = new FifoMap<string, ChainSession>(MAX_CACHED_SESSIONS);

  constructor(private readonly db: Kysely<Database>) {}

  async create(args: { kind: SessionKind; clientId: string; itinerary: ChainItinerary; pax: PaxCounts; now: Date }): Promise<ChainSession> {
    const id = PREFIX[args.kind] + randomBytes(18).toString('base64url');
    const expiresAt = sessionExpiry(args.kind, args.itinerary, args.now);
    await this.db
      .insertInto('booking_sessions')
      .values({
        id,
        client_id: args.clientId,
        kind: args.kind,
        carrier: args.itinerary.carrier,
        flight_key: flightKeyOf(args.itinerary.segments),
        itinerary: JSON.stringify(args.itinerary),
        pax: JSON.stringify(args.pax),
        expires_at: expiresAt,
        created_at: args.now,
      })
      .execute();
    const session: ChainSession = { id, kind: args.kind, clientId: args.clientId, itinerary: args.itinerary, pax: args.pax, expiresAt };
    this.remember(session);
    return session;
  }

  /** The client's live session of one of `kinds`; another client's, an expired or an unknown one is null. */
  async find(clientId: string, id: string, kinds: SessionKind[], now: Date): Promise<ChainSession | null> {
    const found = await this.lookup(clientId, id, kinds, now);
    return found.state === 'live' ? found.session : null;
  }

  /**
   * The client's session of one of `kinds`, telling an expired one (its row stays a day past its expiry, then the
   * retention sweep deletes it: verify.do 202 until then, 200 unknown after) from an unknown, altered or another
   * client's one.
   */
  async lookup(clientId: string, id: string, kinds: SessionKind[], now: Date): Promise<{ state: 'live'; session: ChainSession } | { state: 'expired' | 'unknown' }> {
    let session: ChainSession | null | undefined = this.cache.get(id);
    if (!session) {
      const row = await this.db
        .selectFrom('booking_sessions')
        .select(['id', 'kind', 'client_id', 'itinerary', 'pax', 'expires_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      session = row ? sessionOf(row) : null;
      // Unknown ids are not remembered, so guessing ids cannot fill the cache.
      if (session) this.remember(session);
    }
    if (!session || session.clientId !== clientId || !kinds.includes(session.kind)) return { state: 'unknown' };
    if (session.expiresAt.getTime() <= now.getTime()) {
      this.cache.delete(id);
      return { state: 'expired' };
    }
    return { state: 'live', session };
  }

  /**
   * Flight-only seat requests (spec 1, seat rule 5): the client's live verify sessions on exactly these flights
   * whose segments are of the request's cabin classes (`cabinClasses[i]` null: any). One fits, or several alike in
   * what the map and the order that follows depend on (passenger mix, each segment's cabin class and fare family):
   * the newest is the match. Several that differ: ambiguous — the caller must name its session (a review: the newest
   * was taken whatever its passengers, and order.do with the caller's own session answered 309 to its productCodes).
   * The store decides (another process may have made a newer session); the match is the session object this process
   * keeps when it keeps it, so what is kept per session (a seat request's plan, its bindings) serves flight-only
   * requests too (a review: each one's session was a new object, checked and bound again).
   */
  async matchVerify(clientId: string, flightKey: string, cabinClasses: Array<number | null>, now: Date): Promise<VerifyMatch> {
    let q = this.db
      .selectFrom('booking_sessions')
      .select(['id', 'kind', 'client_id', 'itinerary', 'pax', 'expires_at'])
      .where('client_id', '=', clientId)
      .where('kind', '=', 'verify')
      .where('flight_key', '=', flightKey)
      .where('expires_at', '>', now);
    // The cabin classes asked for are weighed by the store, before the newest MATCH_CANDIDATES are taken (a review:
    // filtered after, a business session behind 20 newer economy ones on the same flights was never found).
    for (const [i, c] of cabinClasses.entries()) {
      if (c !== null) q = q.where(sql<string>`itinerary->'segments'->${sql.lit(i)}->>'cabinClass'`, '=', String(c));
    }
    const rows = await q.orderBy('created_at', 'desc').limit(MATCH_CANDIDATES).execute();
    const fitting = rows.map(sessionOf);
    const newest = fitting[0];
    if (!newest) return { state: 'none' };
    const alike = mapBasisOf(newest);
    if (!fitting.every((s) => mapBasisOf(s) === alike)) return { state: 'ambiguous' };
    const kept = this.cache.get(newest.id);
    if (kept) return { state: 'match', session: kept };
    this.remember(newest);
    return { state: 'match', session: newest };
  }

  /** Oldest first out past MAX_CACHED_SESSIONS; the store still has them. */
  private remember(session: ChainSession): void {
    this.cache.set(session.id, session);
  }
}

/** What a flight-only match's map and the order after it depend on: passenger mix, segments' cabin class and fare family. */
function mapBasisOf(s: ChainSession): string {
  let basis = `${s.pax.adults}/${s.pax.children}/${s.pax.infants}`;
  for (const seg of s.itinerary.segments) basis += `|${seg.index}:${seg.cabinClass}:${seg.fareFamily ?? ''}`;
  return basis;
}

export function isoUtc(d: Date): string {
  return DateTime.fromJSDate(d, { zone: 'UTC' }).toISO({ suppressMilliseconds: true }) ?? d.toISOString();
}
