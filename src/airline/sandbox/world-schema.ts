// The sandbox world file: a deterministic fake airline system. This TypeBox schema is the single source of
// the file's shape; docs/world.schema.json is generated from it (npm run world:schema).
import Type, { type Static } from 'typebox';

const Iata2 = Type.String({ pattern: '^[A-Z0-9]{2}$', description: '2-letter IATA airline code' });
const Iata3 = Type.String({ pattern: '^[A-Z]{3}$', description: '3-letter IATA airport code' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' });
const Amount = Type.Number({ minimum: 0, description: 'decimal amount in the currency (at most its ISO 4217 decimals)' });
const MoneyText = Type.String({ pattern: '^[A-Z]{3} \\d+(\\.\\d+)?$', description: 'amount with currency, e.g. "EUR 50.00"' });
const WorldTime = Type.String({
  pattern: '^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}|[+-]\\d+d \\d{2}:\\d{2}|[+-]\\d+[hm]|now)$',
  description:
    'a wall-clock time in the local zone of the airport it belongs to (UTC where none): absolute "2026-12-01 10:30", ' +
    'relative to the clock at load "+3d 10:30" (date three days on, at 10:30 local), "+90m", "-2h", or "now"',
});

export const Behaviour = Type.Object(
  {
    latencyMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000, description: 'delay before every answer' })),
    failure: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('error'), Type.Literal('timeout')], {
        description: 'error = the airline answers with a system error; timeout = it never answers',
      }),
    ),
  },
  { additionalProperties: false, description: 'how the airline (or one booking) behaves when called' },
);

/** The cancelReason texts of spec 2.11: the only ones a sandbox airline may give (the loader checks). */
export const SPEC_CANCEL_REASONS = [
  'does not match airline policy',
  'no schedule change from the airline, see fare rules for cancellation charges',
  'voluntary cancellation is non-refundable',
  'airline policy allows only a voucher refund',
  'refund request cancelled by the user',
  'travel already completed',
  'refund not yet received from the airline, try later',
  "order paid by the caller's own virtual card, refund it yourself",
  "issued through the caller's own B2B account, refund it yourself",
  "refund available through the airline's consumer website, refund it yourself",
  'refund claim voucher invalid',
  'duplicate refund record',
  'more supporting material needed to meet airline requirements',
  'actual refund amount below the service fee, so rejected',
] as const;

export const RefundBehaviour = Type.Object(
  {
    decision: Type.Optional(
      Type.Union([Type.Literal('accept'), Type.Literal('reject'), Type.Literal('withdraw')], {
        description: 'accept (default); reject; withdraw (a refund claim is withdrawn; any other refund is rejected)',
      }),
    ),
    cancelReason: Type.Optional(
      Type.String({ description: 'one of the cancelReason texts of spec 2.11; default "does not match airline policy" (withdraw: "refund request cancelled by the user")' }),
    ),
    processingSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 31_536_000, description: 'seconds until the airline decides; the money follows as long again; default 20' }),
    ),
    payPercentOfQuote: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'accepted: pays this % of the quoted refund; default 100' })),
    cannotQuotePercentOfPaid: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100, description: 'accepted without an accurate quote (CannotQuote): pays this % of what the tickets cost; default 80' }),
    ),
  },
  { additionalProperties: false, description: 'how the sandbox airline decides the refunds it receives (a booking\'s fields override its airline\'s)' },
);

export const PassengerTypeLit = Type.Union([Type.Literal('ADT'), Type.Literal('CHD'), Type.Literal('INF')]);

export const RefundRule = Type.Object(
  {
    ruleType: Type.Enum(['0', '1', '2', '3', '4'] as const, {
      description: '0 involuntary, 1 voluntary, 2 tax refund, 3 special, 4 void (spec 2.8)',
    }),
    passengerType: Type.Optional(PassengerTypeLit),
    penaltyAmount: Type.Optional(MoneyText),
    penaltyPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    penaltyPercentBase: Type.Optional(Type.Union([Type.Literal('fare'), Type.Literal('fare+tax')])),
    airlineFee: Type.Optional(MoneyText),
    taxRefundable: Type.Optional(Type.Boolean()),
    fareRefundable: Type.Optional(Type.Boolean()),
    refundableAncillaries: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Literal('StandardCheckInBaggage'),
          Type.Literal('CabinBaggage'),
          Type.Literal('CabinBaggageUnderSeat'),
          Type.Literal('CabinBaggageOverheadLocker'),
        ]),
      ),
    ),
    startMinute: Type.Optional(Type.Integer({ description: 'window start, minutes before departure (negative = after)' })),
    endMinute: Type.Optional(Type.Integer({ description: 'window end, same convention; the window is (endMinute, startMinute]' })),
    refundMethod: Type.Optional(Type.Union([Type.Literal('CashBackToOriginalPayment'), Type.Literal('Voucher')])),
  },
  { additionalProperties: false },
);

const BagCategory = Type.Union([
  Type.Literal('StandardCheckInBaggage'),
  Type.Literal('CabinBaggage'),
  Type.Literal('CabinBaggageUnderSeat'),
  Type.Literal('CabinBaggageOverheadLocker'),
]);

export const FareFamilyTerms = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'the fare family as flights[].fareFamilies names it' }),
    fareFactor: Type.Optional(
      Type.Number({ minimum: 0.1, maximum: 10, description: "times the flight's fares (adult, child and infant fare; taxes unchanged); default 1" }),
    ),
    baggage: Type.Optional(
      Type.Array(
        Type.Object(
          {
            category: BagCategory,
            piece: Type.Integer({ minimum: 0, description: '0 = no limit on pieces' }),
            weight: Type.Integer({ minimum: -1, description: 'kg; -1 = no weight limit' }),
            size: Type.Optional(Type.String({ description: 'e.g. 56*36*23cm' })),
          },
          { additionalProperties: false },
        ),
        { description: 'bags included free for adults and children on every segment of the family' },
      ),
    ),
    seat: Type.Optional(Type.Boolean({ description: 'seat selection included free (the seat map still prices seats); default false' })),
    meal: Type.Optional(Type.Boolean({ description: 'a meal included; default false' })),
  },
  { additionalProperties: false, description: 'what a fare family of the airline costs and includes (getOffers.do, search.do includeMultipleFareFamily)' },
);

const Airline = Type.Object(
  {
    code: Iata2,
    name: Type.String({ minLength: 1 }),
    confirmationDays: Type.Integer({ minimum: 0, maximum: 365, description: 'days until the airline confirms a refund' }),
    refundDays: Type.Integer({ minimum: 0, maximum: 365, description: 'days from confirmation to the money' }),
    fastConfirmation: Type.Boolean({ description: 'the airline confirms refunds automatically' }),
    voidWindow: Type.Optional(
      Type.Union([Type.Literal('sameDay'), Type.Literal('none')], {
        description: 'sameDay: void until 23:59 of the issue day in the airline home zone',
      }),
    ),
    homeTimeZone: Type.Optional(Type.String({ description: 'IANA zone of the airline (void deadlines); default UTC' })),
    supports: Type.Optional(
      Type.Object(
        {
          refunds: Type.Optional(Type.Boolean()),
          voids: Type.Optional(Type.Boolean()),
          seatSelection: Type.Optional(Type.Boolean()),
          claims: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false, description: 'what the airline supports; absent = true' },
      ),
    ),
    refundRules: Type.Array(RefundRule, { description: 'refund rules, spec 2.8; list order breaks ties' }),
    refundDeadlineDaysAfterDeparture: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3650, description: 'refunds, voluntary and involuntary (not voids), are accepted until this many days after the first departure (past it 821); absent = no limit' }),
    ),
    routesWithoutRefund: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{3}-[A-Z]{3}$', description: 'a route as "DEP-ARR" airport codes, e.g. "CDG-LHR"' }), {
        description: 'routes the airline does not refund through this channel (843); a booking with a segment on one of them',
      }),
    ),
    oneRefundPerBooking: Type.Optional(
      Type.Boolean({ description: 'the airline accepts one refund per booking: a further request for the same booking is a duplicate (816); default false' }),
    ),
    refundBehaviour: Type.Optional(RefundBehaviour),
    behaviour: Type.Optional(Behaviour),
    routesWithoutSeatSelection: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{3}-[A-Z]{3}$' }), {
        description: 'routes ("DEP-ARR") on which the airline offers no seat selection (seatAvailability.do 219)',
      }),
    ),
    fareFamilyTerms: Type.Optional(
      Type.Array(FareFamilyTerms, { description: 'price factor and inclusions of each fare family; a family not listed: factor 1, nothing included' }),
    ),
    bookingFee: Type.Optional(
      Type.Object(
        {
          amount: Amount,
          currency: Currency,
          mode: Type.Union([Type.Literal('PER_SEGMENT'), Type.Literal('PER_TICKET'), Type.Literal('PER_PAX'), Type.Literal('PER_BOOKING')]),
        },
        { additionalProperties: false, description: "transaction fee verify.do shows, in the currency of the airline's fares (every flight of the airline priced in it); default 0 PER_PAX" },
      ),
    ),
    holdMinutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_080,
        description: 'how long the airline holds an unpaid booking (order.do tktLimitTime; then the order lapses to -3 and the seats are free); default 30',
      }),
    ),
    infantsAllowed: Type.Optional(Type.Boolean({ description: 'false: the airline carries no infants (order.do answers 310 for a booking with one); default true' })),
  },
  { additionalProperties: false },
);

const Airport = Type.Object(
  {
    code: Iata3,
    name: Type.String({ minLength: 1 }),
    timeZone: Type.String({ description: 'IANA time zone, e.g. Asia/Tokyo' }),
    city: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        description: 'IATA city code of the metropolitan area (search.do fromCity/toCity); default: the city cities[] or the built-in table puts the airport in, else the airport code itself',
      }),
    ),
  },
  { additionalProperties: false },
);

const City = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z]{3}$', description: 'IATA city code, e.g. JKT' }),
    airports: Type.Array(Iata3, { minItems: 1, description: 'its airports (they need not all be in airports[])' }),
  },
  { additionalProperties: false, description: 'a metropolitan area; replaces the built-in entry of the same code' },
);

const Column = Type.Object(
  {
    designator: Type.String({ pattern: '^[A-Z]$' }),
    characteristics: Type.Union([Type.Literal('A'), Type.Literal('M'), Type.Literal('W')], { description: 'aisle, middle, window' }),
  },
  { additionalProperties: false },
);

const RowRange = Type.Object({ first: Type.Integer({ minimum: 1 }), last: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

const Aircraft = Type.Object(
  {
    code: Type.String({ minLength: 2, maxLength: 4, description: 'IATA aircraft type code, e.g. 320, 77W' }),
    name: Type.String(),
    cabins: Type.Array(
      Type.Object(
        {
          deck: Type.Union([Type.Literal('Main'), Type.Literal('Upper deck'), Type.Literal('Upper')], {
            description: "Main or Upper deck, as the original's seat maps name them (Upper, accepted as well, is Upper deck)",
          }),
          cabinClass: Type.Integer({ minimum: 1, maximum: 4, description: '1 economy, 2 business, 3 first, 4 premium economy' }),
          columns: Type.Array(Column, { minItems: 1 }),
          rows: RowRange,
          exitRows: Type.Optional(Type.Array(RowRange)),
          missingSeats: Type.Optional(Type.Array(Type.String({ pattern: '^\\d+[A-Z]$' }), { description: 'seats that do not exist, e.g. "30E"' })),
          extraLegRoomRows: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);

const SeatPrice = Type.Object(
  {
    rows: RowRange,
    columns: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]$' }))),
    price: Amount,
    currency: Currency,
  },
  { additionalProperties: false },
);

const Flight = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'world-unique key that bookings refer to' }),
    carrier: Iata2,
    flightNumber: Type.String({ pattern: '^[A-Z0-9]{2}\\d{1,4}$', description: 'with carrier prefix, e.g. XS101' }),
    from: Iata3,
    to: Iata3,
    departure: WorldTime,
    arrival: WorldTime,
    depTerminal: Type.Optional(Type.String()),
    arrTerminal: Type.Optional(Type.String()),
    aircraft: Type.String({ description: 'aircraft code from aircraft[]' }),
    operatingCarrier: Type.Optional(Iata2),
    operatingFlightNumber: Type.Optional(Type.String()),
    status: Type.Optional(
      Type.Union([Type.Literal('onTime'), Type.Literal('scheduleChanged'), Type.Literal('cancelled')], { description: 'default onTime' }),
    ),
    changedDeparture: Type.Optional(WorldTime),
    changedArrival: Type.Optional(WorldTime),
    occupiedSeats: Type.Optional(Type.Array(Type.String({ pattern: '^\\d+[A-Z]$' }))),
    seatPrices: Type.Optional(Type.Array(SeatPrice)),
    fareFamilies: Type.Optional(
      Type.Array(Type.String(), {
        description: 'fare families sold, lowest price first (verify.do prices the first); default [STANDARD]; [] = none, seatAvailability.do answers 221',
      }),
    ),
    fares: Type.Optional(
      Type.Object(
        {
          currency: Currency,
          adult: Type.Object({ fare: Amount, tax: Amount }, { additionalProperties: false }),
          child: Type.Optional(Type.Object({ fare: Amount, tax: Amount }, { additionalProperties: false })),
          infant: Type.Optional(Type.Object({ fare: Amount, tax: Amount }, { additionalProperties: false })),
        },
        {
          additionalProperties: false,
          description: 'one-way fare of this flight per passenger type; default EUR 200 + 40 tax (child 75 % of the adult fare, infant 10 %, same tax)',
        },
      ),
    ),
    seatsForSale: Type.Optional(Type.Integer({ minimum: 0, description: 'tickets still sold on this flight (verify.do maxSeats); default 9; a fixed number, not counted down by bookings' })),
    repeatDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 400,
        description: 'the flight also operates on each of the next N days at the same local times (ids "<id>+1d" … "<id>+Nd"); bookings name a repeat by that id',
      }),
    ),
    seatMapBehaviour: Type.Optional(
      Type.Union([Type.Literal('selectionFailed'), Type.Literal('unknownError')], {
        description: 'make seatAvailability.do fail for this flight: selectionFailed = 216, unknownError = 217',
      }),
    ),
    priceChangeAfterVerify: Type.Optional(
      Type.Object(
        {
          fare: Type.Optional(Type.Number({ description: 'added to every passenger type\'s fare of this flight at booking (negative: cheaper)' })),
          seat: Type.Optional(Type.Number({ description: 'added to every seat price of this flight at booking' })),
        },
        {
          additionalProperties: false,
          description:
            'the airline books at another price than verify.do and seatAvailability.do show: order.do answers 308 (fare) or 322 (seat price) with the new price and a re-priced sessionId that books (docs/decisions/0023)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Passenger = Type.Object(
  {
    ref: Type.String({ minLength: 1 }),
    type: PassengerTypeLit,
    lastName: Type.String({ minLength: 1 }),
    firstName: Type.String({ minLength: 1 }),
    birthday: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
    gender: Type.Optional(Type.Union([Type.Literal('M'), Type.Literal('F')])),
    document: Type.Optional(
      Type.Object(
        {
          type: Type.String(),
          number: Type.String(),
          expiry: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
          issuePlace: Type.Optional(Type.String()),
          nationality: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const Baggage = Type.Object(
  {
    piece: Type.Integer({ minimum: 0, description: '0 = no piece limit' }),
    weight: Type.Number({ minimum: 0, description: 'kg; 0 = no weight limit' }),
    size: Type.Optional(Type.String()),
    isAllWeight: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Ancillary = Type.Object(
  {
    category: Type.Enum(['StandardCheckInBaggage', 'CabinBaggage', 'CabinBaggageUnderSeat', 'CabinBaggageOverheadLocker', 'Seat'] as const),
    segment: Type.Integer({ minimum: 1, description: '1-based segment of the booking' }),
    price: Amount,
    productCode: Type.Optional(Type.String()),
    baggage: Type.Optional(Baggage),
    seat: Type.Optional(Type.String({ pattern: '^\\d+[A-Z]$', description: 'e.g. 12A' })),
  },
  { additionalProperties: false },
);

const CouponStatusLit = Type.Enum(['OPEN_FOR_USE', 'USED', 'REFUND', 'NOSHOW', 'UNKNOWN'] as const);

const Ticket = Type.Object(
  {
    ticketNo: Type.String({ pattern: '^\\d{3}-?\\d{10}$', description: '13-digit e-ticket number' }),
    passenger: Type.String({ description: 'ref of a passenger of this booking' }),
    currency: Currency,
    fare: Amount,
    tax: Amount,
    segments: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        description: 'booking segments (1-based) this ticket covers, when a passenger holds several tickets; default all',
      }),
    ),
    coupons: Type.Array(CouponStatusLit, { minItems: 1, description: 'one status per segment the ticket covers, in order' }),
    ancillaries: Type.Optional(Type.Array(Ancillary, { description: 'bought with the ticket (in-flow)' })),
    taxStatusUnconfirmed: Type.Optional(
      Type.Boolean({ description: 'true: the airline cannot confirm whether the tax is refundable (refunds answer 826); default false' }),
    ),
  },
  { additionalProperties: false },
);

const PostTicketingService = Type.Object(
  {
    orderNo: Type.String({ minLength: 1 }),
    passenger: Type.String(),
    category: Type.Enum(['StandardCheckInBaggage', 'CabinBaggage', 'CabinBaggageUnderSeat', 'CabinBaggageOverheadLocker', 'Seat'] as const),
    segment: Type.Integer({ minimum: 1 }),
    price: Amount,
    currency: Currency,
    baggage: Type.Optional(Baggage),
    seat: Type.Optional(Type.String({ pattern: '^\\d+[A-Z]$' })),
  },
  { additionalProperties: false },
);

const Booking = Type.Object(
  {
    pnr: Type.String({ pattern: '^[A-Z0-9]{1,8}$', description: 'record locator, 1–8 of A-Z 0-9 (extractPnr.do and pnr/claim.do take 1–8)' }),
    carrier: Iata2,
    status: Type.Union([Type.Literal('OnHold'), Type.Literal('Ticketed'), Type.Literal('Cancelled')]),
    contact: Type.Object(
      { email: Type.String({ minLength: 3 }), phone: Type.Optional(Type.String()), companyName: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    passengers: Type.Array(Passenger, { minItems: 1 }),
    segments: Type.Array(
      Type.Object(
        {
          flight: Type.String({ description: 'id of a flight in flights[]' }),
          direction: Type.Optional(Type.Union([Type.Literal('out'), Type.Literal('ret')], { description: 'default out' })),
          cabinClass: Type.Optional(Type.Integer({ minimum: 1, maximum: 4 })),
          fareFamily: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    tickets: Type.Optional(Type.Array(Ticket)),
    postTicketingServices: Type.Optional(Type.Array(PostTicketingService)),
    paymentMethod: Type.Optional(
      Type.Union([Type.Literal('deposit'), Type.Literal('virtualCard'), Type.Literal('ownAccount'), Type.Literal('merchant')]),
    ),
    issuedAt: Type.Optional(WorldTime),
    bookedBy: Type.Optional(Type.String({ description: 'client id that booked it through postbook' })),
    behaviour: Type.Optional(Behaviour),
    refundBehaviour: Type.Optional(RefundBehaviour),
    note: Type.Optional(Type.String({ description: 'what the booking demonstrates (documentation only)' })),
  },
  { additionalProperties: false },
);

const Client = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9._-]{3,64}$' }),
    name: Type.String({ minLength: 1 }),
    secret: Type.String({ minLength: 12, description: 'sandbox only: plain secret, hashed when loaded' }),
    webhook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL receiving the webhook POSTs (docs/webhooks.md)' }),
          secret: Type.String({ minLength: 16, description: 'sandbox only: plain webhook signing secret, stored encrypted when loaded' }),
        },
        { additionalProperties: false, description: "the client's webhook registration (docs/webhooks.md)" },
      ),
    ),
    settings: Type.Optional(
      Type.Object(
        {
          refundServiceFee: Type.Optional(MoneyText),
          refundCriteria: Type.Optional(
            Type.Object(
              {
                minMinutesBeforeDeparture: Type.Optional(
                  Type.Integer({ minimum: 0, description: 'voluntary refunds closer to departure than this are refused (840)' }),
                ),
              },
              { additionalProperties: false, description: "the client's own cancellation criteria" },
            ),
          ),
          rateLimits: Type.Optional(
            Type.Object(
              { ancillaryPerMinute: Type.Optional(Type.Integer({ minimum: 1 })), verifyPerMinute: Type.Optional(Type.Integer({ minimum: 1 })), pnrPerMinute: Type.Optional(Type.Integer({ minimum: 1 })), searchPerSecond: Type.Optional(Type.Integer({ minimum: 1 })) },
              { additionalProperties: false },
            ),
          ),
          lookToBook: Type.Optional(
            Type.Object(
              { maxRatio: Type.Number({ minimum: 1 }), minRequests: Type.Integer({ minimum: 0 }) },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const WorldSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    sandbox: Type.Optional(
      Type.Object({ adminToken: Type.Optional(Type.String({ minLength: 16 })) }, { additionalProperties: false }),
    ),
    clients: Type.Array(Client),
    airlines: Type.Array(Airline, { minItems: 1 }),
    airports: Type.Array(Airport, { minItems: 1 }),
    cities: Type.Optional(Type.Array(City, { description: 'metropolitan areas that extend or replace the built-in city table (docs/world.md "cities")' })),
    aircraft: Type.Array(Aircraft),
    flights: Type.Array(Flight),
    bookings: Type.Array(Booking),
    rates: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Z]{3}/[A-Z]{3}$' }), Type.String({ pattern: '^\\d+(\\.\\d+)?$' }), {
        description: 'exchange rates "EUR/USD": "1.08" (1 EUR = 1.08 USD)',
      }),
    ),
  },
  { additionalProperties: false, $id: 'https://postbook.dev/schemas/world.schema.json', title: 'postbook sandbox world' },
);

export type WorldFile = Static<typeof WorldSchema>;
export type WorldAirline = Static<typeof Airline>;
export type WorldFlight = Static<typeof Flight>;
export type WorldBooking = Static<typeof Booking>;
export type WorldRefundRule = Static<typeof RefundRule>;
export type WorldFareFamilyTerms = Static<typeof FareFamilyTerms>;
export type WorldClient = Static<typeof Client>;
export type WorldBehaviour = Static<typeof Behaviour>;
export type WorldRefundBehaviour = Static<typeof RefundBehaviour>;
