// The original interface's Routing (search.do routings[], verify.do routing), built from a priced itinerary;
// its segments by the one segment mapper, sessions.ts routingSegmentOf. Values the sandbox airline cannot
// know are neutral and written down in docs/decisions/0021 "Routing values".
import { DateTime } from 'luxon';
import type { FareFamilyTerms } from '../airline/connector.js';
import { toAmount } from '../money/money.js';
import { feeMinorOf, routingSegmentOf, type ChainItinerary } from './sessions.js';
import type { FullRouting } from './wire.js';

/** The one segment mapper lives in sessions.ts (below this module); re-exported for the routing's readers. */
export { routingSegmentOf };

/**
 * The payment methods pay.do takes: 1 deposit, 3 card pass-through. The one list every answer advertises (the
 * routings' supportPaymentMethods, getOffers.do's supportedPaymentMethods, queryOrderDetails.do's and order.do's
 * payment options) and pay.do checks, so they cannot differ: 4 (own airline account) and 5 (merchant of record)
 * answer 403 and are not advertised (decision 0021, amended 2026-12-02).
 */
export const PAYABLE_METHODS = [1, 3] as const;

/** UTC `yyyy-MM-dd'T'HH:mm:ss'Z'` (the original's cache stamps). */
export function cacheStamp(d: Date): string {
  return DateTime.fromJSDate(d, { zone: 'UTC' }).toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
}

/** What a fare family includes, as the airline publishes it; null when it publishes nothing. */
export type TermsOf = (fareFamily: string) => FareFamilyTerms | null;

/**
 * The routing's `rule` (plan §2.4): the free bags of each segment's fare family for adults (0) and children (1)
 * and, per direction, whether its families include the seat (1 all segments, 2 some, 0 none) and a meal.
 * Refund and change rules are not repeated here (refundQuotation.do and getOffers.do's penalties answer them).
 */
export function ruleOf(it: ChainItinerary, termsOf: TermsOf | null): FullRouting['rule'] {
  const termsOfSegment = (fareFamily: string | null) => (fareFamily !== null && termsOf ? termsOf(fareFamily) : null);
  const baggageElements = it.segments.flatMap((s) =>
    (termsOfSegment(s.fareFamily)?.baggage ?? []).flatMap((b) =>
      [0, 1].map((passengerType) => ({ segmentNo: s.index, baggageType: b.category, passengerType, baggagePiece: b.piece, baggageWeight: b.weight, baggageSize: b.size ?? '', isAllWeight: false })),
    ),
  );
  const published = it.segments.some((s) => termsOfSegment(s.fareFamily) !== null);
  const serviceElements = published
    ? (['out', 'ret'] as const)
        .map((d) => it.segments.filter((s) => s.direction === d).map((s) => termsOfSegment(s.fareFamily)))
        .filter((terms) => terms.length > 0)
        .map((terms) => {
          const seats = terms.filter((t) => t?.seat).length;
          return { hasFreeSeat: seats === terms.length ? 1 : seats > 0 ? 2 : 0, hasFreeMeal: terms.every((t) => t?.meal) ? 1 : 0 };
        })
    : null;
  return { hasBaggage: baggageElements.length > 0 ? 1 : 0, baggageElements, refundRules: [], changesRules: [], serviceElements };
}

function details(fare: number, tax: number) {
  return [
    { code: 'farePrice', type: 'base', amount: fare, description: null },
    { code: 'tax', type: 'tax', amount: tax, description: null },
  ];
}

/**
 * The deprecated `transactionFeePerPax`: what one passenger pays of the fee (order.do charges feeMinorOf) — the fee
 * per passenger or per ticket (one ticket a passenger), times the segments per segment; 0 for a fee per booking,
 * which no passenger pays alone (amended 2026-12-02, a review: 0 for every mode but PER_PAX under-quoted callers
 * that add it to adultPrice + adultTax, as the original's notes do).
 */
function feePerPax(it: ChainItinerary): number {
  return it.price.feeMode === 'PER_BOOKING' ? 0 : toAmount(feeMinorOf(it, { adults: 1, children: 0, infants: 0 }), it.price.currency);
}

export function fullRoutingOf(
  it: ChainItinerary,
  routingIdentifier: string,
  opts: { refreshTime: Date | null; expireTime: Date | null; bags?: FullRouting['ancillaryProductElements']; terms?: TermsOf | null },
): FullRouting {
  const c = it.price.currency;
  const amount = (minor: number) => toAmount(minor, c);
  const [adultPrice, adultTax] = [amount(it.price.adult.fareMinor), amount(it.price.adult.taxMinor)];
  const [childPrice, childTax] = [amount(it.price.child.fareMinor), amount(it.price.child.taxMinor)];
  // An airline that carries no infants: infantAllowed false and no infant price (the original's meaning of false)
  const infants = it.infantsAllowed !== false;
  const [infantPrice, infantTax] = infants ? [amount(it.price.infant.fareMinor), amount(it.price.infant.taxMinor)] : [0, 0];
  const fee = amount(it.price.feeMinor);
  const segments = (direction: 'out' | 'ret') => it.segments.filter((s) => s.direction === direction).map((s) => routingSegmentOf(s, it.seatsLeft));
  return {
    routingIdentifier,
    supportCreditTransPayment: '1',
    supportPaymentMethods: [...PAYABLE_METHODS],
    currency: c,
    adultPrice,
    adultTax,
    adultDetails: details(adultPrice, adultTax),
    childPrice,
    childTax,
    childDetails: details(childPrice, childTax),
    infantPrice,
    infantTax,
    infantDetails: details(infantPrice, infantTax),
    infantAllowed: infants,
    childMandatorySeatingFee: null,
    transactionFeePerPax: feePerPax(it),
    transactionFee: fee,
    transactionFeeMode: it.price.feeMode,
    fromSegments: segments('out'),
    retSegments: segments('ret'),
    rule: ruleOf(it, opts.terms ?? null),
    ancillaryProductElements: opts.bags ?? null,
    vendorFare: null,
    links: [],
    separateBookings: false,
    refreshTime: opts.refreshTime ? cacheStamp(opts.refreshTime) : null,
    expireTime: opts.expireTime ? cacheStamp(opts.expireTime) : null,
    ancillarySupported: it.ancillarySupported ? ['seat', 'luggage'] : ['luggage'],
    cardChargeList: null,
  };
}
