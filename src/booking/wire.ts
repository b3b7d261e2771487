// Wire schemas of the booking chain: search.do and verify.do (docs/architecture.md "The booking chain";
// docs/decisions/0021). getOffers.do and getLuggage.do: wire-offers.ts; order.do, pay.do and
// queryOrderDetails.do: wire-order.ts.
import Type, { type Static } from 'typebox';
import { Nullable, OrNull } from '../wire.js';

const CabinClass = Type.Integer({ minimum: 1, maximum: 4, description: '1 economy, 2 business, 3 first, 4 premium economy' });

// ---- shared shapes ----

export const WireSegment = Type.Object({
  segmentIndex: Type.Integer(),
  carrier: Type.String(),
  flightNumber: Type.String(),
  depAirport: Type.String(),
  arrAirport: Type.String(),
  depTime: Type.String({ description: 'yyyyMMddHHmm, airport-local' }),
  arrTime: Type.String({ description: 'yyyyMMddHHmm, airport-local' }),
  depTerminal: OrNull(Type.String()),
  arrTerminal: OrNull(Type.String()),
  cabinClass: Type.Integer(),
  fareFamily: OrNull(Type.String()),
  aircraftCode: OrNull(Type.String()),
  codeShare: Type.Boolean(),
  operatingCarrier: Type.String(),
  operatingFlightNumber: Type.String(),
  duration: Type.Integer({ description: 'minutes' }),
});
export type WireSegment = Static<typeof WireSegment>;

export const Routing = Type.Object({
  currency: Type.String(),
  adultPrice: Type.Number(),
  adultTax: Type.Number(),
  childPrice: Type.Number(),
  childTax: Type.Number(),
  infantPrice: Type.Number(),
  infantTax: Type.Number(),
  transactionFee: Type.Number(),
  transactionFeeMode: Type.Union([Type.Literal('PER_SEGMENT'), Type.Literal('PER_TICKET'), Type.Literal('PER_PAX'), Type.Literal('PER_BOOKING')]),
  fromSegments: Type.Array(WireSegment),
  retSegments: Type.Array(WireSegment),
  ancillarySupported: Type.Boolean(),
});
export type Routing = Static<typeof Routing>;

// ---- the original interface's routing (search.do, verify.do; docs/decisions/0021) ----

/** An optional string the caller may also send as "" (= absent, decision 0021). */
const OptStr = (opts: object = {}) => Nullable(Type.String({ maxLength: 200, ...opts }));
/** Integer or its decimal string (decision 0021: the original's samples mix both). */
const IntOrText = (description: string) => Type.Union([Type.Integer(), Type.String({ maxLength: 12 })], { description });

const PriceItem = Type.Object({ code: Type.String(), type: Type.String({ description: 'base, tax, fee' }), amount: Type.Number(), description: OrNull(Type.String()) });

export const RoutingSegment = Type.Object({
  segmentIndex: Type.Integer({ description: '1-based, continuous over outbound then return' }),
  carrier: Type.String(),
  flightNumber: Type.String({ description: 'with carrier prefix' }),
  depAirport: Type.String(),
  arrAirport: Type.String(),
  depTime: Type.String({ description: 'yyyyMMddHHmm, airport-local' }),
  arrTime: Type.String({ description: 'yyyyMMddHHmm, airport-local' }),
  depTerminal: OrNull(Type.String()),
  arrTerminal: OrNull(Type.String()),
  duration: Type.Integer({ description: 'minutes' }),
  cabin: OrNull(Type.String({ description: 'booking class (RBD); null: the sandbox airline has none' })),
  cabinClass: Type.Integer({ description: '1 economy, 2 business, 3 first, 4 premium economy' }),
  fareFamily: Type.String({ description: '"" when the flight sells no fare family' }),
  seatCount: Type.Integer({ description: 'seats still sold at this fare' }),
  codeShare: Type.Boolean(),
  operatingCarrier: OrNull(Type.String()),
  operatingFlightnumber: OrNull(Type.String({ description: 'spelled with a lower-case n, as the original spells it here' })),
  aircraftCode: OrNull(Type.String()),
  stopCities: OrNull(Type.String({ description: 'stops within this segment; null = non-stop' })),
});
export type RoutingSegment = Static<typeof RoutingSegment>;

const DirectionRule = Type.Object({}, { additionalProperties: true });

export const FullRouting = Type.Object({
  routingIdentifier: Type.String({ description: 'pass to verify.do; valid 6 h' }),
  supportCreditTransPayment: Type.String({ description: 'deprecated: "1" card pass-through allowed' }),
  supportPaymentMethods: Type.Array(Type.Integer(), { description: 'the methods pay.do takes: 1 deposit, 3 card pass-through (4 own airline account and 5 merchant of record are not offered)' }),
  currency: Type.String({ description: 'settlement currency' }),
  adultPrice: Type.Number(),
  adultTax: Type.Number(),
  adultDetails: OrNull(Type.Array(PriceItem)),
  childPrice: Type.Number(),
  childTax: Type.Number(),
  childDetails: OrNull(Type.Array(PriceItem)),
  infantPrice: Type.Number(),
  infantTax: Type.Number(),
  infantDetails: OrNull(Type.Array(PriceItem)),
  infantAllowed: OrNull(Type.Boolean()),
  childMandatorySeatingFee: OrNull(Type.Number()),
  transactionFeePerPax: Type.Number({ description: 'deprecated: what one passenger pays of the fee — the fee for PER_PAX and PER_TICKET, the fee × segments for PER_SEGMENT, 0 for PER_BOOKING' }),
  transactionFee: Type.Number(),
  transactionFeeMode: Type.Union([Type.Literal('PER_SEGMENT'), Type.Literal('PER_TICKET'), Type.Literal('PER_PAX'), Type.Literal('PER_BOOKING')]),
  fromSegments: Type.Array(RoutingSegment),
  retSegments: Type.Array(RoutingSegment, { description: '[] for one-way' }),
  rule: Type.Object({
    hasBaggage: Type.Integer(),
    baggageElements: Type.Array(DirectionRule),
    refundRules: Type.Array(DirectionRule),
    changesRules: Type.Array(DirectionRule),
    serviceElements: OrNull(Type.Array(DirectionRule)),
  }),
  ancillaryProductElements: OrNull(Type.Array(Type.Object({}, { additionalProperties: true }))),
  vendorFare: OrNull(Type.Object({}, { additionalProperties: true })),
  links: Type.Array(Type.Object({ carrier: Type.String(), kind: Type.String(), link: Type.String(), description: Type.String() })),
  separateBookings: Type.Boolean(),
  refreshTime: OrNull(Type.String({ description: "UTC yyyy-MM-dd'T'HH:mm:ss'Z'" })),
  expireTime: OrNull(Type.String({ description: "UTC yyyy-MM-dd'T'HH:mm:ss'Z'" })),
  ancillarySupported: Type.Array(Type.String({ description: 'seat, luggage' })),
  cardChargeList: OrNull(Type.Array(Type.Object({}, { additionalProperties: true }))),
});
export type FullRouting = Static<typeof FullRouting>;

// ---- search.do ----

export const SearchRequest = Type.Object({
  tripType: Type.Union([Type.String({ maxLength: 2 }), Type.Integer()], { description: '"1" one-way, "2" return (an integer is accepted)' }),
  adultNum: IntOrText('adults (at least 1; adults + children at most 9)'),
  childNum: Nullable(IntOrText('children')),
  infantNum: Nullable(IntOrText('infants (at most one per adult)')),
  fromCity: OptStr({ description: 'IATA city or airport code of the origin (docs/decisions/0021 "Cities")' }),
  toCity: OptStr({ description: 'IATA city or airport code of the destination' }),
  fromAirport: OptStr({ description: 'pins one airport of fromCity' }),
  toAirport: OptStr({ description: 'pins one airport of toCity' }),
  fromDate: Type.String({ maxLength: 10, description: 'yyyyMMdd, airport-local' }),
  retDate: OptStr({ maxLength: 10, description: 'yyyyMMdd; required when tripType is "2"' }),
  airlines: Nullable(Type.Array(Type.String({ maxLength: 3 }), { maxItems: 20, description: 'only these marketing carriers' })),
  fromFlightNumbers: Nullable(Type.Array(Type.String({ maxLength: 60 }), { maxItems: 20, description: 'only these outbound itineraries ("XS771" or "XS771,XS781")' })),
  retFlightNumbers: Nullable(Type.Array(Type.String({ maxLength: 60 }), { maxItems: 20, description: 'only these return itineraries' })),
  currency: OptStr({ maxLength: 10, description: 'settlement currency; routings in another currency are not answered (124 when none is left)' }),
  displayCurrency: OptStr({ maxLength: 3, description: 'accepted; the routing carries no display amounts' }),
  includeMultipleFareFamily: Nullable(Type.Boolean()),
  requestSource: OptStr(),
  residentCode: OptStr(),
  cabinClass: Nullable(CabinClass),
});
export type SearchRequest = Static<typeof SearchRequest>;

export const SearchResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  routings: OrNull(Type.Array(FullRouting)),
});

// ---- verify.do ----

const VerifySegment = Type.Object({
  carrier: Type.String({ maxLength: 3 }),
  flightNumber: Type.String({ maxLength: 8, description: 'without (or with) the carrier prefix: "771", "0771", "XS771"' }),
  departureAirport: Type.String({ maxLength: 3 }),
  arrivalAirport: Type.String({ maxLength: 3 }),
  departureDate: Type.String({ maxLength: 10, description: 'yyyyMMdd, airport-local' }),
});

export const VerifyRequest = Type.Object({
  // No length in the schema: an id longer than ours (at most 120 characters) is an unknown routing, 200, as the original
  // answers one that is not its search result — not a refused request field (a review: it answered 100).
  routingIdentifier: Nullable(Type.String({ description: 'from search.do (or a routing of an earlier verify.do); one longer than 120 characters is none of ours: 200' })),
  outboundSegments: Nullable(Type.Array(VerifySegment, { maxItems: 8, description: 'verify by flights instead of a routingIdentifier' })),
  inboundSegments: Nullable(Type.Array(VerifySegment, { maxItems: 8 })),
  maxResponseTime: Nullable(Type.Integer({ description: 'time budget in ms of the airline calls (default 5000, longest 15000)' })),
  requestSource: OptStr(),
  adultNum: Nullable(IntOrText('segment path only (postbook extension): adults, default 1')),
  childNum: Nullable(IntOrText('segment path only: children, default 0')),
  infantNum: Nullable(IntOrText('segment path only: infants, default 0')),
});
export type VerifyRequest = Static<typeof VerifyRequest>;

const Required = Type.Object({ required: Type.Boolean() });
const NUM = Type.Number();

export const VerifyResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  sessionId: Type.String({ description: 'for seatAvailability.do, getLuggage.do and order.do; valid 2 h' }),
  maxSeats: Type.Integer(),
  routing: FullRouting,
  bookingRequirement: Type.Object({
    passenger: Type.Object({
      name: Required,
      passengerType: Required,
      gender: Required,
      birthday: Required,
      cardType: Required,
      cardNum: Required,
      cardIssuePlace: Required,
      cardExpired: Required,
      nationality: Required,
    }),
  }),
  priceChange: Type.Object({
    isPriceChange: Type.Boolean(),
    originalAdultPrice: NUM,
    originalAdultTax: NUM,
    originalChildPrice: NUM,
    originalChildTax: NUM,
    originalInfantPrice: NUM,
    originalInfantTax: NUM,
    newAdultPrice: NUM,
    newAdultTax: NUM,
    newChildPrice: NUM,
    newChildTax: NUM,
    newInfantPrice: NUM,
    newInfantTax: NUM,
  }),
});
