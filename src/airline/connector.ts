// The airline connector interface: the only way postbook talks to an airline. The sandbox connector is
// built in; a real one (NDC, a GDS) is another implementation registered for its carriers.
import type { CouponStatus, PassengerType, PaymentMethod } from '../store/schema.js';
import type { RefundReason, RefundRule } from '../refunds/engine/index.js';

export type PnrStatus = 'OnHold' | 'Ticketed' | 'Cancelled' | 'Unknown';
export type ScheduleStatus = 'onTime' | 'scheduleChanged' | 'cancelled';

export interface AirlinePassenger {
  /** Stable reference inside the record (tickets point at it). */
  ref: string;
  type: PassengerType;
  lastName: string;
  firstName: string;
  birthday: string | null;
  gender: 'M' | 'F' | null;
  document: { type: string; number: string; expiry: string | null; issuePlace: string | null; nationality: string | null } | null;
}

export interface AirlineSegment {
  /** 1-based, outbound then return. */
  index: number;
  direction: 'out' | 'ret';
  carrier: string;
  flightNumber: string;
  depAirport: string;
  arrAirport: string;
  /** Current schedule, airport-local wall time 'yyyy-MM-dd HH:mm'. */
  depLocal: string;
  arrLocal: string;
  depAt: Date;
  arrAt: Date;
  depTimeZone: string;
  arrTimeZone: string;
  /** Schedule at booking time when the airline changed it since. */
  bookedDepLocal: string;
  bookedArrLocal: string;
  scheduleStatus: ScheduleStatus;
  depTerminal: string | null;
  arrTerminal: string | null;
  aircraftCode: string | null;
  codeShare: boolean;
  operatingCarrier: string;
  operatingFlightNumber: string;
  durationMinutes: number;
  cabinClass: number | null;
  fareFamily: string | null;
}

export interface AirlineAncillary {
  kind: 'inflow' | 'post';
  category: string;
  segmentIndex: number | null;
  productCode: string;
  currency: string;
  priceMinor: number;
  /** Post-ticketing service order number (kind 'post'). */
  postOrderNo: string | null;
  baggage: { piece: number; weight: number; size: string | null; isAllWeight: boolean } | null;
  seat: { row: string; column: string } | null;
}

export interface AirlineTicket {
  ticketNo: string;
  paxRef: string;
  currency: string;
  fareMinor: number;
  taxMinor: number;
  issuedAt: Date | null;
  /** False when the airline cannot confirm whether the tax is refundable (refunds answer 826). */
  taxStatusConfirmed: boolean;
  coupons: Array<{ segmentIndex: number; status: CouponStatus }>;
  ancillaries: AirlineAncillary[];
}

/** The airline-side booking as the airline reports it now. */
export interface AirlineRecord {
  carrier: string;
  pnr: string;
  status: Exclude<PnrStatus, 'Unknown'>;
  contact: { email: string; phone: string | null; companyName: string | null };
  passengers: AirlinePassenger[];
  segments: AirlineSegment[];
  tickets: AirlineTicket[];
  paymentMethod: PaymentMethod | null;
  /** Client that booked it through postbook, when it did. */
  bookedByClient: string | null;
}

export interface CallOptions {
  /** Aborted when the caller's time budget runs out; the connector must stop waiting at once. */
  signal: AbortSignal;
}

/**
 * Why an airline call failed, and what the caller may conclude about its effect — order.do, pay.do, refunds and
 * voids act on it:
 * - `timeout`: no answer (the time ran out, the connection broke after the request was sent, an answer that
 *   could not be read): the airline may have done it. The caller keeps what it needs to find out or undo it
 *   (order.do keeps its attempt for the expiry sweep; a refund submission is sent again under its refundCode,
 *   which the airline answers as the one it already has).
 * - `unavailable`: the airline answered that it did not do it (its system's error, a refused connection before
 *   anything was sent): nothing was done and the call may be tried again.
 * - `rejected`: the airline answered no for this request: nothing was done; trying again is no use.
 * A connector that cannot tell whether a request reached the airline says `timeout`, never `unavailable`.
 */
export type ConnectorErrorKind = 'timeout' | 'unavailable' | 'rejected';

/** An airline call that failed. `retryable` tells workflows whether trying again can help. */
export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    readonly retryable: boolean,
    message: string,
    /**
     * Optional, for a refusal: why, in words fit for the caller (no system text, no address, no reference of the
     * airline's): a void refused with one ends with it as its cancelReason. The message is for the log.
     */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

export type AirlineFeature = 'claims' | 'refunds' | 'voids' | 'seatSelection';

/** A refund rule as the airline publishes it (spec 2.8): the refund engine's own type, declared once there. */
export type AirlineRefundRule = RefundRule;

/** What an airline publishes about refunds: its rules and its processing times. */
export interface AirlineRefundTerms {
  carrier: string;
  rules: AirlineRefundRule[];
  confirmationDays: number;
  refundDays: number;
  fastConfirmation: boolean;
  /** sameDay: a void is possible until 23:59 of the ticket's issue day in `homeTimeZone`. */
  voidWindow: 'sameDay' | 'none';
  homeTimeZone: string;
  /** Refunds, voluntary and involuntary (not voids), are accepted until this many days after the first departure (null = no limit; 821). */
  refundDeadlineDaysAfterDeparture: number | null;
  /** Routes (`DEP-ARR` airport pairs) the airline does not refund through this channel (843). */
  routesWithoutRefund: string[];
  /** The airline accepts one refund per booking: after one, further requests are duplicates (816). */
  oneRefundPerBooking: boolean;
}

/** The refund request postbook sends to the airline. `refundCode` is the idempotency key. */
export interface AirlineRefundSubmission {
  refundCode: string;
  pnr: string;
  ticketNos: string[];
  reason: RefundReason;
  currency: string;
  /** What the tickets cost (fare + tax + in-flow ancillaries), minor units. */
  paidMinor: number;
  /** postbook's accurate estimate, or null for a CannotQuote refund (the airline decides the amount). */
  quotedRefundMinor: number | null;
  /** The booking was claimed (a refund claim), not booked through postbook. */
  isClaim: boolean;
}

export interface AirlineRefundReceipt {
  /** The airline's own reference of the refund. */
  airlineRefundId: string;
  /** True when the airline had already received this refundCode (a retry after a crash or time-out). */
  duplicate: boolean;
}

/** The airline's answer to a withdrawal: withdrawn now, or already before (a resent withdrawal, or its own). */
export interface AirlineRefundWithdrawal {
  already: boolean;
  cancelReason: string;
}

/** The airline's view of a submitted refund. */
export type AirlineRefundState =
  | { state: 'processing' }
  | { state: 'rejected'; cancelReason: string }
  | { state: 'withdrawn'; cancelReason: string }
  /** accepted, money on its way (deposit-paid bookings show "Airline refunding") */
  | { state: 'refunding'; amountMinor: number; currency: string }
  /**
   * paid; `method` how (the airline's own rule when the refund reached it, which may differ from the quote's);
   * without it a voucherCode means a voucher, none cash back to the original payment
   */
  | { state: 'refunded'; amountMinor: number; currency: string; voucherCode: string | null; method?: 'CashBackToOriginalPayment' | 'Voucher' };

/** A void postbook sends to the airline: the whole booking, every ticket. `voidCode` is the idempotency key. */
export interface AirlineVoidSubmission {
  voidCode: string;
  pnr: string;
  ticketNos: string[];
  currency: string;
  /** What the tickets cost (fare + tax + in-flow ancillaries), minor units: what a void gives back. */
  paidMinor: number;
}

export interface AirlineVoidReceipt {
  /** The airline's own reference of the void. */
  airlineVoidId: string;
  /** True when the airline had already received this voidCode (a retry after a crash or time-out). */
  duplicate: boolean;
}

/** The airline's view of a submitted void. */
export type AirlineVoidState =
  | { state: 'processing' }
  | { state: 'rejected'; cancelReason: string }
  /** accepted: the tickets are void, the money on its way (deposit-paid bookings show "Airline voiding") */
  | { state: 'voiding'; amountMinor: number; currency: string }
  | { state: 'voided'; amountMinor: number; currency: string };

export interface AirlineConnector {
  readonly name: string;
  /** Booking chain support (search … ticketing); absent: the airline is not bookable through postbook. */
  readonly booking?: BookingConnector;
  /** Carriers this connector answers for. */
  carriers(): string[];
  /**
   * Optional: a value that changes whenever carriers() would answer otherwise (the sandbox: its world's airline
   * table, which a world reload replaces); the directory then reads carriers() again. Without it the carriers are
   * read once.
   */
  carriersVersion?(): unknown;
  /** Whether the airline offers a post-booking feature (a real connector reads it from its contract). */
  supports(carrier: string, feature: AirlineFeature): boolean;
  /** The record, or null when the airline has no such PNR. Throws ConnectorError. */
  readRecord(carrier: string, pnr: string, opts: CallOptions): Promise<AirlineRecord | null>;
  /**
   * Refund rules and processing terms of a carrier, or null when the carrier is not served. A connector may answer
   * the same deep-frozen object until the terms change; readers never change what they get, and may keep what they
   * derive from a frozen rule by its identity.
   */
  refundTerms(carrier: string): AirlineRefundTerms | null;
  /** Submits a refund; idempotent on `refundCode`. Throws ConnectorError (retryable or not). */
  submitRefund(carrier: string, submission: AirlineRefundSubmission, opts: CallOptions): Promise<AirlineRefundReceipt>;
  /**
   * Optional: submits several refunds of one carrier in one go (the refund workers' batches). Answers one
   * outcome per submission, in order: the receipt, or the error submitRefund would have thrown for it, exactly
   * as if submitRefund had been called on each in this order, one after the other (a refund that repeats an
   * earlier one of the batch is a duplicate of it). A failure of one refund never fails the others; the call
   * throws only when it could answer none of them. Without it, callers submit one refund at a time.
   */
  submitRefunds?(carrier: string, submissions: readonly AirlineRefundSubmission[], opts: CallOptions): Promise<Array<AirlineRefundReceipt | Error>>;
  /** Where a submitted refund stands. Throws ConnectorError; an unknown refundCode is a non-retryable 'rejected' error. */
  refundStatus(carrier: string, refundCode: string, opts: CallOptions): Promise<AirlineRefundState>;
  /**
   * Optional: withdraws a submitted refund the airline is still processing (a refund claim or pass-through
   * virtual card refund the user no longer wants: status 6); idempotent on `refundCode` (a refund withdrawn
   * already answers `already: true`). From then on refundStatus answers 'withdrawn'. Throws ConnectorError:
   * not retryable when the airline refuses (it decided already: rejected, accepted or refunded; an unknown
   * refundCode), retryable when it could not answer. Without it, a refund the airline holds cannot be withdrawn.
   */
  withdrawRefund?(carrier: string, refundCode: string, opts: CallOptions): Promise<AirlineRefundWithdrawal>;
  /**
   * Optional (the void path, docs/voids.md): voids a whole ticketed booking on the day of issue; idempotent on
   * `voidCode`. Throws ConnectorError: not retryable when the airline refuses the void for good (past its
   * deadline, not covered). Without it (and voidStatus) the void path does not cover the carrier (843).
   */
  submitVoid?(carrier: string, submission: AirlineVoidSubmission, opts: CallOptions): Promise<AirlineVoidReceipt>;
  /** Where a submitted void stands. Throws ConnectorError; an unknown voidCode is a non-retryable 'rejected' error. */
  voidStatus?(carrier: string, voidCode: string, opts: CallOptions): Promise<AirlineVoidState>;
}

/**
 * Routes each carrier to its connector. A connector whose carriers change (carriersVersion: the sandbox's world
 * reload) is read again at the next lookup (a review: an airline a console reload added answered 99008 "not
 * connected" until a restart, and a removed one stayed connected).
 */
export class AirlineDirectory {
  private byCarrier = new Map<string, AirlineConnector>();
  private versions: unknown[] = [];

  constructor(private readonly connectors: AirlineConnector[]) {
    this.read(true);
  }

  /** Reads every connector's carriers; two connectors for one carrier refuse the start (strict), else the first keeps it. */
  private read(strict: boolean): void {
    const byCarrier = new Map<string, AirlineConnector>();
    for (const c of this.connectors) for (const carrier of c.carriers()) {
      if (byCarrier.has(carrier)) {
        if (strict) throw new Error(`carrier ${carrier} is served by two connectors`);
        continue;
      }
      byCarrier.set(carrier, c);
    }
    this.byCarrier = byCarrier;
    this.versions = this.connectors.map((c) => c.carriersVersion?.());
  }

  private current(): Map<string, AirlineConnector> {
    for (let i = 0; i < this.connectors.length; i++) {
      const c = this.connectors[i]!;
      if (c.carriersVersion && c.carriersVersion() !== this.versions[i]) {
        this.read(false);
        break;
      }
    }
    return this.byCarrier;
  }

  forCarrier(carrier: string): AirlineConnector | null {
    return this.current().get(carrier) ?? null;
  }

  /** Every carrier some connector serves. */
  carriers(): string[] {
    return [...this.current().keys()];
  }
}

// ---- booking chain (issue 4): search, price, seat maps, luggage, booking and ticketing ----

/** A flight as callers name it: carrier, flight number with prefix, local departure date (yyyyMMdd). */
export interface FlightRef {
  carrier: string;
  flightNumber: string;
  depDate: string;
  depAirport?: string;
  arrAirport?: string;
}

export type TransactionFeeMode = 'PER_SEGMENT' | 'PER_TICKET' | 'PER_PAX' | 'PER_BOOKING';

export interface PaxFare {
  fareMinor: number;
  taxMinor: number;
}

/** What the airline asks for an itinerary, per passenger type, in one currency. */
export interface ItineraryPrice {
  currency: string;
  adult: PaxFare;
  child: PaxFare;
  infant: PaxFare;
  /** The airline's booking fee and how it is charged. */
  feeMinor: number;
  feeMode: TransactionFeeMode;
}

export interface PricedItinerary {
  carrier: string;
  /** index/direction set: 1-based, outbound then return; cabinClass and fareFamily as priced. */
  segments: AirlineSegment[];
  price: ItineraryPrice;
  /** Seats the airline still sells on the fullest segment. */
  seatsLeft: number;
  /** The airline sells seats and bags with the ticket. */
  ancillarySupported: boolean;
  /** Fare families sold on every flight of the itinerary, lowest price first (absent: only the one priced). */
  fareFamilies?: string[];
  /** False: the airline carries no infants (its infant price means nothing; a booking with one is refused). Absent: true. */
  infantsAllowed?: boolean;
}

/** What one fare family of an airline includes, as the airline publishes it. */
export interface FareFamilyTerms {
  name: string;
  /** Bags included free for adults and children on every segment. */
  baggage: Array<{ category: BaggageProduct['category']; piece: number; weight: number; size: string | null }>;
  /** Seat selection included free. */
  seat: boolean;
  meal: boolean;
}

export interface SearchQuery {
  /** Airports the trip may start from (a city's airports, or one airport). */
  depAirports: string[];
  /** Airports the trip may end at. */
  arrAirports: string[];
  depDate: string;
  retDate: string | null;
  cabinClass: number;
  /** One itinerary per fare family sold on all its flights, instead of the lowest only. */
  allFareFamilies?: boolean;
  /** Only these carriers (absent or empty: any): the airline is asked what the caller asks (search.do `airlines`). */
  carriers?: string[];
  /**
   * Only journeys of exactly these flights, per direction (search.do `fromFlightNumbers`/`retFlightNumbers`): each
   * a list of full flight numbers in flying order, upper case. Absent: any.
   */
  outFlights?: string[][];
  retFlights?: string[][];
}

/**
 * A flight number in one comparable form: carrier prefix added when missing, leading zeros dropped
 * ("0201" with XS → XS201, "XS0201" → XS201). Callers send either form.
 */
export function normalizeFlightNumber(carrier: string, flightNumber: string): string {
  const fn = flightNumber.toUpperCase();
  if (/^\d+$/.test(fn)) return `${carrier.toUpperCase()}${Number(fn)}`;
  const m = /^([A-Z0-9]{2})(\d+)$/.exec(fn);
  return m ? `${m[1]}${Number(m[2])}` : fn;
}

/**
 * A journey's flight numbers as SearchQuery's outFlights/retFlights name them ("XS101,XS205"): upper case, the
 * number without leading zeros ("XS0061" and "XS61" are one flight, as verify.do and getOffers.do read them; a
 * review found search.do's filters comparing them as text).
 */
export const journeyKey = (flightNumbers: readonly string[]) => flightNumbers.map((n) => normalizeFlightNumber('', n.trim())).join(',');

/** Shortest and longest change of flights in a one-stop connection (docs/decisions/0021). */
export const CONNECTION_MINUTES = { min: 60, max: 720 } as const;

export interface SeatMapSeat {
  column: string;
  occupied: boolean;
  /** IATA PADIS 9825 codes. */
  characteristics: string[];
  priceMinor: number;
  currency: string;
}

export interface SeatMapCabin {
  deck: 'Main' | 'Upper';
  cabinClass: number;
  columns: Array<{ designator: string; characteristics: 'A' | 'M' | 'W' }>;
  rows: { first: number; last: number };
  exitRows: Array<{ first: number; last: number }>;
  seatRows: Array<{ number: number; seats: SeatMapSeat[] }>;
}

/** Why an airline shows no seat map. */
export type SeatMapRefusal = 'airlineWithoutSeats' | 'routeWithoutSeats' | 'noFareFamily' | 'selectionFailed' | 'unknown';

/**
 * `version`: the version of the flight's seat inventory the map was read at (opaque; see
 * `BookingConnector.seatMapVersion`), or null when the airline cannot tell.
 */
export type SeatMapAnswer = { ok: true; cabins: SeatMapCabin[]; version: string | null } | { ok: false; reason: SeatMapRefusal; message: string };

export interface BaggageProduct {
  category: 'StandardCheckInBaggage' | 'CabinBaggage' | 'CabinBaggageUnderSeat' | 'CabinBaggageOverheadLocker';
  piece: number;
  weight: number;
  priceMinor: number;
  currency: string;
  segmentIndex: number;
  code: string;
  canPurchaseWithTicket: boolean;
  canPurchasePostTicket: boolean;
}

export type IfSeatOccupied = 'SIMILAR_SEAT' | 'STOP_SEAT' | 'STOP_TICKET';

export type RequestedAncillary =
  | { kind: 'seat'; paxRef: string; segmentIndex: number; seat: string; priceMinor: number; currency: string }
  | { kind: 'baggage'; paxRef: string; segmentIndex: number; code: string };

export interface BookingRequest {
  /** postbook's orderNo: a retried call with the same key returns the same booking. */
  idempotencyKey: string;
  clientId: string;
  carrier: string;
  segments: Array<{ flight: FlightRef; direction: 'out' | 'ret'; cabinClass: number; fareFamily: string | null }>;
  passengers: AirlinePassenger[];
  contact: { email: string; phone: string | null };
  price: ItineraryPrice;
  ancillaries: RequestedAncillary[];
  ifSeatOccupied: IfSeatOccupied;
}

export type SeatOutcome = { paxRef: string; segmentIndex: number; requested: string; assigned: string | null };

/**
 * 'seatTaken' (STOP_TICKET, or no similar seat), 'seatUnknown' (no such seat), 'soldOut', 'flightUnknown';
 * 'fareChanged' / 'seatPriceChanged': the airline's price now differs from the request's (the answer carries
 * the new one; nothing is booked); 'infantNotAllowed': the airline does not carry infants on this booking.
 */
export type BookingRefusal = 'seatTaken' | 'seatUnknown' | 'soldOut' | 'flightUnknown' | 'fareChanged' | 'seatPriceChanged' | 'infantNotAllowed';

/** A seat whose price changed: what the airline asks for it now. */
export type RepricedSeat = { paxRef: string; segmentIndex: number; seat: string; priceMinor: number; currency: string };

export type BookingAnswer =
  /** holdUntil: until when the airline holds the seats and price unpaid (null: the airline does not say). */
  | { ok: true; record: AirlineRecord; seats: SeatOutcome[]; holdUntil: Date | null }
  | { ok: false; reason: BookingRefusal; message: string; newPrice?: ItineraryPrice; newSeatPrices?: RepricedSeat[] };

/** The airline's side of the booking chain. Optional: a connector without it serves post-booking only. */
export interface BookingConnector {
  /**
   * Itineraries (non-stop and one-stop connections of one carrier), each priced in the airline's currency, of the
   * query's carriers and flights only (a connector may answer at most so many: it cuts after filtering).
   */
  search(carrier: string | null, q: SearchQuery, opts: CallOptions): Promise<PricedItinerary[]>;
  /** The airports a city or airport code stands for in this airline's view, or null when it does not know the code. */
  airportsOf(code: string): string[] | null;
  /**
   * Prices an itinerary (outbound then return flights) in a fare family (a flight's `fareFamily`; absent, or one
   * the flight does not sell: its lowest); null when a flight does not exist.
   */
  price(
    carrier: string,
    flights: Array<{ flight: FlightRef; direction: 'out' | 'ret'; fareFamily?: string | null }>,
    cabinClass: number,
    opts: CallOptions,
  ): Promise<PricedItinerary | null>;
  /** Optional: what a fare family includes; null when the airline publishes nothing for it. */
  fareFamilyTerms?(carrier: string, fareFamily: string): FareFamilyTerms | null;
  /** Seat map of one flight and cabin class, with seats sold so far. */
  seatMap(carrier: string, flight: FlightRef, cabinClass: number, fareFamily: string | null, opts: CallOptions): Promise<SeatMapAnswer>;
  /**
   * The current version of the flight's seat inventory: a seat map read at another version is stale. Every
   * seat sale, release or price change makes a new version, current before the call that made it returns.
   * Synchronous when the connector knows it without I/O; null when the airline cannot tell (nothing read
   * earlier may then be trusted).
   */
  seatMapVersion(carrier: string, flight: FlightRef): string | null | Promise<string | null>;
  baggage(carrier: string, segments: AirlineSegment[], currency: string): BaggageProduct[];
  /**
   * Optional: the same bags as `baggage`, asked of the airline live (getLuggage.do): it may time out or fail
   * (ConnectorError). Absent: callers use `baggage`.
   */
  luggage?(carrier: string, segments: AirlineSegment[], currency: string, opts: CallOptions): Promise<BaggageProduct[]>;
  /** Books (holds seats, no tickets): the record is OnHold. Idempotent on `idempotencyKey`. */
  book(req: BookingRequest, opts: CallOptions): Promise<BookingAnswer>;
  /**
   * Releases an unpaid (OnHold) booking: cancelled, its seats free again (their flights' seat inventory versions
   * bumped with the release). Idempotent: a Cancelled or unknown booking answers 'released'; a Ticketed one
   * 'ticketed' (nothing changes). Throws ConnectorError.
   */
  release(carrier: string, pnr: string, opts: CallOptions): Promise<'released' | 'ticketed'>;
  /**
   * Issues the tickets of an OnHold booking; idempotent (a Ticketed booking answers its record). A pass-through
   * card payment (`virtualCard`) is charged to `payment.card`; without it (the expiry sweep asking again after a
   * call that did not answer: the card is never stored) the airline answers only a payment it already took under
   * the key, and refuses (`rejected`) one it never received. A fare above `payment.limit` is refused (`rejected`).
   */
  issueTickets(carrier: string, pnr: string, payment: IssuePayment, opts: CallOptions): Promise<AirlineRecord>;
}

/** What pays a booking's tickets (pay.do; the expiry sweep's second ask). */
export interface IssuePayment {
  method: PaymentMethod;
  idempotencyKey: string;
  /** The caller's card, for `virtualCard` on pay.do only: handed to the airline and dropped, never stored or logged. */
  card?: PassThroughCard;
  /** The most the card may be charged (creditCard.paymentLimit), in the booking's currency, minor units. */
  limit?: { currency: string; minor: number };
}

/** A pass-through (virtual) card as pay.do received it, checked (Luhn, expiry, CVV 3–4 digits, holder names). */
export interface PassThroughCard {
  /** digits only */
  number: string;
  cvv: string;
  expiryMonth: number;
  /** four digits */
  expiryYear: number;
  holderFirstName: string;
  holderLastName: string;
  billing: { country: string | null; province: string | null; city: string | null; postCode: string | null; address: string | null };
  /** A multi-use card (creditCard.reusable); null when the caller did not say. */
  reusable: boolean | null;
}
