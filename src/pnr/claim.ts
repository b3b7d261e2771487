// pnr/claim.do: verify a booking made elsewhere against the airline record and create an order for the
// calling client (spec 2.14, 4.6; docs/architecture.md "Airline records").
import type { Kysely } from 'kysely';
import { normalizeFlightNumber, type AirlineDirectory, type AirlineRecord, type AirlineSegment } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { findOrderByRecord, insertOrderFromRecord, newOrderNo } from '../orders/orders.js';
import { constraintOf, isUniqueViolation } from '../store/errors.js';
import { Deadline } from '../airline/deadline.js';
import type { Database } from '../store/schema.js';
import { DEFAULT_TIMEOUT_MS, NOT_FOUND_MSG, normalizeName, readAirlineRecord, sameEmail } from './records.js';
import { PNR_STATUS } from './statuses.js';
import type { ClaimRequest, ClaimResponse } from './wire.js';

export interface ClaimDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
}

type ClaimSegment = ClaimRequest['fromSegments'][number];

const digits = (s: string) => s.replace(/\D/g, '');

function segmentMatches(claimed: ClaimSegment, actual: AirlineSegment): boolean {
  return (
    // the carrier as named, whatever the flight number's prefix says (found by a review: "ZZ" with XS102 passed)
    claimed.carrier.toUpperCase() === actual.carrier &&
    normalizeFlightNumber(claimed.carrier, claimed.flightNumber) === normalizeFlightNumber(actual.carrier, actual.flightNumber) &&
    claimed.depAirport.toUpperCase() === actual.depAirport &&
    claimed.arrAirport.toUpperCase() === actual.arrAirport &&
    // The caller may hold the schedule as booked or as changed by the airline since.
    (claimed.depTime === digits(actual.depLocal) || claimed.depTime === digits(actual.bookedDepLocal))
  );
}

/**
 * Why the claimed passengers are not exactly the record's, or null. Names are compared as a multiset: two
 * passengers of one name (a father and his son) are claimed by naming it twice (found by a review: a map of the
 * names had made them one). The answer says nothing of the record — neither how many passengers it holds nor
 * which claimed name is not on it (found by the same review: with only the PNR and the e-mail, the count and a
 * name-by-name oracle were one request away; extractPnr.do asks a name first) — only what is wrong in the request.
 */
export function passengersProblem(req: ClaimRequest, record: AirlineRecord): string | null {
  const key = (last: string, first: string) => `${normalizeName(last)}/${normalizeName(first)}`;
  const left = new Map<string, number>();
  for (const p of record.passengers) left.set(key(p.lastName, p.firstName), (left.get(key(p.lastName, p.firstName)) ?? 0) + 1);
  let mismatch = false;
  for (const p of req.passengers) {
    const [last = '', first = ''] = p.name.split('/');
    const k = key(last, first);
    // a name without letters is no passenger's (normalizeName)
    const n = normalizeName(last) === '' ? 0 : (left.get(k) ?? 0);
    if (n > 0) left.set(k, n - 1);
    else mismatch = true;
  }
  if (mismatch || [...left.values()].some((n) => n > 0)) return 'claim every passenger of the booking, each once, with the names as the airline holds them';
  return null;
}

function segmentsProblem(req: ClaimRequest, record: AirlineRecord): string | null {
  const out = record.segments.filter((s) => s.direction === 'out');
  const ret = record.segments.filter((s) => s.direction === 'ret');
  const claimedRet = req.retSegments ?? [];
  if (req.fromSegments.length !== out.length) return `the record has ${out.length} outbound segment(s), the claim ${req.fromSegments.length}`;
  if (claimedRet.length !== ret.length) return `the record has ${ret.length} return segment(s), the claim ${claimedRet.length}`;
  for (const [i, s] of req.fromSegments.entries()) if (!segmentMatches(s, out[i]!)) return `fromSegments[${i}] does not match the record`;
  for (const [i, s] of claimedRet.entries()) if (!segmentMatches(s, ret[i]!)) return `retSegments[${i}] does not match the record`;
  return null;
}

/**
 * The record the claim names: the PNR with the claim's e-mail, looked up under each carrier of the claimed
 * segments within one airline time-out — the record is the booking carrier's, which need not fly the first segment
 * (found by a review: a booking whose first flight was another airline's could never be claimed). The carriers are
 * asked side by side and the first record with the e-mail answers (a review: asked one after another, an airline
 * that hung on the first segment used the whole time-out, the booking carrier never asked, 99006 every time). null
 * when none holds it. A carrier with no connection is passed over; none at all → 99008.
 */
async function findClaimedRecord(deps: ClaimDeps, req: ClaimRequest): Promise<AirlineRecord | null> {
  const pnr = req.mmb.airlinePnr.toUpperCase();
  const carriers = [...new Set([...req.fromSegments, ...(req.retSegments ?? [])].map((s) => s.carrier.toUpperCase()))];
  const connected = carriers.filter((c) => deps.airlines.forCarrier(c));
  if (connected.length === 0) throw new ApiError(PNR_STATUS.CARRIER_NOT_SERVED, `carrier ${carriers[0]} is not connected to this service`);
  const deadline = new Deadline(DEFAULT_TIMEOUT_MS);
  // An airline that fails (99006, 99007) need not be the booking's: the first failure, in the segments' order,
  // answers only when no airline held the record (found by a review: a slow first airline hid the booking carrier's).
  const asked = connected.map(async (carrier) => {
    const record = await readAirlineRecord(deps.airlines, carrier, pnr, DEFAULT_TIMEOUT_MS, deadline);
    if (record && sameEmail(record.contact.email, req.mmb.email)) return record;
    throw new NotHeld();
  });
  try {
    return await Promise.any(asked);
  } catch {
    const failures = (await Promise.allSettled(asked)).flatMap((o) => (o.status === 'rejected' && !(o.reason instanceof NotHeld) ? [o.reason as unknown] : []));
    const other = failures.find((err) => !(err instanceof ApiError) || (err.status !== PNR_STATUS.TIMEOUT && err.status !== PNR_STATUS.AIRLINE_ERROR));
    if (other !== undefined) throw other instanceof Error ? other : new Error('airline record lookup failed');
    if (failures[0]) throw failures[0] as ApiError;
    return null;
  }
}

/** An airline without the claimed PNR and e-mail. */
class NotHeld extends Error {}

export async function claimPnr(deps: ClaimDeps, clientId: string, req: ClaimRequest): Promise<ClaimResponse> {
  const record = await findClaimedRecord(deps, req);
  // Without the right PNR and e-mail the caller learns nothing, exactly as extractPnr.do.
  if (!record) throw new ApiError(PNR_STATUS.NOT_FOUND, NOT_FOUND_MSG);
  const carrier = record.carrier;
  // The client that owns the record's order claiming again gets its orderNo (decision 0005: "the same client claiming
  // again gets the same orderNo"), whatever became of the record since — refunded, voided, cancelled (a review: 99012
  // "cannot be claimed" for its own order). Asked only once PNR and e-mail matched, and answered only for the
  // passengers and segments a first claim verifies; anyone else, and a request that does not match, gets today's answers.
  const owned = await findOrderByRecord(deps.db, carrier, record.pnr);
  if (owned?.client_id === clientId && !passengersProblem(req, record) && !segmentsProblem(req, record)) {
    return { status: PNR_STATUS.OK, msg: 'claimed', orderNo: owned.order_no, pnrCode: record.pnr };
  }
  if (!deps.airlines.forCarrier(carrier)?.supports(carrier, 'claims')) throw new ApiError(PNR_STATUS.CLAIM_NOT_SUPPORTED, `airline ${carrier} does not allow claiming its bookings`);
  if (record.status === 'Cancelled') throw new ApiError(PNR_STATUS.RECORD_CANCELLED, 'the airline record is cancelled and cannot be claimed');
  // A booking whose every coupon the airline refunded or voided is as dead as a cancelled one, whatever its status
  // says (a review: it was claimed, an order of dead tickets made)
  const coupons = record.tickets.flatMap((t) => t.coupons);
  if (coupons.length > 0 && coupons.every((c) => c.status === 'REFUND')) {
    throw new ApiError(PNR_STATUS.RECORD_CANCELLED, 'every ticket of the airline record is refunded or voided; it cannot be claimed');
  }
  if (record.status !== 'Ticketed') throw new ApiError(PNR_STATUS.NOT_TICKETED, 'the airline record is not ticketed yet; claim it once tickets are issued');
  const paxProblem = passengersProblem(req, record);
  if (paxProblem) throw new ApiError(PNR_STATUS.PASSENGERS_MISMATCH, `passengers do not match the airline record: ${paxProblem}`);
  const segProblem = segmentsProblem(req, record);
  if (segProblem) throw new ApiError(PNR_STATUS.SEGMENTS_MISMATCH, `segments do not match the airline record: ${segProblem}`);
  if (record.bookedByClient !== null && record.bookedByClient !== clientId) {
    throw new ApiError(PNR_STATUS.CLAIMED_BY_OTHER, 'this booking belongs to another client of the service');
  }

  const orderNo = await ensureOrder(deps, clientId, record);
  return { status: PNR_STATUS.OK, msg: 'claimed', orderNo, pnrCode: record.pnr };
}

/** The caller's order for the record: the existing one, or a new one. One owner per record. */
async function ensureOrder(deps: ClaimDeps, clientId: string, record: AirlineRecord): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await findOrderByRecord(deps.db, record.carrier, record.pnr);
    if (existing) {
      if (existing.client_id !== clientId) throw new ApiError(PNR_STATUS.CLAIMED_BY_OTHER, 'this booking belongs to another client of the service');
      return existing.order_no;
    }
    const orderNo = newOrderNo();
    try {
      await deps.db.transaction().execute((trx) =>
        insertOrderFromRecord(trx, { orderNo, clientId, source: 'claim', record, now: deps.clock.now() }),
      );
      return orderNo;
    } catch (err) {
      const constraint = isUniqueViolation(err) ? constraintOf(err) : undefined;
      // A ticket number of the record is another order's (the airline moved it here from another PNR, a split or
      // a renamed record): no retry makes it free (found by a review: three attempts, then HTTP 500). Nothing of
      // the other order is told.
      if (constraint === 'tickets_pkey') {
        throw new ApiError(PNR_STATUS.TICKETS_ON_OTHER_ORDER, 'a ticket of this airline record is held by another order of the service (the airline moved it from another PNR); ask support to move that order');
      }
      // A concurrent claim of the same record, or an order number drawn twice: look again. Anything else is ours.
      if (constraint !== 'orders_airline_record' && constraint !== 'orders_pkey') throw err;
    }
  }
  throw new Error('could not create the claim order after 3 attempts');
}
