// order.do (plan §3.6, §8.6; docs/decisions/0023): books the session's itinerary with the airline (seats held,
// no tickets) and creates the client's unpaid order ("0") with our own booking reference (pnrCode) and the
// airline's payment deadline. Seats and bags come as passengers[].ancillaries. The airline books at its price
// of the moment: a fare or seat price that moved since verify answers 308 / 322 with the new price and a
// re-priced session that books at it; nothing is booked then. From before the airline call until the order's
// row is written the booking is named by an attempt (./attempts.ts, decision 0046), so no hold is ever left that
// nothing releases.
import { DateTime } from 'luxon';
import { ConnectorError, type AirlinePassenger, type AirlineRecord, type BookingAnswer, type BookingRequest, type RequestedAncillary } from '../airline/connector.js';
import { attemptBecomesOrder, dropAttempt, releaseAttempt, startAttempt, takeAttempt } from './attempts.js';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { insertOrderFromRecord, newOrderNo } from '../orders/orders.js';
import { isUniqueViolation } from '../store/errors.js';
import { seatMapOf } from './seat-availability.js';
import { parseSeatProductCode, sessionBinding } from './seat-product-code.js';
import { bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { orderView, type BookingDetails, type SoldAncillary } from './order-view.js';
import type { OrderRow } from '../store/schema.js';
import { fullRoutingOf } from './routing.js';
import { airlineSegmentsOf, feeMinorOf, flightRefOf, offerIdOf, repricedSessions, type ChainItinerary, type ChainSession, type PaxCounts } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { OrderRequest } from './wire-order.js';

/** How long an unpaid order holds its seats and price when the airline does not say (plan §7: 30 minutes). */
export const PAYMENT_WINDOW_MS = 30 * 60_000;

const PAX_TYPE = ['ADT', 'CHD', 'INF'] as const;
const SEAT_CHOICES = ['SIMILAR_SEAT', 'STOP_SEAT', 'STOP_TICKET'] as const;
const NAME = /^[A-Za-z][A-Za-z -]*\/[A-Za-z][A-Za-z -]*$/;
const DATE8 = /^\d{8}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MOBILE = /^\d{1,4}-\d{4,15}$/;
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const SILENT = { info: () => undefined, warn: () => undefined };

/** "" and null are absent (decision 0021). */
const given = (v: string | null | undefined) => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

/** What an Idempotency-Key keeps for order.do (src/http/idempotency.ts's KeyProgress): the order number noted. */
export interface OrderProgress {
  previous: unknown;
  note(note: { orderNo: string }): Promise<void>;
}

/** Order numbers drawn for one order.do before it fails: each is taken only if another process drew it too. */
const MAX_ORDER_NO_DRAWS = 5;

/**
 * Under an Idempotency-Key (`progress`): the order number is noted on the key before the airline is asked, and a
 * retry that takes over the key of a request that died answers the order that request recorded (its answer was
 * lost with it) instead of booking again (found by a review: two bookings and holds for one key). One that died
 * before its order was written left an attempt, which the expiry sweep releases (decision 0046): booked anew.
 */
export async function createOrder(deps: BookingDeps, clientId: string, req: OrderRequest, progress?: OrderProgress) {
  const now = deps.clock.now();
  const earlier = (progress?.previous as { orderNo?: unknown } | null | undefined)?.orderNo;
  if (typeof earlier === 'string') {
    const recorded = await deps.db.selectFrom('orders').selectAll().where('order_no', '=', earlier).where('client_id', '=', clientId).executeTakeFirst();
    if (recorded) return orderAnswer(deps, recorded, given(req.sessionId), offerIdOf(req));
  }
  const sessionId = given(req.sessionId);
  const offerId = offerIdOf(req); // offerId, or offerID as getOffers.do spells it (issue 9)
  if (!sessionId && !offerId) throw new ApiError(S.SESSION_INVALID, 'sessionId (or offerId) is required');
  // Either field takes either kind of id (the original's guides blur the two, plan §7).
  const session = await deps.sessions.find(clientId, (sessionId ?? offerId)!, ['verify', 'offer'], now);
  if (!session) throw new ApiError(S.SESSION_INVALID, `${sessionId ? 'sessionId' : 'offerId'} missing or expired (valid 2 h); verify again`);
  const it = session.itinerary;

  const { passengers, counts, cardTypes, names } = passengersOf(req, it);
  const contact = contactOf(req);
  const ifSeatOccupied = seatChoiceOf(req.ifSeatOccupied);
  // 303 before the ancillaries: a seat's map asked for first answered a closed airline with verify.do's 205 (a review)
  const b = bookingOf(deps.airlines, it.carrier, S.ORDER_AIRLINE_CLOSED);
  const ancillaries = await ancillariesOf(deps, session, req, passengers);

  const booking: Omit<BookingRequest, 'idempotencyKey'> = {
    clientId,
    carrier: it.carrier,
    segments: it.segments.map((s) => ({ flight: flightRefOf(s), direction: s.direction, cabinClass: s.cabinClass, fareFamily: s.fareFamily })),
    passengers,
    contact: { email: contact.email ?? '', phone: contact.mobile },
    price: it.price,
    ancillaries,
    ifSeatOccupied,
  };
  // Until its order row is written, a booking the airline makes is named by this attempt (decision 0046). A number
  // another order or attempt holds is drawn again (decision 0061).
  let request: BookingRequest | undefined;
  for (let draw = 0; request === undefined; draw++) {
    if (draw === MAX_ORDER_NO_DRAWS) throw new Error(`order.do: ${MAX_ORDER_NO_DRAWS} order numbers drawn were all taken`);
    const drawn: BookingRequest = { idempotencyKey: (deps.newOrderNo ?? newOrderNo)(), ...booking };
    if (await startAttempt(deps.db, drawn, deps.clock.now())) request = drawn;
  }
  const orderNo = request.idempotencyKey;
  await progress?.note({ orderNo });
  let answer: BookingAnswer;
  try {
    answer = await b.book(request, callOpts());
  } catch (err) {
    // A time-out may have booked: the attempt stays and the expiry sweep releases what the airline holds under it.
    // Anything else answered by the airline booked nothing. An error of ours leaves the attempt to the sweep too.
    if (!(err instanceof ConnectorError)) throw err;
    if (err.kind === 'timeout') {
      throw new ApiError(S.ORDER_AIRLINE_TIMEOUT, 'the airline did not answer in time (timeout); no order was made, and seats it may have held are released by the service: order again');
    }
    await dropAttempt(deps.db, orderNo);
    const status = { unavailable: S.ORDER_AIRLINE_SYSTEM, rejected: S.ORDER_AIRLINE_FAILED }[err.kind];
    throw new ApiError(status, `the airline could not book (${err.kind}); nothing was booked`);
  }
  if (!answer.ok) {
    await dropAttempt(deps.db, orderNo);
    if (answer.reason === 'fareChanged' || answer.reason === 'seatPriceChanged') return repriced(deps, clientId, session, req, passengers, answer);
    const status = {
      seatTaken: S.SEAT_UNAVAILABLE,
      seatUnknown: S.SEAT_NOT_FOUND,
      soldOut: S.ORDER_NOT_ENOUGH_SEATS,
      flightUnknown: S.ORDER_FLIGHT_UNAVAILABLE,
      infantNotAllowed: S.ORDER_INFANT_NOT_ALLOWED,
    }[answer.reason];
    throw new ApiError(status, answer.message);
  }
  try {
    // What the airline actually sold: a STOP_SEAT seat that was taken is not charged; a similar seat is charged
    // at the price asked for.
    const bagsOffered = ancillaries.some((a) => a.kind === 'baggage') ? baggageProducts(b, it) : [];
    const sold: SoldAncillary[] = [];
    for (const a of ancillaries) {
      const paxIndex = passengers.findIndex((p) => p.ref === a.paxRef) + 1;
      if (a.kind === 'baggage') {
        const bag = bagsOffered.find((p) => p.code === a.code && p.segmentIndex === a.segmentIndex)!;
        sold.push({ paxIndex, segmentIndex: a.segmentIndex, productCode: bag.code, category: bag.category, priceMinor: bag.priceMinor, currency: bag.currency, seat: null, baggage: { piece: bag.piece, weight: bag.weight, isAllWeight: false, size: null } });
        continue;
      }
      const outcome = answer.seats.find((s) => s.paxRef === a.paxRef && s.segmentIndex === a.segmentIndex);
      if (!outcome?.assigned) continue;
      const seg = it.segments.find((s) => s.index === a.segmentIndex)!;
      sold.push({
        paxIndex,
        segmentIndex: a.segmentIndex,
        productCode: `SCI_SEAT_${outcome.assigned}_${seg.carrier}_${seg.depAirport}_${seg.arrAirport}`,
        category: 'Seat',
        priceMinor: a.priceMinor,
        currency: a.currency,
        seat: { row: outcome.assigned.slice(0, -1), column: outcome.assigned.slice(-1) },
        baggage: null,
      });
    }
    const fareMinor = passengers.reduce((sum, p) => {
      const f = p.type === 'ADT' ? it.price.adult : p.type === 'CHD' ? it.price.child : it.price.infant;
      return sum + f.fareMinor + f.taxMinor;
    }, 0);
    const ancillaryMinor = sold.reduce((sum, a) => sum + a.priceMinor, 0);
    const feeMinor = feeMinorOf(it, counts);
    const deadline = answer.holdUntil ?? new Date(now.getTime() + PAYMENT_WINDOW_MS);
    // A routingIdentifier for the order's routing (as verify.do answers one), valid 6 h like any.
    const routingId = await deps.sessions.create({ kind: 'search', clientId, itinerary: it, pax: counts, now });
    const details: BookingDetails = { itinerary: it, routingIdentifier: routingId.id, contact, ifSeatOccupied, cardTypes, names, ancillaries: sold };
    await recordOrder(deps, { orderNo, clientId, sessionId: session.id, record: answer.record, now, currency: it.price.currency, totalMinor: fareMinor + ancillaryMinor, deadline, feeMinor, details });
  } catch (err) {
    // The airline holds seats that no order names: released now, or (the airline not answering, or this process
    // dying first) by the expiry sweep, which finds the attempt. Taken first: an order whose commit did happen (its
    // answer lost) removed the attempt, and its booking is then not released; one the sweep took is the sweep's.
    const attempts = { db: deps.db, airlines: deps.airlines, clock: deps.clock, log: deps.log ?? SILENT };
    if (await takeAttempt(deps.db, orderNo, deps.clock.now(), false).catch(() => false)) await releaseAttempt(attempts, orderNo, it.carrier, request).catch(() => null);
    throw err;
  }

  const order = await deps.db.selectFrom('orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();
  return orderAnswer(deps, order, sessionId, offerId);
}

/** order.do's answer for a recorded order. */
async function orderAnswer(deps: BookingDeps, order: OrderRow, sessionId: string | null, offerId: string | null | undefined) {
  const view = await orderView(deps.db, order);
  return {
    status: 0 as const,
    msg: 'success',
    sessionId: sessionId ?? null,
    offerId: offerId ?? null,
    orderNo: order.order_no,
    pnrCode: view.pnrCode,
    totalPrice: toAmount(view.totals.fareMinor + view.totals.ancillaryMinor, view.currency),
    totalTransactionFee: toAmount(view.totals.feeMinor, view.currency),
    currency: view.currency,
    vendorTotalPrice: null,
    vendorCurrency: null,
    tktLimitTime: view.tktLimitTime,
    paxTicketInfos: view.paxTicketInfos,
    routing: view.routing,
    duplicateOrders: null,
    paymentOptions: view.paymentOptions,
  };
}

/** The body of a 308 / 322 answer (decision 0023): a re-priced session at the airline's new price, and that price. */
export interface RepricedAnswer {
  repriced: true;
  body: {
    status: number;
    msg: string;
    sessionId: string;
    offerId: string | null;
    routing: ReturnType<typeof fullRoutingOf>;
    seatPrices: Array<{ passengerIndex: number; segmentIndex: number; seat: string; price: number; currency: string }> | null;
  };
}

async function repriced(
  deps: BookingDeps,
  clientId: string,
  session: ChainSession,
  req: OrderRequest,
  passengers: AirlinePassenger[],
  answer: Extract<BookingAnswer, { ok: false }>,
): Promise<RepricedAnswer> {
  const now = deps.clock.now();
  const it = session.itinerary;
  const seatPrices = { ...it.seatPrices };
  for (const s of answer.newSeatPrices ?? []) seatPrices[`${s.segmentIndex}/${s.seat}`] = { priceMinor: s.priceMinor, currency: s.currency };
  const next: ChainItinerary = Object.assign({}, it, { price: answer.newPrice ?? it.price, repricedFrom: [...repricedSessions(it), session.id], seatPrices });
  const fresh = await deps.sessions.create({ kind: session.kind, clientId, itinerary: next, pax: session.pax, now });
  const routing = await deps.sessions.create({ kind: 'search', clientId, itinerary: next, pax: session.pax, now });
  const fare = answer.reason === 'fareChanged';
  return {
    repriced: true,
    body: {
      status: fare ? S.ORDER_FARE_CHANGED : S.ORDER_SEAT_PRICE_CHANGED,
      msg: `${answer.message}; nothing was booked: order again with the sessionId of this answer to accept the new price`,
      sessionId: fresh.id,
      offerId: offerIdOf(req) ? fresh.id : null,
      routing: fullRoutingOf(next, routing.id, { refreshTime: null, expireTime: null }),
      seatPrices: fare
        ? null
        : (answer.newSeatPrices ?? []).map((s) => ({
            passengerIndex: passengers.findIndex((p) => p.ref === s.paxRef) + 1,
            segmentIndex: s.segmentIndex,
            seat: s.seat,
            price: toAmount(s.priceMinor, s.currency),
            currency: s.currency,
          })),
    },
  };
}

/**
 * The request's passengers as the airline takes them. The mix may differ from the verified one (plan §3.2 FAQ):
 * at least one adult (a child without one: 408), no more infants than adults, at most 9 seated (312) and no
 * more than the seats verify.do offered (maxSeats: 302); each priced by the routing's fare of its type.
 */
function passengersOf(req: OrderRequest, it: ChainItinerary): { passengers: AirlinePassenger[]; counts: PaxCounts; cardTypes: Array<string | null>; names: string[] } {
  const types = req.passengers.map((p, i) => {
    const t = typeof p.passengerType === 'number' ? p.passengerType : /^\d$/.test(p.passengerType.trim()) ? Number(p.passengerType) : NaN;
    if (t !== 0 && t !== 1 && t !== 2) throw new ApiError(S.ORDER_ILLEGAL, `passengers[${i}].passengerType must be 0 (adult), 1 (child) or 2 (infant)`);
    return t;
  });
  const counts: PaxCounts = { adults: types.filter((t) => t === 0).length, children: types.filter((t) => t === 1).length, infants: types.filter((t) => t === 2).length };
  if (counts.adults === 0) {
    if (counts.children > 0) throw new ApiError(S.ORDER_CHILD_ALONE, 'a child cannot travel without an adult');
    throw new ApiError(S.ORDER_ILLEGAL, 'passengers: at least one adult is required');
  }
  if (counts.infants > counts.adults) throw new ApiError(S.ORDER_ILLEGAL, 'passengers: at most one infant per adult');
  const seated = counts.adults + counts.children;
  if (seated > 9) throw new ApiError(S.ORDER_TOO_MANY_PASSENGERS, 'more passengers than seats allowed (9 seated at most)');
  if (seated > it.seatsLeft) throw new ApiError(S.ORDER_FLIGHT_UNAVAILABLE, `the flight cannot take ${seated} passengers: ${it.seatsLeft} seat(s) for sale (verify.do maxSeats)`);
  const travel = travelDates(it);
  const passengers = req.passengers.map((p, i): AirlinePassenger => {
    const name = p.name.trim();
    if (!NAME.test(name)) throw new ApiError(S.ORDER_ILLEGAL, `passengers[${i}].name must be LAST/FIRST in Latin letters`);
    const [last, first] = name.toUpperCase().split('/') as [string, string];
    const birthday = given(p.birthday);
    if (birthday !== null && !isDate8(birthday)) throw new ApiError(S.ORDER_ILLEGAL, `passengers[${i}].birthday must be a date, yyyyMMdd`);
    if (types[i] !== 0 && !birthday) throw new ApiError(S.ORDER_PASSENGER_ELEMENT_MISSING, `passengers[${i}].birthday is required for a child or infant`);
    if (birthday !== null) checkAge(birthday, types[i]!, travel, i);
    const expiry = given(p.cardExpired);
    if (expiry !== null && !isDate8(expiry)) throw new ApiError(S.ORDER_ILLEGAL, `passengers[${i}].cardExpired must be a date, yyyyMMdd`);
    if (expiry !== null && expiry < travel.last) throw new ApiError(S.ORDER_PASSENGER_INFO, `passengers[${i}].cardExpired: the document expires before the last flight`);
    const gender = genderOf(given(p.gender), i);
    const cardNum = given(p.cardNum);
    return {
      ref: `p${i + 1}`,
      type: PAX_TYPE[types[i]!],
      lastName: last.trim(),
      firstName: first.trim(),
      birthday,
      gender,
      document: cardNum
        ? { type: given(p.cardType) ?? 'PP', number: cardNum, expiry, issuePlace: given(p.cardIssuePlace), nationality: given(p.nationality) }
        : null,
    };
  });
  // the names as sent, echoed by paxTicketInfos (the airline is handed them upper-cased)
  return { passengers, counts, cardTypes: req.passengers.map((p) => given(p.cardType)), names: req.passengers.map((p) => p.name.trim()) };
}

/** A real calendar date as yyyyMMdd (a review: "20261399" passed the pattern). */
function isDate8(text: string): boolean {
  return DATE8.test(text) && DateTime.fromFormat(text, 'yyyyMMdd', { zone: 'UTC' }).isValid;
}

/** The local dates (yyyyMMdd) of the itinerary's first and last departures. */
function travelDates(it: ChainItinerary): { first: string; last: string } {
  const dates = it.segments.map((s) => s.depDate).sort();
  return { first: dates[0]!, last: dates.at(-1)! };
}

/** Full years from `birthday` to `day`, both yyyyMMdd. */
const ageOn = (birthday: string, day: string) => Math.floor((Number(day) - Number(birthday)) / 10_000);

/**
 * The passenger's age against its type, as fares are priced (a review: an adult booked as an infant paid 10 % of the
 * fare): an adult is 12 or older at the first departure, a child under 12 then (under 2 it takes a seat at the
 * child fare), an infant under 2 on every flight; no one is born after the first flight or 130 years before. 327.
 */
function checkAge(birthday: string, type: number, travel: { first: string; last: string }, i: number): void {
  const age = ageOn(birthday, travel.first);
  const refuse = (why: string): never => {
    throw new ApiError(S.ORDER_PASSENGER_INFO, `passengers[${i}]: ${why}`);
  };
  if (birthday > travel.first) refuse('the birthday is after the first flight');
  if (age >= 130) refuse('the birthday is not a living passenger\'s');
  if (type === 0 && age < 12) refuse('an adult (passengerType 0) is 12 or older at the first flight; book a child (1) or an infant (2)');
  if (type === 1 && age >= 12) refuse('a child (passengerType 1) is under 12 at the first flight; book an adult (0)');
  if (type === 2 && ageOn(birthday, travel.last) >= 2) refuse('an infant (passengerType 2) is under 2 on every flight; book a child (1) with a seat');
}

/** M or F; MALE / FEMALE in any case are read as such (lenient, decision 0023); absent stays absent. */
function genderOf(text: string | null, i: number): 'M' | 'F' | null {
  if (text === null) return null;
  const g = text.toUpperCase();
  if (g === 'M' || g === 'MALE') return 'M';
  if (g === 'F' || g === 'FEMALE') return 'F';
  throw new ApiError(S.ORDER_ILLEGAL, `passengers[${i}].gender must be M or F`);
}

function contactOf(req: OrderRequest): BookingDetails['contact'] {
  const c = req.contact;
  const email = given(c.email);
  if (email !== null && !EMAIL.test(email)) throw new ApiError(S.ORDER_EMAIL_FORMAT, 'contact.email is not an e-mail address');
  const mobile = given(c.mobile);
  if (mobile !== null && !MOBILE.test(mobile)) throw new ApiError(S.ORDER_CONTACT_FORMAT, 'contact.mobile must be CCCC-NNNNNNNN (country code, dash, number)');
  const name = c.name.trim();
  if (!name) throw new ApiError(S.ORDER_ILLEGAL, 'contact.name is required');
  return { name, email, mobile, address: given(c.address), postcode: given(c.postcode), companyName: given(c.companyName) };
}

function seatChoiceOf(text: string | null | undefined): (typeof SEAT_CHOICES)[number] {
  const v = given(text);
  if (v === null) return 'SIMILAR_SEAT';
  const choice = SEAT_CHOICES.find((c) => c === v.toUpperCase());
  if (!choice) throw new ApiError(S.ORDER_ILLEGAL, 'ifSeatOccupied must be SIMILAR_SEAT, STOP_SEAT or STOP_TICKET');
  return choice;
}

/** postbook's own booking reference: 6 characters (no 0/O, 1/I), unique among orders (the store's constraint). */
function newBookingRef(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((x) => REF_ALPHABET[x % REF_ALPHABET.length]).join('');
}

/** The client's unpaid order and its booking row, in one transaction with the attempt's removal (after the airline booked). */
async function recordOrder(
  deps: BookingDeps,
  o: { orderNo: string; clientId: string; sessionId: string; record: AirlineRecord; now: Date; currency: string; totalMinor: number; deadline: Date; feeMinor: number; details: BookingDetails },
): Promise<void> {
  const { orderNo, clientId, record, now, currency, deadline, feeMinor } = o;
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.db.transaction().execute(async (trx) => {
        if (!(await attemptBecomesOrder(trx, orderNo))) {
          throw new ApiError(S.ORDER_AIRLINE_TIMEOUT, 'the booking outlived the airline\'s time and was released; no order was made: order again');
        }
        await insertOrderFromRecord(trx, { orderNo, clientId, source: 'booking', record, now });
        await trx.updateTable('orders').set({ currency, total_minor: o.totalMinor, contact_email: o.details.contact.email, updated_at: now }).where('order_no', '=', orderNo).execute();
        await trx
          .insertInto('booking_orders')
          .values({
            order_no: orderNo,
            client_id: clientId,
            session_id: o.sessionId,
            booking_ref: newBookingRef(),
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
      return;
    } catch (err) {
      // A reference drawn twice (one in a billion per order): draw again.
      if (attempt < 5 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

function baggageProducts(b: ReturnType<typeof bookingOf>, it: ChainItinerary) {
  return b.baggage(it.carrier, airlineSegmentsOf(it), it.price.currency);
}

export { baggageProducts };

/**
 * Seat and bag productCodes of the request, checked against the session (309) and the seat map (320). A seat is
 * asked at the price the seat map shows, or at the price the caller accepted on a 322 (the session's seatPrices).
 */
async function ancillariesOf(deps: BookingDeps, session: ChainSession, req: OrderRequest, passengers: AirlinePassenger[]): Promise<RequestedAncillary[]> {
  const it = session.itinerary;
  const out: RequestedAncillary[] = [];
  const seatsTaken = new Set<string>();
  // a code of this session, or of any it re-priced (a 308, then a 322 of the re-priced one: found by a review)
  const bindings = [session.id, ...repricedSessions(it)];
  const bags = req.passengers.some((p) => p.ancillaries?.some((a) => a.productCode.startsWith('BAG_'))) ? baggageProducts(bookingOf(deps.airlines, it.carrier, S.ORDER_AIRLINE_CLOSED), it) : [];
  for (const [i, p] of req.passengers.entries()) {
    const pax = passengers[i]!;
    for (const a of p.ancillaries ?? []) {
      const segmentIndex = Number(a.segmentIndex);
      const seg = it.segments.find((s) => s.index === segmentIndex);
      if (!seg) throw new ApiError(S.ANCILLARY_INVALID, `ancillary ${a.productCode}: segmentIndex ${a.segmentIndex} is not in the session`);
      if (a.productCode.startsWith('BAG_')) {
        const bag = bags.find((x) => x.code === a.productCode && x.segmentIndex === segmentIndex);
        if (!bag) throw new ApiError(S.ANCILLARY_INVALID, `ancillary productCode ${a.productCode} is invalid for segment ${segmentIndex}`);
        // maxQty 1 (decision 0024): one bag of a product per passenger and segment (a review: three were charged)
        if (out.some((x) => x.kind === 'baggage' && x.paxRef === pax.ref && x.segmentIndex === segmentIndex && x.code === bag.code)) {
          throw new ApiError(S.ANCILLARY_INVALID, `passenger ${i + 1} asks for ${bag.code} twice on segment ${segmentIndex} (one of a product per passenger and segment)`);
        }
        out.push({ kind: 'baggage', paxRef: pax.ref, segmentIndex, code: bag.code });
        continue;
      }
      const code = parseSeatProductCode(a.productCode);
      if (
        !code ||
        !bindings.some((id) => code.binding === sessionBinding(id, segmentIndex)) ||
        code.carrier !== seg.carrier ||
        code.dep !== seg.depAirport ||
        code.arr !== seg.arrAirport
      ) {
        throw new ApiError(S.ANCILLARY_INVALID, `ancillary productCode ${a.productCode} is invalid for this session and segment ${segmentIndex} (ask seatAvailability.do again)`);
      }
      if (pax.type === 'INF') throw new ApiError(S.ANCILLARY_INVALID, 'an infant does not get a seat of its own');
      if (out.some((x) => x.kind === 'seat' && x.paxRef === pax.ref && x.segmentIndex === segmentIndex)) {
        throw new ApiError(S.ANCILLARY_INVALID, `passenger ${i + 1} has two seats on segment ${segmentIndex}`);
      }
      const key = `${segmentIndex}/${code.seat}`;
      if (seatsTaken.has(key)) throw new ApiError(S.SEAT_NOT_FOUND, `seat ${code.seat} is asked for twice on segment ${segmentIndex}`);
      seatsTaken.add(key);
      const map = await seatMapOf(deps, seg, seg.cabinClass);
      // The airline did not answer with its map: an airline failure, not a seat that does not exist (found by a
      // review: it answered 320 where the same order without a seat answered 324).
      if ('ok' in map && map.reason === 'unknown') throw new ApiError(S.ORDER_AIRLINE_SYSTEM, `the airline's seat map of segment ${segmentIndex} could not be read; try again`);
      const row = 'ok' in map ? undefined : map.cabins.flatMap((c) => c.seatRows).find((r) => `${r.number}` === code.seat.slice(0, -1));
      const seat = row?.seats.find((s) => s.column === code.seat.slice(-1));
      if (!seat) throw new ApiError(S.SEAT_NOT_FOUND, `seat ${code.seat} not found on segment ${segmentIndex}`);
      // The price the caller accepted on a 322, else the one its seat map showed (in the code), else the map's now
      const accepted = it.seatPrices?.[key];
      out.push({ kind: 'seat', paxRef: pax.ref, segmentIndex, seat: code.seat, priceMinor: accepted?.priceMinor ?? code.priceMinor ?? seat.priceMinor, currency: accepted?.currency ?? seat.currency });
    }
  }
  return out;
}
