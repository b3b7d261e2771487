// order.do: books the session's itinerary with the airline (seats held, no tickets) and creates the
// client's unpaid order ("0") with a payment deadline. Seats and bags come as passengers[].ancillaries.
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { insertOrderFromRecord, newOrderNo } from '../orders/orders.js';
import type { AirlinePassenger, AirlineRecord, RequestedAncillary } from '../airline/connector.js';
import { seatMapOf } from './seat-availability.js';
import { parseSeatProductCode, sessionBinding } from './seat-product-code.js';
import { airline, bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { feeMinorOf, flightRefOf, isoUtc, routingOf, type ChainSession } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { OrderRequest } from './wire.js';

/** How long an unpaid order holds its seats and price. */
export const PAYMENT_WINDOW_MS = 60 * 60_000;

const PAX_TYPE = ['ADT', 'CHD', 'INF'] as const;

export async function createOrder(deps: BookingDeps, clientId: string, req: OrderRequest) {
  const now = deps.clock.now();
  if (!req.sessionId && !req.offerId) throw new ApiError(S.SESSION_INVALID, 'sessionId or offerId is required');
  const session = req.sessionId
    ? await deps.sessions.find(clientId, req.sessionId, ['verify'], now)
    : await deps.sessions.find(clientId, req.offerId!, ['offer'], now);
  if (!session) throw new ApiError(S.SESSION_INVALID, `${req.sessionId ? 'sessionId' : 'offerId'} missing or expired; verify again`);
  const it = session.itinerary;

  const passengers = passengersOf(req, session);
  const ancillaries = await ancillariesOf(deps, session, req, passengers);

  const orderNo = newOrderNo();
  const b = bookingOf(deps.airlines, it.carrier);
  const answer = await airline(() =>
    b.book(
      {
        idempotencyKey: orderNo,
        clientId,
        carrier: it.carrier,
        segments: it.segments.map((s) => ({ flight: flightRefOf(s), direction: s.direction, cabinClass: s.cabinClass, fareFamily: s.fareFamily })),
        passengers,
        contact: { email: req.contact.email, phone: req.contact.mobile ?? null },
        price: it.price,
        ancillaries,
        ifSeatOccupied: req.ifSeatOccupied ?? 'SIMILAR_SEAT',
      },
      callOpts(),
    ),
  );
  if (!answer.ok) {
    const status = { seatTaken: S.SEAT_UNAVAILABLE, seatUnknown: S.SEAT_NOT_FOUND, soldOut: S.SOLD_OUT, flightUnknown: S.FLIGHT_NOT_FOUND }[answer.reason];
    throw new ApiError(status, answer.message);
  }

  const record = answer.record;
  const currency = it.price.currency;
  const fareMinor = passengers.reduce((sum, p) => {
    const f = p.type === 'ADT' ? it.price.adult : p.type === 'CHD' ? it.price.child : it.price.infant;
    return sum + f.fareMinor + f.taxMinor;
  }, 0);
  // What the airline actually sold: a STOP_SEAT seat that was taken is not charged.
  const sold = ancillaries.filter((a) => a.kind === 'baggage' || answer.seats.some((s) => s.paxRef === a.paxRef && s.segmentIndex === a.segmentIndex && s.assigned));
  const ancillaryMinor = sold.reduce((sum, a) => sum + (a.kind === 'seat' ? a.priceMinor : (bagPrice(b, it, a) ?? 0)), 0);
  const feeMinor = feeMinorOf(it, session.pax);
  const deadline = new Date(now.getTime() + PAYMENT_WINDOW_MS);

  await recordOrder(deps, { orderNo, clientId, sessionId: session.id, record, now, currency, totalMinor: fareMinor + ancillaryMinor, deadline, feeMinor, details: { seats: answer.seats, ancillaries: sold.map((a) => ({ ...a })) } });

  const nameOf = (ref: string) => {
    const p = passengers.find((x) => x.ref === ref)!;
    return `${p.lastName}/${p.firstName}`;
  };
  return {
    status: 0,
    msg: 'success',
    orderNo,
    pnrCode: record.pnr,
    orderStatus: '0',
    totalPrice: toAmount(fareMinor + ancillaryMinor + feeMinor, currency),
    currency,
    tktLimitTime: isoUtc(deadline),
    paxTicketInfos: passengers.map((p, i) => ({ name: `${p.lastName}/${p.firstName}`, passengerType: req.passengers[i]!.passengerType, ticketNos: [] })),
    seats: answer.seats.map((s) => ({ name: nameOf(s.paxRef), segmentIndex: s.segmentIndex, requestedSeat: s.requested, seat: s.assigned })),
    routing: routingOf(it),
  };
}

/** The request's passengers as the airline takes them, once they match the verified mix (302) and carry what a child or infant needs. */
function passengersOf(req: OrderRequest, session: ChainSession): AirlinePassenger[] {
  const count = (t: number) => req.passengers.filter((p) => p.passengerType === t).length;
  if (count(0) !== session.pax.adults || count(1) !== session.pax.children || count(2) !== session.pax.infants) {
    throw new ApiError(S.PASSENGERS_MISMATCH, `passengers do not match the verified mix (${session.pax.adults} adult, ${session.pax.children} child, ${session.pax.infants} infant)`);
  }
  return req.passengers.map((p, i) => {
    const [last, first] = p.name.toUpperCase().split('/') as [string, string];
    if (p.passengerType !== 0 && !p.birthday) throw new ApiError(S.INVALID, `invalid request: passengers.${i}.birthday is required for a child or infant`);
    return {
      ref: `p${i + 1}`,
      type: PAX_TYPE[p.passengerType],
      lastName: last.trim(),
      firstName: first.trim(),
      birthday: p.birthday ?? null,
      gender: p.gender ?? null,
      document: p.cardNum
        ? { type: p.cardType ?? 'PP', number: p.cardNum, expiry: p.cardExpired ?? null, issuePlace: p.cardIssuePlace ?? null, nationality: p.nationality ?? null }
        : null,
    };
  });
}

/** The client's unpaid order and its booking row, in one transaction (after the airline booked). */
async function recordOrder(
  deps: BookingDeps,
  o: { orderNo: string; clientId: string; sessionId: string; record: AirlineRecord; now: Date; currency: string; totalMinor: number; deadline: Date; feeMinor: number; details: object },
): Promise<void> {
  const { orderNo, clientId, record, now, currency, deadline, feeMinor } = o;
  await deps.db.transaction().execute(async (trx) => {
    await insertOrderFromRecord(trx, { orderNo, clientId, source: 'booking', record, now });
    await trx.updateTable('orders').set({ currency, total_minor: o.totalMinor, updated_at: now }).where('order_no', '=', orderNo).execute();
    await trx
      .insertInto('booking_orders')
      .values({
        order_no: orderNo,
        client_id: clientId,
        session_id: o.sessionId,
        payment_deadline: deadline,
        pay_state: 'unpaid',
        payment_method: null,
        card_last4: null,
        fee_minor: feeMinor,
        details: JSON.stringify(o.details),
        created_at: now,
        paid_at: null,
      })
      .execute();
  });
}

function bagPrice(b: ReturnType<typeof bookingOf>, it: ChainSession['itinerary'], a: RequestedAncillary): number | null {
  if (a.kind !== 'baggage') return null;
  return baggageProducts(b, it).find((p) => p.code === a.code && p.segmentIndex === a.segmentIndex)?.priceMinor ?? null;
}

function baggageProducts(b: ReturnType<typeof bookingOf>, it: ChainSession['itinerary']) {
  return b.baggage(
    it.carrier,
    it.segments.map((s) => ({
      ...s,
      depAt: new Date(0),
      arrAt: new Date(0),
      depTimeZone: 'UTC',
      arrTimeZone: 'UTC',
      bookedDepLocal: s.depLocal,
      bookedArrLocal: s.arrLocal,
      scheduleStatus: 'onTime' as const,
    })),
    it.price.currency,
  );
}

export { baggageProducts };

/** Seat and bag productCodes of the request, checked against the session (309) and the seat map (320). */
async function ancillariesOf(deps: BookingDeps, session: ChainSession, req: OrderRequest, passengers: AirlinePassenger[]): Promise<RequestedAncillary[]> {
  const it = session.itinerary;
  const out: RequestedAncillary[] = [];
  const seatsTaken = new Set<string>();
  const bags = req.passengers.some((p) => p.ancillaries?.some((a) => a.productCode.startsWith('BAG_'))) ? baggageProducts(bookingOf(deps.airlines, it.carrier), it) : [];
  for (const [i, p] of req.passengers.entries()) {
    const pax = passengers[i]!;
    for (const a of p.ancillaries ?? []) {
      const seg = it.segments.find((s) => s.index === a.segmentIndex);
      if (!seg) throw new ApiError(S.ANCILLARY_INVALID, `ancillary ${a.productCode}: segmentIndex ${a.segmentIndex} is not in the session`);
      if (a.productCode.startsWith('BAG_')) {
        const bag = bags.find((x) => x.code === a.productCode && x.segmentIndex === a.segmentIndex);
        if (!bag) throw new ApiError(S.ANCILLARY_INVALID, `ancillary productCode ${a.productCode} is invalid for segment ${a.segmentIndex}`);
        out.push({ kind: 'baggage', paxRef: pax.ref, segmentIndex: a.segmentIndex, code: bag.code });
        continue;
      }
      const code = parseSeatProductCode(a.productCode);
      if (
        !code ||
        code.binding !== sessionBinding(session.id, a.segmentIndex) ||
        code.carrier !== seg.carrier ||
        code.dep !== seg.depAirport ||
        code.arr !== seg.arrAirport
      ) {
        throw new ApiError(S.ANCILLARY_INVALID, `ancillary productCode ${a.productCode} is invalid for this session and segment ${a.segmentIndex} (ask seatAvailability.do again)`);
      }
      if (pax.type === 'INF') throw new ApiError(S.ANCILLARY_INVALID, 'an infant does not get a seat of its own');
      if (out.some((x) => x.kind === 'seat' && x.paxRef === pax.ref && x.segmentIndex === a.segmentIndex)) {
        throw new ApiError(S.ANCILLARY_INVALID, `passenger ${i + 1} has two seats on segment ${a.segmentIndex}`);
      }
      const key = `${a.segmentIndex}/${code.seat}`;
      if (seatsTaken.has(key)) throw new ApiError(S.SEAT_NOT_FOUND, `seat ${code.seat} is asked for twice on segment ${a.segmentIndex}`);
      seatsTaken.add(key);
      const map = await seatMapOf(deps, seg, seg.cabinClass);
      const row = 'ok' in map ? undefined : map.cabins.flatMap((c) => c.seatRows).find((r) => `${r.number}` === code.seat.slice(0, -1));
      const seat = row?.seats.find((s) => s.column === code.seat.slice(-1));
      if (!seat) throw new ApiError(S.SEAT_NOT_FOUND, `seat ${code.seat} not found on segment ${a.segmentIndex}`);
      out.push({ kind: 'seat', paxRef: pax.ref, segmentIndex: a.segmentIndex, seat: code.seat, priceMinor: seat.priceMinor, currency: seat.currency });
    }
  }
  return out;
}
