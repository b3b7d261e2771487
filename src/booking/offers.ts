// getOffers.do (plan §3.3, §8.3; docs/decisions/0024): the airline prices flights named by the caller, one
// offer per fare family they sell, each with its fares per passenger type, its refund penalties (the airline's
// published refund rules, read as refundQuotation.do reads them), its services (the fare family's inclusions),
// its journeys, the service fee and what order.do needs.
import type { PricedItinerary } from '../airline/connector.js';
import { ApiError } from '../errors.js';
import { parseMoney, toAmount, type Money } from '../money/money.js';
import { quoteTicket, type PassengerType, type RefundRule } from '../refunds/engine/index.js';
import { airline, bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { bookingRequirementOf, CODE, countOf, given, journeyProblem, paxCountsOf, segmentRefsOf, termsOf } from './pricing.js';
import { PAYABLE_METHODS, type TermsOf } from './routing.js';
import { airlineSegmentsOf, itineraryOf, wireTime, type ChainItinerary, type ChainSegment, type PaxCounts } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { GetOffersRequest } from './wire-offers.js';

const PAX_TYPES: PassengerType[] = ['ADT', 'CHD', 'INF'];
const CABIN_NAME: Record<number, string> = { 1: 'Economy', 2: 'Business', 3: 'First', 4: 'PremiumEconomy' };
const PAYMENT_NAME: Record<number, string> = { 1: 'Deposit', 3: 'VCC_Passthrough', 4: 'BYOA', 5: 'MoR' };
/** A rule window's open bound on the wire: a year before / after departure (the original's samples use it). */
const OPEN_MINUTES = 525_600;

/** "XS111" of carrier XS → "111": the original's offer segments carry no carrier prefix. */
const withoutPrefix = (carrier: string, flightNumber: string) => (flightNumber.startsWith(carrier) && flightNumber.length > carrier.length ? flightNumber.slice(carrier.length) : flightNumber);

const segmentIdOf = (s: ChainSegment) => `${s.direction === 'out' ? 'os' : 'is'}-${s.index}`;
const journeyIdOf = (direction: 'out' | 'ret') => (direction === 'out' ? 'oj' : 'ij');

function journeyOf(it: ChainItinerary, direction: 'out' | 'ret') {
  return {
    journeyID: journeyIdOf(direction),
    segments: it.segments
      .filter((s) => s.direction === direction)
      .map((s) => ({
        segmentID: segmentIdOf(s),
        carrier: s.carrier,
        flightNumber: withoutPrefix(s.carrier, s.flightNumber),
        operatingCarrier: s.operatingCarrier || null,
        operatingFlightNumber: s.operatingFlightNumber ? withoutPrefix(s.operatingCarrier, s.operatingFlightNumber) : null,
        duration: s.durationMinutes,
        legs: [
          {
            departureAirport: s.depAirport,
            departureTime: wireTime(s.depLocal),
            departureTerminal: s.depTerminal,
            arrivalAirport: s.arrAirport,
            arrivalTime: wireTime(s.arrLocal),
            arrivalTerminal: s.arrTerminal,
            aircraftType: s.aircraftCode,
          },
        ],
        fareFamily: s.fareFamily,
        RBD: null,
        cabinClass: CABIN_NAME[s.cabinClass] ?? null,
        seatsLeft: it.seatsLeft,
      })),
  };
}

/** The passenger types the airline sells the itinerary to: no INF when it carries no infants ("a missing type = not sold"). */
const paxTypesOf = (it: ChainItinerary): PassengerType[] => (it.infantsAllowed === false ? PAX_TYPES.filter((t) => t !== 'INF') : PAX_TYPES);

function paxFaresOf(it: ChainItinerary) {
  const c = it.price.currency;
  const fare = { ADT: it.price.adult, CHD: it.price.child, INF: it.price.infant };
  return paxTypesOf(it).map((paxType) => ({ paxType, price: { baseAmount: toAmount(fare[paxType].fareMinor, c), taxes: toAmount(fare[paxType].taxMinor, c), currency: c } }));
}

/** A rule's "EUR 50.00"; null when absent or not money text (the engine's own reading then decides the amounts). */
function moneyOf(text: string | null | undefined): Money | null {
  if (!text || text.trim() === '') return null;
  try {
    return parseMoney(text);
  } catch {
    return null;
  }
}

/**
 * Moments (minutes before departure) inside a rule's window (endMinute, startMinute] at which the engine may pick
 * it: its bounds (an open one a year away) and every other rule's bound inside it — a wide rule that a narrower one
 * wins at one moment is still the rule elsewhere in its window (a review: "any time before departure" tested only a
 * minute before, where "the last day" won, was left out).
 */
function windowMoments(rule: RefundRule, rules: readonly RefundRule[]): number[] {
  const start = rule.startMinute ?? null;
  const end = rule.endMinute ?? null;
  const inside = (m: number) => (start === null || m <= start) && (end === null || m > end);
  const bounds = [start ?? (end ?? 0) + OPEN_MINUTES, end !== null ? end + 1 : (start ?? 0) - OPEN_MINUTES, 0];
  for (const r of rules) {
    if (r.startMinute != null) bounds.push(r.startMinute, r.startMinute + 1);
    if (r.endMinute != null) bounds.push(r.endMinute, r.endMinute + 1);
  }
  return [...new Set(bounds.filter(inside))];
}

/**
 * The airline's voluntary refund rules as penalties: per rule, the passenger types it is the rule for (the one
 * the refund engine picks at a moment inside its window, as refundQuotation.do would), grouped by what a refund
 * under it keeps back from one ticket (fare + tax - the refund). Rules apply to the whole ticket: every journey.
 */
function penaltiesOf(it: ChainItinerary, rules: readonly RefundRule[], rates: NonNullable<BookingDeps['rates']>) {
  const c = it.price.currency;
  const fare = { ADT: it.price.adult, CHD: it.price.child, INF: it.price.infant };
  const journeys = [...new Set(it.segments.map((s) => journeyIdOf(s.direction)))];
  const departure = Date.UTC(2030, 0, 1);
  const out = [];
  for (const rule of rules) {
    if (String(rule.ruleType).trim() !== '1') continue;
    const start = rule.startMinute ?? null;
    const end = rule.endMinute ?? null;
    if (start !== null && end !== null && end >= start) continue;
    const kept = new Map<number, PassengerType[]>();
    for (const paxType of paxTypesOf(it)) {
      const q = windowMoments(rule, rules)
        .map((m) => quoteTicket({
        ticket: {
          ticketNo: 'offer',
          carrier: it.carrier,
          passengerType: paxType,
          currency: c,
          fareMinor: fare[paxType].fareMinor,
          taxMinor: fare[paxType].taxMinor,
          firstDeparture: { local: '2030-01-01 00:00', timeZone: 'UTC' },
          ancillaries: [],
          postTicketingServices: [],
        },
        rules,
        reason: '1',
        now: new Date(departure - m * 60_000),
        rates,
      }))
        .find((x) => x.quoteType === 'AccurateQuote' && x.appliedRule?.rule === rule);
      if (!q) continue;
      const keptMinor = fare[paxType].fareMinor + fare[paxType].taxMinor - q.ticketRefundMinor;
      kept.set(keptMinor, [...(kept.get(keptMinor) ?? []), paxType]);
    }
    const fixed = moneyOf(rule.penaltyAmount);
    const fee = moneyOf(rule.airlineFee);
    const ruleCurrency = fixed?.currency ?? fee?.currency ?? c;
    for (const [keptMinor, paxTypes] of kept) {
      const total = fare[paxTypes[0]!];
      const whole = total.fareMinor + total.taxMinor;
      out.push({
        journeyRefIDs: journeys,
        amount: toAmount(keptMinor, c),
        currency: c,
        rule: {
          type: 'Refund',
          paxTypes,
          levelType: keptMinor === 0 ? 'Full' : keptMinor >= whole ? 'None' : 'Partial',
          effectiveMinutes: start ?? OPEN_MINUTES,
          expirationMinutes: end ?? -OPEN_MINUTES,
          fixedAmount: fixed && fixed.currency === ruleCurrency ? toAmount(fixed.minor, ruleCurrency) : 0,
          airlineFee: fee && fee.currency === ruleCurrency ? toAmount(fee.minor, ruleCurrency) : 0,
          currency: ruleCurrency,
          percent: rule.penaltyPercent ?? 0,
          percentBase: rule.penaltyPercentBase ?? 'fare',
        },
      });
    }
  }
  return out;
}

/**
 * The services of an offer: what its fare family includes free (bags, seat, meal, for adults and children, on
 * the segments sold in that family), and what the airline sells on top (seats, bags by category).
 */
function servicesOf(it: ChainItinerary, termsOf: TermsOf, bagsSold: Array<{ category: string; segmentIndex: number; piece: number; weight: number }>) {
  const services: Array<Record<string, unknown>> = [];
  const add = (prefix: string, service: Record<string, unknown>) => services.push({ serviceID: `${prefix}-${services.filter((x) => String(x.serviceID).startsWith(`${prefix}-`)).length + 1}`, ...service });
  const seated: PassengerType[] = ['ADT', 'CHD'];
  const families = [...new Set(it.segments.map((s) => s.fareFamily).filter((f): f is string => f !== null))];
  const free = { seat: new Set<string>(), bag: new Set<string>() };
  for (const family of families) {
    const terms = termsOf(family);
    if (!terms) continue;
    const segmentRefIDs = it.segments.filter((s) => s.fareFamily === family).map(segmentIdOf);
    for (const bag of terms.baggage) {
      add('fbs', { segmentRefIDs, type: 'Baggage', level: 'Free', paxTypes: seated, metadata: { type: bag.category, maximumWeight: bag.weight, maximumPiece: bag.piece, maximumDimension: bag.size } });
      for (const id of segmentRefIDs) free.bag.add(`${id}/${bag.category}`);
    }
    if (terms.seat) {
      add('fss', { segmentRefIDs, type: 'Seat', level: 'Free', paxTypes: seated });
      for (const id of segmentRefIDs) free.seat.add(id);
    }
    if (terms.meal) add('fms', { segmentRefIDs, type: 'Meal', level: 'Free', paxTypes: seated });
  }
  const chargeableSeats = it.ancillarySupported ? it.segments.map(segmentIdOf).filter((id) => !free.seat.has(id)) : [];
  if (chargeableSeats.length > 0) add('css', { segmentRefIDs: chargeableSeats, type: 'Seat', level: 'Chargeable', paxTypes: seated });
  for (const category of [...new Set(bagsSold.map((b) => b.category))]) {
    const sold = bagsSold.filter((b) => b.category === category);
    const segmentRefIDs = it.segments.filter((s) => sold.some((b) => b.segmentIndex === s.index) && !free.bag.has(`${segmentIdOf(s)}/${category}`)).map(segmentIdOf);
    if (segmentRefIDs.length === 0) continue;
    const first = sold[0]!;
    add('cbs', { segmentRefIDs, type: 'Baggage', level: 'Chargeable', paxTypes: seated, metadata: { type: category, maximumWeight: first.weight, maximumPiece: first.piece, maximumDimension: null } });
  }
  return services;
}

/** The original's rich bookingRequirement of getOffers.do (plan §2.7): each field's type and whether order.do needs it. */
function richRequirementOf(pax: PaxCounts) {
  const { passenger } = bookingRequirementOf(pax);
  const typed = Object.fromEntries(Object.entries(passenger).map(([field, { required }]) => [field, { type: field === 'passengerType' ? 'int' : 'string', required }]));
  return { passenger: typed as Record<keyof typeof passenger, { type: string; required: boolean }> };
}

/** The request's passenger counts, flights and cabin, checked: 100 missing, 101 malformed, 102 illegal values. */
function readRequest(req: GetOffersRequest) {
  const pax = paxCountsOf({ adultNum: req.adults, childNum: req.children, infantNum: req.infants }, S.OFFERS_ILLEGAL, null, 'adults');
  if (req.outboundSegments.length === 0) throw new ApiError(S.INVALID, 'invalid request: outboundSegments must name at least one flight');
  const flights = [...segmentRefsOf(req.outboundSegments, 'out', S.OFFERS_FORMAT), ...segmentRefsOf(req.inboundSegments ?? [], 'ret', S.OFFERS_FORMAT)];
  const carrier = flights[0]!.flight.carrier;
  if (flights.some((f) => f.flight.carrier !== carrier)) throw new ApiError(S.OFFERS_ILLEGAL, 'every segment must be of one carrier');
  const cabinClass = countOf(req.cabinClass) ?? 1;
  if (!Number.isInteger(cabinClass) || cabinClass < 1 || cabinClass > 4) throw new ApiError(S.OFFERS_FORMAT, 'cabinClass must be 1, 2, 3 or 4');
  const currency = given(req.currency)?.toUpperCase() ?? null;
  if (currency !== null && !CODE.test(currency)) throw new ApiError(S.OFFERS_FORMAT, 'currency must be a 3-letter ISO 4217 code');
  const budget = req.maxResponseTime ?? null;
  if (budget !== null && budget <= 0) throw new ApiError(S.OFFERS_ILLEGAL, 'maxResponseTime must be a positive number of milliseconds');
  return { pax, flights, carrier, cabinClass, currency, budget };
}

export async function getOffers(deps: BookingDeps, clientId: string, req: GetOffersRequest) {
  const { pax, flights, carrier, cabinClass, currency, budget } = readRequest(req);
  const b = bookingOf(deps.airlines, carrier, S.OFFERS_AIRLINE);
  const statuses = { timeout: S.OFFERS_TIMEOUT, other: S.OFFERS_AIRLINE };
  // One budget for the request's airline calls, not one each (a review: three fare families at 1 s each answered
  // after 3 s of a 1.5 s maxResponseTime, and a slow airline could take the families' count times 15 s)
  const opts = callOpts(budget);
  const lowest = await airline(() => b.price(carrier, flights, cabinClass, opts), statuses);
  if (!lowest) throw new ApiError(S.OFFERS_AIRLINE, 'the airline sells no such flight (carrier, flight number, airports and departure date)');
  const problem = journeyProblem(lowest.segments);
  if (problem) throw new ApiError(S.OFFERS_ILLEGAL, `these flights make no itinerary: ${problem}`);
  if (currency !== null && lowest.price.currency !== currency) {
    throw new ApiError(S.OFFERS_ILLEGAL, `currency ${currency} is not supported for these flights (the airline sells in ${lowest.price.currency})`);
  }
  if (pax.infants > 0 && lowest.infantsAllowed === false) throw new ApiError(S.OFFERS_ILLEGAL, `airline ${carrier} carries no infants`);
  if (lowest.seatsLeft < pax.adults + pax.children) throw new ApiError(S.OFFERS_AIRLINE, `the airline has ${lowest.seatsLeft} seat(s) left for ${pax.adults + pax.children} passenger(s)`);
  // One offer per fare family the flights sell (the lowest first), as search.do includeMultipleFareFamily.
  const lowestIn = (family: string) => lowest.segments.every((s) => s.fareFamily === family);
  const priced: PricedItinerary[] = [lowest];
  for (const family of (lowest.fareFamilies ?? []).filter((f) => !lowestIn(f))) {
    // The families the budget left no time for are not offered: the lowest and those priced are answered.
    if (opts.signal.aborted) break;
    let p: PricedItinerary | null;
    try {
      p = await airline(() => b.price(carrier, flights.map((f) => Object.assign({}, f, { fareFamily: family })), cabinClass, opts), statuses);
    } catch (err) {
      if (err instanceof ApiError && err.status === S.OFFERS_TIMEOUT) break;
      throw err;
    }
    if (p && p.segments.every((s) => s.fareFamily === family)) priced.push(p);
  }

  const now = deps.clock.now();
  const rules = deps.airlines.forCarrier(carrier)?.refundTerms(carrier)?.rules ?? [];
  const terms = termsOf(deps, carrier) ?? (() => null);
  const data = [];
  for (const p of priced) {
    const it = itineraryOf(p, cabinClass);
    const offer = await deps.sessions.create({ kind: 'offer', clientId, itinerary: it, pax, now });
    // offerToken: a routingIdentifier of the same itinerary and family, for a live re-pricing by verify.do (6 h).
    const token = await deps.sessions.create({ kind: 'search', clientId, itinerary: it, pax, now });
    const bagsSold = b.baggage(carrier, airlineSegmentsOf(it), it.price.currency).filter((x) => x.canPurchaseWithTicket);
    const c = it.price.currency;
    data.push({
      offer: {
        offerID: offer.id,
        offerToken: token.id,
        paxFares: paxFaresOf(it),
        penalties: penaltiesOf(it, rules, deps.rates ?? {}),
        services: servicesOf(it, terms, bagsSold),
        outboundJourney: journeyOf(it, 'out'),
        inboundJourney: it.segments.some((s) => s.direction === 'ret') ? journeyOf(it, 'ret') : null,
        terms: [],
      },
      // one airline order per booking: a fee per ticket is a fee per passenger
      serviceFee: { amountPerUnit: toAmount(it.price.feeMinor, c), currency: c, unit: it.price.feeMode === 'PER_TICKET' ? 'PER_PAX' : it.price.feeMode },
      bookingRequirement: richRequirementOf(pax),
      supportedPaymentMethods: PAYABLE_METHODS.map((m) => PAYMENT_NAME[m]!),
    });
  }
  return { status: 0, msg: 'success', data };
}
