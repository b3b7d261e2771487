// The airline connector interface: the only way postbook talks to an airline. The sandbox connector is
// built in; a real one (NDC, a GDS) is another implementation registered for its carriers.
import type { CouponStatus, PassengerType, PaymentMethod } from '../store/schema.js';

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

export type ConnectorErrorKind = 'timeout' | 'unavailable' | 'rejected';

/** An airline call that failed. `retryable` tells workflows whether trying again can help. */
export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    readonly retryable: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

export type AirlineFeature = 'claims' | 'refunds' | 'voids' | 'seatSelection';

export interface AirlineConnector {
  readonly name: string;
  /** Carriers this connector answers for. */
  carriers(): string[];
  /** Whether the airline offers a post-booking feature (a real connector reads it from its contract). */
  supports(carrier: string, feature: AirlineFeature): boolean;
  /** The record, or null when the airline has no such PNR. Throws ConnectorError. */
  readRecord(carrier: string, pnr: string, opts: CallOptions): Promise<AirlineRecord | null>;
}

/** Routes each carrier to its connector. */
export class AirlineDirectory {
  private readonly byCarrier = new Map<string, AirlineConnector>();

  constructor(connectors: AirlineConnector[]) {
    for (const c of connectors) for (const carrier of c.carriers()) {
      if (this.byCarrier.has(carrier)) throw new Error(`carrier ${carrier} is served by two connectors`);
      this.byCarrier.set(carrier, c);
    }
  }

  forCarrier(carrier: string): AirlineConnector | null {
    return this.byCarrier.get(carrier) ?? null;
  }
}
