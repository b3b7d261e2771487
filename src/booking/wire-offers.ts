// Wire schemas of getOffers.do and getLuggage.do on the original interface's shapes
// (docs/plans/original-chain.md §3.3, §3.4, §2.2, §2.5; docs/decisions/0024).
import Type, { type Static } from 'typebox';
import { Nullable, OrNull } from '../wire.js';
import { RoutingSegment } from './wire.js';

/** An optional string the caller may also send as "" (= absent, decision 0021). */
const OptStr = (opts: object = {}) => Nullable(Type.String({ maxLength: 200, ...opts }));
/** Integer or its decimal string (decision 0021: the original's samples mix both). */
const IntOrText = (description: string) => Type.Union([Type.Integer(), Type.String({ maxLength: 12 })], { description });
/** An offer id under any of the spellings the original's documents use (plan §4 C2). */
const OfferIdSpellings = {
  offerId: OptStr({ maxLength: 120, description: 'an offerID of getOffers.do, or a verify.do sessionId' }),
  offerID: OptStr({ maxLength: 120, description: 'the same (as getOffers.do spells it in its answer)' }),
  OfferId: OptStr({ maxLength: 120, description: 'the same (as a guide spells it)' }),
};
export type OfferIdSpellings = { offerId?: string | null; offerID?: string | null; OfferId?: string | null };

// ---- getOffers.do (plan §3.3, §8.3) ----

const UniqueSellingSegment = Type.Object({
  carrier: Type.String({ maxLength: 3, description: '2-letter marketing carrier' }),
  departureAirport: Type.String({ maxLength: 3 }),
  arrivalAirport: Type.String({ maxLength: 3 }),
  flightNumber: Type.String({ maxLength: 8, description: 'without the carrier prefix, zero-padded or not ("001", "1"); "XS1" is accepted too' }),
  departureDate: Type.String({ maxLength: 10, description: 'yyyyMMdd, airport-local (no time: any departure that day)' }),
});

export const GetOffersRequest = Type.Object({
  adults: IntOrText('adults (at least 1; adults + children at most 9)'),
  children: Nullable(IntOrText('children')),
  infants: Nullable(IntOrText('infants (at most one per adult)')),
  outboundSegments: Type.Array(UniqueSellingSegment, { maxItems: 8, description: 'outbound flights in flight order' }),
  inboundSegments: Nullable(Type.Array(UniqueSellingSegment, { maxItems: 8, description: 'return flights; null or [] = one-way' })),
  currency: OptStr({ maxLength: 10, description: "quotation currency: the airline's sale currency (102 for another)" }),
  residentCode: OptStr({ description: 'accepted; the sandbox airline sells no resident fares' }),
  cabinClass: Nullable(IntOrText('postbook extension: 1 economy (default), 2 business, 3 first, 4 premium economy')),
  maxResponseTime: Nullable(Type.Integer({ description: 'postbook extension: time budget in ms of the airline calls (default and longest 15000)' })),
  requestSource: OptStr(),
});
export type GetOffersRequest = Static<typeof GetOffersRequest>;

const PaxType = Type.Union([Type.Literal('ADT'), Type.Literal('CHD'), Type.Literal('INF')]);

const Leg = Type.Object({
  departureAirport: Type.String(),
  departureTime: OrNull(Type.String({ description: 'yyyyMMddHHmm, airport-local' })),
  departureTerminal: OrNull(Type.String()),
  arrivalAirport: Type.String(),
  arrivalTime: OrNull(Type.String({ description: 'yyyyMMddHHmm, airport-local' })),
  arrivalTerminal: OrNull(Type.String()),
  aircraftType: OrNull(Type.String()),
});

const OfferSegment = Type.Object({
  segmentID: Type.String({ description: 'unique within the offer; services[].segmentRefIDs name it' }),
  carrier: Type.String(),
  flightNumber: Type.String({ description: 'without the carrier prefix, as the airline writes it' }),
  operatingCarrier: OrNull(Type.String()),
  operatingFlightNumber: OrNull(Type.String({ description: 'without the carrier prefix' })),
  duration: OrNull(Type.Integer({ description: 'minutes' })),
  legs: Type.Array(Leg, { description: 'one leg: no stop' }),
  fareFamily: OrNull(Type.String()),
  RBD: OrNull(Type.String({ description: 'booking class; null: the sandbox airline has none' })),
  cabinClass: OrNull(Type.String({ description: 'Economy, Business, First, PremiumEconomy' })),
  seatsLeft: Type.Integer(),
});

const Journey = Type.Object({
  journeyID: Type.String({ description: 'unique within the offer; penalties[].journeyRefIDs name it' }),
  segments: Type.Array(OfferSegment),
});

const Penalty = Type.Object({
  journeyRefIDs: Type.Array(Type.String()),
  amount: Type.Number({ description: 'what a refund under this rule keeps back from one ticket of these passenger types (fare + tax - refund)' }),
  currency: Type.String({ description: 'of amount: the fare currency' }),
  rule: Type.Object({
    type: Type.String({ description: 'Refund (the sandbox airline publishes no change rules)' }),
    paxTypes: Type.Array(PaxType),
    levelType: Type.String({ description: 'Full, Partial, None' }),
    effectiveMinutes: Type.Integer({ description: 'window start, minutes before departure (negative: after); open = 525600' }),
    expirationMinutes: Type.Integer({ description: 'window end, same convention; open = -525600' }),
    fixedAmount: Type.Number(),
    airlineFee: Type.Number(),
    currency: Type.String({ description: 'of fixedAmount and airlineFee' }),
    percent: Type.Number(),
    percentBase: Type.String({ description: 'fare or fare+tax' }),
  }),
});

const Service = Type.Object({
  serviceID: Type.String({ description: 'unique within the offer' }),
  segmentRefIDs: Type.Array(Type.String()),
  type: Type.String({ description: 'Baggage, Seat, Meal' }),
  level: Type.String({ description: 'Free, Partial, Chargeable' }),
  paxTypes: Type.Array(PaxType),
  metadata: Type.Optional(
    OrNull(
      Type.Object({
        type: Type.String({ description: 'bag category' }),
        maximumWeight: Type.Integer({ description: 'kg; 0 none free, -1 no limit' }),
        maximumPiece: Type.Integer({ description: '0 no limit' }),
        maximumDimension: OrNull(Type.String()),
      }),
    ),
  ),
});

const Constraint = Type.Object({ type: Type.String({ description: 'string or int' }), required: Type.Boolean(), description: Type.Optional(Type.String()), maxLength: Type.Optional(Type.String()) });

export const GetOffersResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  data: OrNull(
    Type.Array(
      Type.Object({
        offer: Type.Object({
          offerID: Type.String({ description: 'for getLuggage.do, seatAvailability.do and order.do (offerId); valid 2 h' }),
          offerToken: OrNull(Type.String({ description: 'a routingIdentifier of this itinerary and fare family: verify.do re-prices it live; valid 6 h' })),
          paxFares: Type.Array(Type.Object({ paxType: PaxType, price: Type.Object({ baseAmount: Type.Number(), taxes: Type.Number(), currency: Type.String() }) })),
          penalties: Type.Array(Penalty),
          services: OrNull(Type.Array(Service)),
          outboundJourney: Journey,
          inboundJourney: OrNull(Journey),
          terms: OrNull(Type.Array(Type.Object({ carrier: Type.String(), URL: Type.String() }))),
        }),
        serviceFee: Type.Object({ amountPerUnit: Type.Number(), currency: Type.String(), unit: Type.String({ description: 'PER_SEGMENT, PER_PAX, PER_BOOKING' }) }),
        bookingRequirement: Type.Object({
          passenger: Type.Object({
            name: Constraint,
            passengerType: Constraint,
            gender: Constraint,
            birthday: Constraint,
            cardType: Constraint,
            cardNum: Constraint,
            cardIssuePlace: Constraint,
            cardExpired: Constraint,
            nationality: Constraint,
          }),
        }),
        supportedPaymentMethods: OrNull(Type.Array(Type.String({ description: 'the methods pay.do takes: Deposit, VCC_Passthrough (BYOA and MoR are not offered)' }))),
      }),
    ),
  ),
});

// ---- getLuggage.do (plan §3.4, §8.4) ----

export const GetLuggageRequest = Type.Object({
  ...OfferIdSpellings,
  maxResponseTime: Nullable(Type.Integer({ description: 'time budget in ms of the airline call (default 5000, longest 15000)' })),
});
export type GetLuggageRequest = Static<typeof GetLuggageRequest>;

export const AncillaryProduct = Type.Object({
  productCode: Type.String({ description: 'for order.do passengers[].ancillaries[].productCode' }),
  ancillaryCode: Type.String({ description: 'display only' }),
  segmentIndex: Type.Integer(),
  categoryCode: Type.String({ description: 'StandardCheckInBaggage, CabinBaggage, CabinBaggageUnderSeat, CabinBaggageOverheadLocker' }),
  auxBaggageElement: OrNull(
    Type.Object({
      isAllWeight: Type.Boolean({ description: 'true: weight is the total of all pieces; false: per piece' }),
      piece: Type.Integer({ description: '0 no limit' }),
      weight: Type.Integer({ description: 'kg; 0 no limit' }),
      size: OrNull(Type.String()),
    }),
  ),
  canPurchaseWithTicket: Type.Integer({ description: '1 yes, 0 no' }),
  canPurchasePostTicket: Type.Integer({ description: '1 yes, 0 no' }),
  price: Type.Number(),
  currency: Type.String(),
  vendorPrice: OrNull(Type.Number({ description: "the airline's price; null when the fare allows no card pass-through or own account" })),
  vendorCurrency: OrNull(Type.String()),
  clientTechnicalServiceFee: OrNull(Type.Number()),
  maxQty: Type.Integer({ description: 'per person per segment' }),
  minQty: Type.Integer({ description: 'per person per segment' }),
});
export type AncillaryProduct = Static<typeof AncillaryProduct>;

export const GetLuggageResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  data: Type.Object({
    offerId: Type.String({ description: 'the id asked for' }),
    outboundSegments: Type.Array(RoutingSegment),
    inboundSegments: OrNull(Type.Array(RoutingSegment)),
    ancillaryProductElements: Type.Array(AncillaryProduct),
  }),
});
