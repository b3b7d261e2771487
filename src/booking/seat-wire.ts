// Wire schemas of seatAvailability.do (spec 2.12, 4.4; request fields: docs/architecture.md "The booking chain").
import Type, { type Static } from 'typebox';
import { Nullable } from '../wire.js';

const SeatSegment = Type.Object({
  segmentIndex: Nullable(Type.Integer({ minimum: 1, maximum: 16, description: 'from 1, continuing across outbound then inbound (missing: 215)' })),
  flightNumber: Type.String({ pattern: '^[A-Za-z0-9]{2}\\d{1,4}$', description: 'with carrier prefix, e.g. XS101' }),
  depAirport: Type.String({ pattern: '^[A-Za-z]{3}$' }),
  arrAirport: Type.String({ pattern: '^[A-Za-z]{3}$' }),
  depTime: Type.String({ pattern: '^\\d{8}(\\d{4})?$', format: 'yyyyMMdd[HHmm]', description: 'yyyyMMddHHmm (yyyyMMdd accepted), airport-local' }),
  cabinClass: Nullable(
    Type.Union([Type.Integer({ minimum: 1, maximum: 4 }), Type.String({ pattern: '^ *([1-4] *)?$' })], {
      description: '1 economy, 2 business, 3 first, 4 premium economy, as an integer or its string ("1"); "" or absent: as verified. Only the class the segment was verified in: another answers 216',
    }),
  ),
});
export type SeatSegment = Static<typeof SeatSegment>;

export const SeatAvailabilityRequest = Type.Object({
  // "" (or blanks) is absent, as for every optional string of the chain (decision 0021): the original's samples send "" for the id not used
  sessionId: Nullable(Type.String({ maxLength: 80, description: 'from verify.do (send this or offerId; an offerID of getOffers.do is accepted here too)' })),
  offerId: Nullable(Type.String({ maxLength: 80, description: 'from getOffers.do (a verify.do sessionId is accepted here too)' })),
  offerID: Nullable(Type.String({ maxLength: 80, description: 'offerId as getOffers.do spells it' })),
  carrier: Type.String({ pattern: '^[A-Za-z0-9]{2}$', description: "IATA code of the itinerary's most significant carrier" }),
  outboundSegments: Type.Array(SeatSegment, { minItems: 1, maxItems: 8, description: "every outbound segment of the session's itinerary, in the order of take-off (220 otherwise)" }),
  inboundSegments: Nullable(Type.Array(SeatSegment, { maxItems: 8, description: "every return segment of the session's itinerary, in the order of take-off (220 otherwise); null or absent for a one-way itinerary" })),
});
export type SeatAvailabilityRequest = Static<typeof SeatAvailabilityRequest>;

const Seat = Type.Object({
  column: Type.String(),
  seatStatus: Type.Union([Type.Literal('F'), Type.Literal('O')], { description: 'F free, O occupied' }),
  seatCharacteristics: Type.Array(Type.String(), { description: 'IATA PADIS 9825 as the original writes them: A aisle, W window, M middle, E exit, IE not for a child, L leg space, I with infant' }),
  price: Type.Number(),
  currency: Type.String(),
  vendorPrice: Type.Number(),
  vendorCurrency: Type.String(),
  productCode: Type.String(),
});

const Range = Type.Object({ first: Type.Integer(), last: Type.Integer() });

export const SeatCabin = Type.Object({
  segmentIndex: Type.Integer(),
  cabin: Type.Object({
    deck: Type.String({ description: 'Main or Upper deck' }),
    cabinClass: Type.Integer(),
    cabinLayout: Type.Object({
      columns: Type.Array(Type.Object({ designator: Type.String(), characteristics: Type.String({ description: 'A aisle, M middle, W window' }) })),
      rows: Range,
      exitRowPositions: Type.Array(Range),
    }),
    rows: Type.Array(Type.Object({ number: Type.Integer(), seats: Type.Array(Seat) })),
  }),
});
export type SeatCabin = Static<typeof SeatCabin>;

export const SeatAvailabilityResponse = Type.Object({
  status: Type.Integer(),
  msg: Type.String(),
  cabins: Type.Array(SeatCabin),
});
export type SeatAvailabilityResponse = Static<typeof SeatAvailabilityResponse>;
