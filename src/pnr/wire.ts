// Wire schemas of extractPnr.do (spec 2.13, 4.5) and pnr/claim.do (spec 2.14, 4.6).
import Type, { type Static } from 'typebox';
import { Nullable, OrNull } from '../wire.js';

const Str = (opts: object = {}) => Type.String({ maxLength: 200, ...opts });
const Carrier = Type.String({ pattern: '^[A-Za-z0-9]{2}$', description: '2-letter IATA airline code' });
// 1–8 characters as the refund endpoints take an airlinePNR (a review: 5–8 refused with 100 the original docs' own
// extract sample, "airlinePnr": "0419" of carrier BC); letters and digits, as every record locator is.
const Pnr = Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$', description: 'airline record locator, 1–8 letters or digits' });

// ---------- extractPnr.do ----------

const ExtractRequestSegment = Type.Object({
  dptAirport: Nullable(Str()),
  arrAirport: Nullable(Str()),
  flightNumber: Nullable(Str()),
  depTime: Nullable(Str({ description: "'yyyy-MM-dd HH:mm'" })),
  arrTime: Nullable(Str()),
});

export const ExtractPnrRequest = Type.Object({
  airlinePnr: Pnr,
  carrier: Carrier,
  timeout: Nullable(Type.Integer({ minimum: 1, maximum: 120_000, description: 'ms, default 15000' })),
  passengers: Type.Array(
    Type.Object({
      firstName: Str({ minLength: 1 }),
      lastName: Str({ minLength: 1 }),
      passengerType: Nullable(Type.Union([Type.String({ maxLength: 10 }), Type.Integer()])),
    }),
    { minItems: 1, maxItems: 99 },
  ),
  contact: Type.Object({ email: Str({ minLength: 3, maxLength: 254 }) }),
  routing: Type.Object({
    fromSegments: Type.Array(ExtractRequestSegment, { maxItems: 20 }),
    retSegments: Nullable(Type.Array(ExtractRequestSegment, { maxItems: 20 })),
  }),
  requestSource: Nullable(Str()),
  channel: Nullable(Str()),
  mainChannel: Nullable(Str()),
  subChannelID: Nullable(Str()),
  requestOwner: Nullable(Str()),
  requestId: Nullable(Str()),
  clientRequestId: Nullable(Str()),
});
export type ExtractPnrRequest = Static<typeof ExtractPnrRequest>;

export const ExtractSegment = Type.Object({
  aircraftCode: Type.Optional(Type.String()),
  arrAirport: Type.String(),
  arrTerminal: Type.Optional(Type.String()),
  arrTime: Type.String({ description: "airport-local 'yyyy-MM-dd HH:mm'" }),
  carrier: Type.String(),
  codeShare: Type.Boolean(),
  depAirport: Type.String(),
  depTerminal: Type.Optional(Type.String()),
  depTime: Type.String({ description: "airport-local 'yyyy-MM-dd HH:mm'" }),
  duration: Type.Integer({ description: 'minutes' }),
  flightNumber: Type.String(),
  operatingCarrier: Type.String(),
  operatingFlightnumber: Type.String(),
});

export const ExtractAncillary = Type.Object({
  productCode: Type.String(),
  segmentIndex: Type.Integer(),
  currency: Type.String(),
  ancillaryPrice: Type.Number(),
  auxBaggageElement: Type.Optional(
    Type.Object({ isAllWeight: Type.Boolean(), piece: Type.Integer(), size: Type.Optional(Type.String()), weight: Type.Number() }),
  ),
  auxSeatElement: Type.Optional(Type.Object({ row: Type.String(), column: Type.String() })),
  vendorCurrency: Type.String(),
  vendorPrice: Type.Number(),
  displayCurrency: Type.String(),
  displayPrice: Type.Number(),
});

export const TICKET_STATUSES = ['OPEN_FOR_USE', 'REFUND', 'USED', 'PARTIALLY_USED', 'NOSHOW', 'UNKNOWN'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const PaxTicketInfo = Type.Object({
  name: Type.String({ description: "'LAST/FIRST'" }),
  ticketNos: Type.Array(Type.String()),
  airlinePNRs: Type.Array(Type.String()),
  ancillaries: Type.Array(ExtractAncillary),
  contactEmails: Type.Array(Type.String()),
  contactPhones: Type.Array(Type.String()),
  // Required with UNKNOWN among its values, as the original's reference marks it; UNKNOWN for a passenger without a
  // ticket (spec 2.13 shows OPEN_FOR_USE and leaves the other values open; decision 0005 amended)
  ticketStatus: Type.Enum(TICKET_STATUSES),
});

export const ExtractPnrResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  airlinePnr: Type.String(),
  pnrStatus: Type.Enum(['OnHold', 'Ticketed', 'Cancelled', 'Unknown'] as const),
  pnrUsed: OrNull(Type.Union([Type.Literal('used'), Type.Literal('unused')])),
  currency: OrNull(Type.String()),
  totalPrice: OrNull(Type.String()),
  routing: Type.Optional(Type.Object({ fromSegments: Type.Array(ExtractSegment), retSegments: Type.Array(ExtractSegment) })),
  paxTicketInfos: Type.Optional(Type.Array(PaxTicketInfo)),
  contact: Type.Optional(Type.Object({ email: Type.String(), companyName: Type.Optional(Type.String()) })),
});
export type ExtractPnrResponse = Static<typeof ExtractPnrResponse>;

// ---------- pnr/claim.do ----------

const ClaimSegment = Type.Object({
  carrier: Carrier,
  flightNumber: Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$', description: 'with carrier prefix, e.g. XS101' }),
  depAirport: Type.String({ pattern: '^[A-Za-z]{3}$' }),
  arrAirport: Type.String({ pattern: '^[A-Za-z]{3}$' }),
  depTime: Type.String({ pattern: '^\\d{12}$', format: 'yyyyMMddHHmm', description: 'airport-local yyyyMMddHHmm' }),
  arrTime: Nullable(Type.String({ pattern: '^\\d{12}$', format: 'yyyyMMddHHmm' })),
  stopCities: Nullable(Str()),
  codeShare: Nullable(Type.Union([Type.Integer({ minimum: 0, maximum: 1 }), Type.Boolean()])),
  operatingCarrier: Nullable(Str()),
  operatingFlightNumber: Nullable(Str()),
  depTerminal: Nullable(Str()),
  arrTerminal: Nullable(Str()),
  cabinClass: Nullable(Type.Union([Type.String({ maxLength: 2 }), Type.Integer()])),
  fareFamily: Nullable(Str()),
  flightIndex: Nullable(Type.Union([Type.String({ maxLength: 10 }), Type.Integer()])),
  duration: Nullable(Type.Integer({ minimum: 0, description: 'minutes' })),
});

export const ClaimRequest = Type.Object({
  mmb: Type.Object({
    airlinePnr: Pnr,
    email: Str({ minLength: 3, maxLength: 254 }),
  }),
  passengers: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 3, maxLength: 120, pattern: '^[^/]+/[^/]+$', description: "'LAST/FIRST'" }),
      passengerType: Nullable(Type.Integer({ minimum: 0, maximum: 2, description: '0 adult, 1 child, 2 infant' })),
      birthday: Nullable(Type.String({ pattern: '^\\d{8}$', format: 'yyyyMMdd' })),
      gender: Nullable(Type.Union([Type.Literal('M'), Type.Literal('F')])),
      cardNum: Nullable(Str({ maxLength: 40 })),
      cardType: Nullable(Str({ maxLength: 4 })),
      cardIssuePlace: Nullable(Str()),
      cardExpired: Nullable(Type.String({ pattern: '^\\d{8}$', format: 'yyyyMMdd' })),
      nationality: Nullable(Str({ maxLength: 3 })),
    }),
    { minItems: 1, maxItems: 99 },
  ),
  fromSegments: Type.Array(ClaimSegment, { minItems: 1, maxItems: 10 }),
  retSegments: Nullable(Type.Array(ClaimSegment, { maxItems: 10 })),
  connectInfo: Nullable(
    Type.Object({ contactName: Nullable(Str()), contactEmail: Nullable(Str()), contactPhone: Nullable(Str()) }),
  ),
});
export type ClaimRequest = Static<typeof ClaimRequest>;

export const ClaimResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  orderNo: Type.String({ description: "postbook's order number" }),
  pnrCode: Type.String({ description: 'airline record locator' }),
});
export type ClaimResponse = Static<typeof ClaimResponse>;
