// extractPnr.do: the airline-side record as the airline reports it now, never postbook's copy (spec 2.13).
import type { AirlineAncillary, AirlineDirectory, AirlineRecord, AirlineSegment, AirlineTicket } from '../airline/connector.js';
import { isImmutableRecord, recordPrice } from '../airline/record.js';
import { deepFreeze } from '../deep-freeze.js';
import { ApiError } from '../errors.js';
import { formatMinor, toAmount } from '../money/money.js';
import { callerKnowsRecord, DEFAULT_TIMEOUT_MS, NOT_FOUND_MSG, readAirlineRecord } from './records.js';
import { PNR_STATUS } from './statuses.js';
import type { ExtractPnrRequest, ExtractPnrResponse, TicketStatus } from './wire.js';

type Segment = NonNullable<ExtractPnrResponse['routing']>['fromSegments'][number];
type PaxInfo = NonNullable<ExtractPnrResponse['paxTicketInfos']>[number];

export async function extractPnr(airlines: AirlineDirectory, req: ExtractPnrRequest): Promise<ExtractPnrResponse> {
  const carrier = req.carrier.toUpperCase();
  const pnr = req.airlinePnr.toUpperCase();
  const record = await readAirlineRecord(airlines, carrier, pnr, req.timeout ?? DEFAULT_TIMEOUT_MS);
  const lastNames = req.passengers.map((p) => p.lastName);
  // A wrong name or e-mail answers exactly like a PNR that does not exist: no enumeration.
  if (!record || !callerKnowsRecord(record, lastNames, req.contact.email)) throw new ApiError(PNR_STATUS.NOT_FOUND, NOT_FOUND_MSG);
  return wireOf(record);
}

/**
 * The wire answer, built once per record version: a connector hands out one immutable object per version
 * of a record (the sandbox: per booking row version and set of refunded tickets), so the object is the key.
 * The answer is frozen as well: every request shares it, and Fastify only reads it to serialize.
 */
const answers = new WeakMap<AirlineRecord, ExtractPnrResponse>();
function wireOf(record: AirlineRecord): ExtractPnrResponse {
  if (!isImmutableRecord(record)) return toWire(record);
  let answer = answers.get(record);
  if (!answer) {
    answer = deepFreeze(toWire(record));
    answers.set(record, answer);
  }
  return answer;
}

/**
 * A passenger's `ticketStatus` from the coupons of all their tickets together (decision 0005): a passenger with two
 * tickets, one a no-show and one open, is NOSHOW — not PARTIALLY_USED, which says a coupon was flown (found by a
 * review: the tickets' statuses were compared, so any difference read as partly used).
 */
export function ticketStatusOf(tickets: readonly AirlineTicket[]): TicketStatus {
  const statuses = tickets.length === 1 ? tickets[0]!.coupons.map((c) => c.status) : tickets.flatMap((t) => t.coupons.map((c) => c.status));
  if (statuses.length === 0) return 'UNKNOWN';
  if (statuses.every((s) => s === 'OPEN_FOR_USE')) return 'OPEN_FOR_USE';
  if (statuses.every((s) => s === 'REFUND')) return 'REFUND';
  if (statuses.every((s) => s === 'USED')) return 'USED';
  if (statuses.some((s) => s === 'USED')) return 'PARTIALLY_USED';
  if (statuses.some((s) => s === 'NOSHOW')) return 'NOSHOW';
  return 'UNKNOWN';
}

function segmentOf(s: AirlineSegment): Segment {
  // Plain assignments: conditional object spreads cost ~100× more on this hot path (BENCHMARKS.md).
  const out: Segment = {
    arrAirport: s.arrAirport,
    arrTime: s.arrLocal,
    carrier: s.carrier,
    codeShare: s.codeShare,
    depAirport: s.depAirport,
    depTime: s.depLocal,
    duration: s.durationMinutes,
    flightNumber: s.flightNumber,
    operatingCarrier: s.operatingCarrier,
    operatingFlightnumber: s.operatingFlightNumber,
  };
  if (s.aircraftCode) out.aircraftCode = s.aircraftCode;
  if (s.arrTerminal) out.arrTerminal = s.arrTerminal;
  if (s.depTerminal) out.depTerminal = s.depTerminal;
  return out;
}

export function toWire(record: AirlineRecord): ExtractPnrResponse {
  const price = recordPrice(record);
  const used = record.tickets.some((t) => t.coupons.some((c) => c.status === 'USED'));
  const paxTicketInfos: PaxInfo[] = record.passengers.map((p) => {
    const tickets = record.tickets.filter((t) => t.paxRef === p.ref);
    const info: PaxInfo = {
      name: `${p.lastName}/${p.firstName}`,
      ticketNos: tickets.map((t) => t.ticketNo),
      airlinePNRs: [record.pnr],
      ancillaries: tickets.flatMap((t) => t.ancillaries.map(ancillaryOf)),
      contactEmails: [record.contact.email],
      contactPhones: record.contact.phone ? [record.contact.phone] : [],
      // spec 2.13 leaves ticketStatus's values beyond OPEN_FOR_USE open; the original's reference marks it required
      // with UNKNOWN among them: a passenger without a ticket (an OnHold record) is UNKNOWN (no coupon), not left out
      // (a review)
      ticketStatus: ticketStatusOf(tickets),
    };
    return info;
  });
  return {
    status: PNR_STATUS.OK,
    msg: 'success',
    airlinePnr: record.pnr,
    pnrStatus: record.status,
    pnrUsed: used ? 'used' : 'unused',
    currency: price?.currency ?? null,
    totalPrice: price ? formatMinor(price.minor, price.currency) : null,
    routing: {
      fromSegments: record.segments.filter((s) => s.direction === 'out').map(segmentOf),
      retSegments: record.segments.filter((s) => s.direction === 'ret').map(segmentOf),
    },
    paxTicketInfos,
    contact: { email: record.contact.email, ...(record.contact.companyName ? { companyName: record.contact.companyName } : {}) },
  };
}

function ancillaryOf(a: AirlineAncillary): PaxInfo['ancillaries'][number] {
  const price = toAmount(a.priceMinor, a.currency);
  const out: PaxInfo['ancillaries'][number] = {
    productCode: a.productCode,
    segmentIndex: a.segmentIndex ?? 0,
    currency: a.currency,
    ancillaryPrice: price,
    vendorCurrency: a.currency,
    vendorPrice: price,
    displayCurrency: a.currency,
    displayPrice: price,
  };
  if (a.baggage) {
    out.auxBaggageElement = { isAllWeight: a.baggage.isAllWeight, piece: a.baggage.piece, weight: a.baggage.weight };
    if (a.baggage.size) out.auxBaggageElement.size = a.baggage.size;
  }
  if (a.seat) out.auxSeatElement = { row: a.seat.row, column: a.seat.column };
  return out;
}

/** Failure body: the required fields with the values of "no record" (spec 2.13). */
export function extractErrorShape(base: { status: number; msg: string }, body: unknown): Record<string, unknown> {
  const pnr = typeof (body as { airlinePnr?: unknown } | null)?.airlinePnr === 'string' ? (body as { airlinePnr: string }).airlinePnr.toUpperCase() : '';
  return { status: base.status, msg: base.msg, airlinePnr: pnr, pnrStatus: 'Unknown', pnrUsed: null, currency: null, totalPrice: null };
}
