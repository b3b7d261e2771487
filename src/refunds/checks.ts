// The refund checks, in the order of docs/architecture.md "Refund checks and their codes", after shape (810), order (801/824).
// Pure: the loaded order, the airline's terms, the clock and the client's settings in; the selection out.
import { DateTime } from 'luxon';
import { normalizeFlightNumber, type AirlineRefundTerms } from '../airline/connector.js';
import { departureInstant, NowRange, rangeOf, type RefundReason } from './engine/index.js';
import { ApiError } from '../errors.js';
import { normalizeName } from '../pnr/records.js';
import type { OrderContext, PaxRow, SegmentRow, TicketRow } from './context.js';
import { REFUND_STATUS as S } from './statuses.js';
import type { RefundRequestItem } from './wire.js';

export type Reason = RefundReason;

export interface Pick {
  pax: PaxRow;
  tickets: TicketRow[];
}

export interface Selection {
  reason: Reason;
  picks: Pick[];
}

export interface CheckEnv {
  terms: AirlineRefundTerms | null;
  supportsRefunds: boolean;
  supportsVoids: boolean;
  now: Date;
  /** refund.do only: voluntary after departure goes to the operator console (825). */
  forSubmit: boolean;
  /** Client setting: voluntary refunds need at least this many minutes before departure (840). */
  minMinutesBeforeDeparture: number | null;
  /** Narrowed by every reading of the clock below (decision 0067); its `now` is `now`'s. */
  nowRange?: NowRange;
}

const fail = (status: number, msg: string): never => {
  throw new ApiError(status, msg);
};

/** 810 checks that need no order: reasons, one reason per request (a passenger twice needs the order: checkRequest). */
export function checkShape(items: RefundRequestItem[]): Reason {
  for (const [i, item] of items.entries()) {
    if (!['0', '1', '4'].includes(item.refundReason)) {
      fail(
        S.INVALID,
        `refundRequestList[${i}].refundReason ${JSON.stringify(item.refundReason)} is not supported online: use 0 (involuntary), 1 (voluntary) or 4 (void); other cases such as medical or death need customer service`,
      );
    }
  }
  const reasons = new Set(items.map((i) => i.refundReason));
  if (reasons.size > 1) fail(S.INVALID, 'invalid request: every passenger of one request needs the same refundReason; send separate requests');
  return items[0]!.refundReason as Reason;
}

const ymd = (local: string | null) => (local ? local.slice(0, 10).replace(/-/g, '') : null);

/** A segment as the request's segments are matched against it; made once per segment of a kept (frozen) context. */
interface SegmentKey {
  flight: string;
  depDate: string | null;
  bookedDepDate: string | null;
}
const segmentKeys = new WeakMap<SegmentRow, SegmentKey>();

function keyOfSegment(s: SegmentRow): SegmentKey {
  let key = segmentKeys.get(s);
  if (key === undefined) {
    key = { flight: normalizeFlightNumber(s.carrier, s.flightNumber), depDate: ymd(s.depLocal), bookedDepDate: ymd(s.bookedDepLocal) };
    if (Object.isFrozen(s)) segmentKeys.set(s, key);
  }
  return key;
}

function findSegment(ctx: OrderContext, seg: RefundRequestItem['segments'][number]): SegmentRow | undefined {
  const depAirport = seg.depAirport.toUpperCase();
  const arrAirport = seg.arrAirport.toUpperCase();
  return ctx.segments.find((s) => {
    if (s.depAirport !== depAirport || s.arrAirport !== arrAirport) return false;
    const key = keyOfSegment(s);
    return (seg.depDate === key.depDate || seg.depDate === key.bookedDepDate) && normalizeFlightNumber(s.carrier, seg.flightNo) === key.flight;
  });
}

/**
 * The end of the void window of these tickets (spec 1, docs/voids.md): the last instant of the earliest issue
 * day in the airline's zone; null when a ticket's issue time is unknown (no void then). Used by the refund
 * checks (reason 4) and the void path alike.
 */
export function voidDeadline(ctx: { order: OrderContext['order'] }, tickets: ReadonlyArray<{ issuedAt: TicketRow['issuedAt'] }>, zone: string): DateTime | null {
  let earliest: Date | null = null;
  for (const t of tickets) {
    const issued = t.issuedAt ?? ctx.order.ticketed_at;
    if (!issued) return null;
    if (!earliest || issued < earliest) earliest = issued;
  }
  return earliest ? DateTime.fromJSDate(earliest, { zone }).endOf('day') : null;
}

/** Scheduled departure of a ticket's first segment. */
export function firstDeparture(ctx: OrderContext, ticket: TicketRow): SegmentRow {
  const idx = Math.min(...ticket.coupons.map((c) => c.segmentIndex));
  return ctx.segments.find((s) => s.index === idx) ?? ctx.segments[0]!;
}


/** A segment's departure instant as the refund engine reads it; its stored instant when its local time cannot be read. */
function departureOf(s: SegmentRow): number {
  try {
    return departureInstant({ local: s.depLocal, timeZone: s.depTimeZone });
  } catch {
    return s.depAt.getTime();
  }
}

export function checkRequest(ctx: OrderContext, items: RefundRequestItem[], reason: Reason, env: CheckEnv): Selection {
  const { order } = ctx;
  // 809: spec 3.2, a refund needs a ticketed order
  if (order.status !== '2') fail(S.NOT_TICKETED, 'order not yet ticketed; wait for order_status=2');
  // 842/843
  const terms = env.terms;
  if (!terms || !env.supportsRefunds) fail(S.AIRLINE_NOT_SERVED, `refund service is not supported for airline ${order.carrier}`);
  if (reason === '4' && (!env.supportsVoids || terms!.voidWindow === 'none')) {
    fail(S.ROUTE_NOT_SERVED, `void is not covered for airline ${order.carrier}; use a refund (reason 0 or 1)`);
  }
  const blocked = ctx.segments.find((s) => terms!.routesWithoutRefund.includes(`${s.depAirport}-${s.arrAirport}`));
  if (blocked) fail(S.ROUTE_NOT_SERVED, `refund service is not supported for the route ${blocked.depAirport}-${blocked.arrAirport} of this booking`);
  // 841
  if (order.payment_method === 'merchant') fail(S.PAYMENT_UNSUPPORTED, 'payment method not supported for refund; contact the airline');

  // 807 / 812 / 815 / 8041 / 811 / 804, per passenger
  const picks: Pick[] = [];
  const used = new Set<number>();
  // 804 counts the tickets left to refund: one the airline shows refunded, or with a refund of its own, is no
  // longer the passenger's to list (a review: an open return was refused 804 alone and 817 with the refunded
  // outbound listed, so never refunded)
  const leftToRefund = (t: TicketRow) => !t.coupons.some((c) => c.status === 'REFUND') && !ctx.liveRefunds.has(t.ticketNo);
  // A name listed more often than the booking holds it (one passenger's segments split over two entries): 810 on the
  // entry too many, before the first entry's 804 said a segment was missing that the request did send (a review).
  // (An entry so refused is one the loop below would find no unnamed passenger for.)
  const nameOf = (p: { lastName: string; firstName: string }) => `${normalizeName(p.lastName)}/${normalizeName(p.firstName)}`;
  const held = new Map<string, number>();
  for (const p of ctx.passengers) held.set(nameOf(p), (held.get(nameOf(p)) ?? 0) + 1);
  for (const [i, item] of items.entries()) {
    const name = nameOf(item);
    const left = held.get(name);
    if (left === 0) fail(S.INVALID, `invalid request: refundRequestList[${i}] names a passenger already listed; list all of a passenger's segments in one entry`);
    if (left !== undefined) held.set(name, left - 1);
  }
  for (const [i, item] of items.entries()) {
    const lastName = normalizeName(item.lastName);
    const firstName = normalizeName(item.firstName);
    const sameLast = ctx.passengers.filter((p) => normalizeName(p.lastName) === lastName);
    if (sameLast.length === 0) fail(S.PASSENGER_NOT_FOUND, `refundRequestList[${i}]: passenger not found in this order`);
    const sameName = sameLast.filter((p) => normalizeName(p.firstName) === firstName);
    if (sameName.length === 0) fail(S.PASSENGER_INCONSISTENT, `refundRequestList[${i}]: passenger details are inconsistent with the original booking`);
    // Passengers of one name (a father and son): each entry names one not named yet, the first with a ticket left
    // to refund first — a request names a name as often as it wants that many of them refunded (reviews: the second
    // was refused 810 when both were listed, and 803 or 817 alone, as the first was picked again, so never refunded).
    // never empty: a name listed more often than held was refused above
    const unnamed = sameName.filter((p) => !used.has(p.paxIndex));
    const pax = unnamed.find((p) => ctx.tickets.some((t) => t.paxIndex === p.paxIndex && leftToRefund(t))) ?? unnamed[0]!;
    used.add(pax.paxIndex);
    const paxTickets = ctx.tickets.filter((t) => t.paxIndex === pax.paxIndex);
    const refundable = paxTickets.filter(leftToRefund);
    if (paxTickets.length === 0) fail(S.TICKET_NOT_FOUND, `refundRequestList[${i}]: no ticket found for this passenger`);
    const requested = new Set<number>();
    for (const [j, seg] of item.segments.entries()) {
      const found = findSegment(ctx, seg);
      if (!found || !paxTickets.some((t) => t.coupons.some((c) => c.segmentIndex === found.index))) {
        fail(S.SEGMENT_NOT_FOUND, `refundRequestList[${i}].segments[${j}]: segment not found in this order`);
      }
      requested.add(found!.index);
    }
    const covered = paxTickets.filter((t) => t.coupons.some((c) => requested.has(c.segmentIndex)));
    for (const t of covered) {
      if (!t.coupons.every((c) => requested.has(c.segmentIndex))) {
        fail(S.INCOMPLETE_ITINERARY, `refundRequestList[${i}]: incomplete itinerary; list every leg and segment of ticket ${t.ticketNo}`);
      }
    }
    if (refundable.some((t) => !covered.includes(t))) {
      fail(S.PNR_TOGETHER, `refundRequestList[${i}]: all segments of the same PNR must be submitted together (the passenger holds ${refundable.length} tickets to refund)`);
    }
    picks.push({ pax, tickets: covered });
  }
  const tickets = picks.flatMap((p) => p.tickets);

  // 820: spec 1 rule 3
  if (tickets.some((t) => t.coupons.some((c) => c.status === 'USED'))) fail(S.TICKET_USED, 'ticket already used; a flown segment cannot be refunded');

  // 802: who stays on the booking after this request (passengers without a live refund, and not those whose every
  // ticket the airline shows refunded: a review saw a child left with such an adult quoted 0, and a void of the
  // passengers left answered 823 for one who had gone). An infant without a ticket of its own travels on an adult's
  // and leaves with it: not counted (found by a review: an adult with a lap infant was refused 802 alone and 815
  // with the infant named, so she could never be refunded or voided).
  const refundedPax = new Set(ctx.tickets.filter((t) => ctx.liveRefunds.has(t.ticketNo)).map((t) => t.paxIndex));
  for (const p of ctx.passengers) {
    const own = ctx.tickets.filter((t) => t.paxIndex === p.paxIndex);
    if (own.length > 0 && !own.some(leftToRefund)) refundedPax.add(p.paxIndex);
  }
  const requestedPax = new Set(picks.map((p) => p.pax.paxIndex));
  const ticketed = new Set(ctx.tickets.map((t) => t.paxIndex));
  const remaining = ctx.passengers.filter((p) => !requestedPax.has(p.paxIndex) && !refundedPax.has(p.paxIndex) && (p.type !== 'INF' || ticketed.has(p.paxIndex)));
  if (remaining.some((p) => p.type !== 'ADT') && !remaining.some((p) => p.type === 'ADT')) {
    fail(S.CHILD_ALONE, 'a child or infant cannot travel alone on this booking: include them in the refund');
  }
  // 823: a void covers every passenger still on the booking
  if (reason === '4' && remaining.length > 0) fail(S.ALL_PASSENGERS, 'a void must apply to all passengers; partial void not allowed');

  // 803
  const dup = tickets.find((t) => ctx.liveRefunds.has(t.ticketNo));
  if (dup) fail(S.ALREADY_SUBMITTED, `refund already submitted for ticket ${dup.ticketNo} (refundCode ${ctx.liveRefunds.get(dup.ticketNo)!.refundCode}); query its status`);
  // A void of this order (docs/voids.md "Voids and refunds"): done (voided 2, completed 5) → 818; under way → 803.
  if (ctx.liveVoid) {
    const { voidCode, status } = ctx.liveVoid;
    if (status === 2 || status === 5) fail(S.ORDER_VOID_AFTER_REFUND, `this order was voided (voidCode ${voidCode}); nothing is left to refund`);
    fail(S.ALREADY_SUBMITTED, `a void of this order is under way (voidCode ${voidCode}); follow it with queryVoidOrders.do`);
  }
  // 816–818: order-level duplicates
  if (terms!.oneRefundPerBooking && ctx.liveRefunds.size > 0) {
    fail(S.ORDER_DUPLICATE, 'refund already submitted for this order (the airline takes one refund per booking); query status instead of resubmitting');
  }
  // A coupon refunded is enough: only a whole ticket is refunded (spec 1, rule 2), so a ticket with one coupon
  // refunded has nothing left to refund (a review: one refunded coupon of two was quoted and paid in full).
  if (tickets.some((t) => t.coupons.some((c) => c.status === 'REFUND'))) {
    fail(S.ORDER_REFUNDED_AT_AIRLINE, 'the airline already shows this ticket refunded (a coupon of it at least: only a whole ticket is refunded); query status instead of resubmitting');
  }
  if (reason === '4' && ctx.liveRefunds.size > 0) fail(S.ORDER_VOID_AFTER_REFUND, 'refund already submitted for this order; a void is no longer possible');
  // …and so after a refund the airline shows (of a ticket of this order not in the request)
  if (reason === '4' && ctx.tickets.some((t) => t.coupons.some((c) => c.status === 'REFUND'))) {
    fail(S.ORDER_VOID_AFTER_REFUND, 'the airline already shows a ticket of this order refunded; a void is no longer possible');
  }

  const now = env.now.getTime();
  // Every comparison of now with an instant below goes through the range, so that it says where they all hold.
  const clock = rangeOf(env.nowRange, now) ?? new NowRange(now);
  // The departure as the engine prices it (the airport's local time read in its zone: the earlier instant in an
  // autumn overlap hour), not the stored instant, which a world may have read the other way (found by a review:
  // priced after departure while 825 thought it before).
  const firstDep = Math.min(...tickets.map((t) => departureOf(firstDeparture(ctx, t))));
  // 825: refund.do only; the quote still answers (docs/architecture.md "Refund checks and their codes"). After
  // departure as the engine prices it: the minute floored, so the last minute before it (m = 0) is already the
  // after-departure window's (a review: 30 s before departure, priced by that rule, was submitted without 825).
  if (env.forSubmit && reason === '1' && clock.minutesUntil(firstDep) <= 0) {
    fail(S.OPERATOR_CONSOLE, 'a voluntary refund after departure must be submitted through the operator console');
  }
  // 822: void until the end of the issue day in the airline's zone
  if (reason === '4') {
    const zone = terms!.homeTimeZone;
    const deadline = voidDeadline(ctx, tickets, zone);
    if (!deadline || clock.after(deadline.toMillis())) fail(S.VOID_DEADLINE, `the void deadline has passed (same day as issue, ${zone}); request a refund instead`);
  }
  // 821
  if (reason !== '4' && terms!.refundDeadlineDaysAfterDeparture !== null && clock.after(firstDep + terms!.refundDeadlineDaysAfterDeparture * 86_400_000)) {
    fail(S.REFUND_DEADLINE, `refund deadline exceeded: the airline accepts refunds until ${terms!.refundDeadlineDaysAfterDeparture} days after departure`);
  }
  // 840 (firstDep − now < minutes, read as now > firstDep − minutes: the same for the whole minutes a client's setting holds)
  if (reason === '1' && env.minMinutesBeforeDeparture !== null && clock.after(firstDep - env.minMinutesBeforeDeparture * 60_000)) {
    fail(S.CLIENT_CRITERIA, `your cancellation criteria are not met: voluntary refunds need ${env.minMinutesBeforeDeparture} minutes before departure`);
  }
  // 806
  if (order.payment_method === 'ownAccount') fail(S.SELF_REFUND, "issued through the caller's own B2B account: submit the refund yourself");
  // 819
  if (order.source === 'claim' && order.payment_method === null) fail(S.CLAIM_PAYMENT_UNSUPPORTED, 'refund claim not supported for this payment method');
  // 826
  const unconfirmed = tickets.find((t) => !t.taxStatusConfirmed);
  if (unconfirmed) fail(S.TAX_UNCONFIRMED, `the airline cannot confirm the tax refund status of ticket ${unconfirmed.ticketNo}; try later or contact customer service`);

  return { reason, picks };
}

