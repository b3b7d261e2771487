// The sandbox airline's booking side: schedule search, pricing, seat maps, bags, bookings and ticketing.
// Bookings made through postbook are rows of sandbox_bookings and their seats rows of sandbox_seat_sales
// (migration 0004), so they survive a restart and a seat is sold once even under concurrent orders.
import { randomInt } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  ConnectorError,
  type AirlinePassenger,
  type AirlineRecord,
  type AirlineSegment,
  type AirlineTicket,
  type BaggageProduct,
  type BookingAnswer,
  type BookingConnector,
  type BookingRequest,
  type CallOptions,
  type FareFamilyTerms,
  type FlightRef,
  type IssuePayment,
  type ItineraryPrice,
  type PaxFare,
  type PricedItinerary,
  type RepricedSeat,
  type SearchQuery,
  journeyKey,
  normalizeFlightNumber,
  type SeatMapAnswer,
  type SeatMapCabin,
  type SeatOutcome,
  CONNECTION_MINUTES,
} from '../connector.js';
import { airportsForCode } from './cities.js';
import { recordPrice } from '../record.js';
import { BoundedMap } from '../../bounded-map.js';
import type { Clock } from '../../clock.js';
import { toMinor } from '../../money/money.js';
import type { Database, PaymentMethod } from '../../store/schema.js';
import { DEFAULT_FARE_CURRENCY, LOCAL_FORMAT, segmentOfFlight, type ResolvedFlight, type SandboxBooking, type World } from './world.js';
import { DateTime } from 'luxon';
import type { WorldAirline, WorldBehaviour, WorldFlight } from './world-schema.js';
import { SeatInventory } from './seat-inventory.js';
import { percentOfMinor } from './refunds.js';
import { constraintOf, isUniqueViolation } from '../../store/errors.js';

type Behave = (b: WorldBehaviour, signal: AbortSignal) => Promise<void>;

/** Card numbers the sandbox airline declines (docs/world.md): a caller's test of pay.do's 411 with a card. */
export const DECLINED_CARDS: ReadonlySet<string> = new Set(['4000000000000002']);

/** A segment of a booking made through the chain: its flight's id and the local day it was booked for (since 2026-12-02). */
interface StoredSegment {
  flightId: string;
  /** The flight's scheduled local departure day when booked, yyyy-MM-dd, and its number and airports (absent in bookings stored before). */
  bookedDate?: string;
  flight?: { number: string; from: string; to: string };
  direction: 'out' | 'ret';
  cabinClass: number;
  fareFamily: string | null;
}

/** What sandbox_bookings.booking holds: enough to rebuild the record against the current world schedule. */
interface StoredBooking {
  carrier: string;
  pnr: string;
  status: 'OnHold' | 'Ticketed' | 'Cancelled';
  contact: { email: string; phone: string | null };
  passengers: AirlinePassenger[];
  segments: StoredSegment[];
  fares: Array<{ paxRef: string; currency: string; fareMinor: number; taxMinor: number }>;
  ancillaries: Array<{
    paxRef: string;
    segmentIndex: number;
    category: string;
    productCode: string;
    priceMinor: number;
    currency: string;
    seat: string | null;
    baggage: { piece: number; weight: number } | null;
  }>;
  seats: SeatOutcome[];
  tickets: Array<{ ticketNo: string; paxRef: string }>;
  issuedAt: string | null;
  paymentMethod: PaymentMethod | null;
  bookedBy: string;
  /** ISO instant until which the airline holds the unpaid booking (absent in bookings stored before it). */
  holdUntil?: string;
  /**
   * The segments as ticketed (their instants as ISO text; absent in bookings ticketed before 2026-12-06): the record
   * of a ticketed booking whose flight a world reload dropped shows it from here, the flight cancelled.
   */
  issuedSegments?: Array<Omit<AirlineSegment, 'depAt' | 'arrAt'> & { depAt: string; arrAt: string }>;
}

/** A ticketed booking's segment `i` (0-based) as it was ticketed, cancelled (the world no longer has its flight); null when not kept. */
function issuedSegment(stored: StoredBooking, i: number): AirlineSegment | null {
  const s = stored.issuedSegments?.[i];
  return s ? Object.assign({}, s, { depAt: new Date(s.depAt), arrAt: new Date(s.arrAt), scheduleStatus: 'cancelled' as const }) : null;
}

const DEFAULT_FARE: NonNullable<WorldFlight['fares']> = { currency: DEFAULT_FARE_CURRENCY, adult: { fare: 200, tax: 40 } };

/**
 * Whether the flights' fares are in one currency: an itinerary is priced as the sum of its flights' fares, so one
 * mixing currencies added yen to euros (a JPY flight out and a EUR flight back verified as 60000 JPY: found by a
 * review). Such an itinerary is not sold.
 */
const oneCurrency = (flights: readonly ResolvedFlight[]) => new Set(flights.map((f) => f.source.fares?.currency ?? DEFAULT_FARE.currency)).size <= 1;
const CABIN_FARE_FACTOR: Record<number, number> = { 1: 1, 2: 3, 3: 5, 4: 1.5 };
const DEFAULT_SEATS_FOR_SALE = 9;
/** How long an unpaid booking is held when the world does not say (plan §7: the original's 30 minutes). */
export const DEFAULT_HOLD_MINUTES = 30;
const SEAT = /^(\d+)([A-Z])$/;

export class SandboxBookingApi implements BookingConnector {
  constructor(
    private readonly world: World,
    private readonly db: Kysely<Database> | null,
    private readonly clock: Clock,
    private readonly behave: Behave,
    private readonly inventory: SeatInventory = new SeatInventory(null, false),
  ) {}

  // ---- schedule and prices ----

  async search(carrier: string | null, q: SearchQuery, opts: CallOptions): Promise<PricedItinerary[]> {
    const now = this.clock.now();
    const carriers = q.carriers?.length ? new Set(q.carriers) : null;
    const bookable = [...this.world.flights.values()].filter(
      (f) =>
        (carrier === null || f.carrier === carrier) &&
        (carriers === null || carriers.has(f.carrier)) &&
        f.status !== 'cancelled' &&
        f.current.dep.toJSDate() > now &&
        this.sellsCabin(f, q.cabinClass),
    );
    // The caller's flights before the cut to 50 combinations below (a review: a search naming two flights of 56
    // combinations found none)
    const wanted = (list: string[][] | undefined) => (list?.length ? new Set(list.map(journeyKey)) : null);
    const [outWanted, retWanted] = [wanted(q.outFlights), wanted(q.retFlights)];
    const only = (js: ResolvedFlight[][], keys: Set<string> | null) => (keys === null ? js : js.filter((j) => keys.has(journeyKey(j.map((f) => f.flightNumber)))));
    const outs = only(this.journeys(bookable, new Set(q.depAirports), new Set(q.arrAirports), q.depDate), outWanted);
    const rets = q.retDate ? only(this.journeys(bookable, new Set(q.arrAirports), new Set(q.depAirports), q.retDate), retWanted) : [];
    const combos: Array<{ flights: ResolvedFlight[]; directions: Array<'out' | 'ret'> }> = q.retDate
      ? outs.flatMap((o) =>
          rets
            .filter((r) => r[0]!.carrier === o[0]!.carrier && r[0]!.current.dep > o[o.length - 1]!.current.arr && oneCurrency([...o, ...r]))
            .map((r) => ({ flights: [...o, ...r], directions: [...o.map(() => 'out' as const), ...r.map(() => 'ret' as const)] })),
        )
      : outs.map((o) => ({ flights: o, directions: o.map(() => 'out' as const) }));
    for (const f of new Set(combos.flatMap((c) => c.flights).map((f) => f.carrier))) await this.behave(this.airline(f).behaviour ?? {}, opts.signal);
    return combos.slice(0, 50).flatMap((c) => {
      const lowest = this.priced(c.flights, q.cabinClass, c.directions);
      if (!q.allFareFamilies) return [lowest];
      // Every family all its flights sell, besides the lowest (which may mix families when they sell none in common).
      const lowestIn = (family: string) => lowest.segments.every((s) => s.fareFamily === family);
      const others = (lowest.fareFamilies ?? []).filter((family) => !lowestIn(family));
      return [lowest, ...others.map((family) => this.priced(c.flights, q.cabinClass, c.directions, c.flights.map(() => family)))];
    });
  }

  /**
   * One direction's journeys departing on `date` (airport-local): non-stop flights, then one-stop connections
   * of one carrier with a change of CONNECTION_MINUTES at the connecting airport (not back to the origin).
   */
  private journeys(flights: ResolvedFlight[], from: ReadonlySet<string>, to: ReadonlySet<string>, date: string): ResolvedFlight[][] {
    const onDate = flights.filter((f) => from.has(f.from) && f.current.dep.toFormat('yyyyMMdd') === date);
    const direct = onDate.filter((f) => to.has(f.to)).map((f) => [f]);
    const connecting = onDate
      .filter((f) => !to.has(f.to) && !from.has(f.to))
      .flatMap((first) =>
        flights
          .filter((second) => {
            if (second.carrier !== first.carrier || second.from !== first.to || !to.has(second.to) || !oneCurrency([first, second])) return false;
            const change = second.current.dep.diff(first.current.arr, 'minutes').minutes;
            return change >= CONNECTION_MINUTES.min && change <= CONNECTION_MINUTES.max;
          })
          .map((second) => [first, second]),
      );
    const depOf = (j: ResolvedFlight[]) => j[0]!.current.dep.toMillis();
    return [...direct, ...connecting.sort((a, b) => depOf(a) - depOf(b))];
  }

  airportsOf(code: string): string[] | null {
    return airportsForCode(this.world.cities, new Set(this.world.airports.keys()), code);
  }

  async price(
    carrier: string,
    flights: Array<{ flight: FlightRef; direction: 'out' | 'ret'; fareFamily?: string | null }>,
    cabinClass: number,
    opts: CallOptions,
  ): Promise<PricedItinerary | null> {
    const airline = this.airline(carrier);
    await this.behave(airline.behaviour ?? {}, opts.signal);
    const resolved: ResolvedFlight[] = [];
    const now = this.clock.now();
    for (const { flight } of flights) {
      const f = this.findFlight(flight);
      // a flight that has left is no longer sold, as search.do does not offer it (a routing or session outlives
      // departures: found by a review, verify.do then priced a flight two days gone)
      if (!f || f.status === 'cancelled' || f.current.dep.toJSDate() <= now || !this.sellsCabin(f, cabinClass)) return null;
      resolved.push(f);
    }
    // one currency per itinerary: its price is the sum of its flights' fares (search.do never combines others)
    if (!oneCurrency(resolved)) return null;
    // Each flight in the family asked for it (verify.do and order.do of a routing priced in it): the lowest
    // itinerary may mix families when its flights share none, as search.do priced it.
    return this.priced(resolved, cabinClass, flights.map((f) => f.direction), flights.map((f) => f.fareFamily ?? null));
  }

  /**
   * Whether the flight's aircraft has a cabin of the class (a review: business was sold at three times the fare on an
   * aircraft with economy only, and its seat map then failed). An aircraft the world does not describe sells any.
   */
  private sellsCabin(f: ResolvedFlight, cabinClass: number): boolean {
    const aircraft = this.aircraftOf(f);
    return !aircraft || aircraft.cabins.some((c) => c.cabinClass === cabinClass);
  }

  /** The world's aircraft of the flight's type, or undefined. */
  private aircraftOf(f: ResolvedFlight) {
    return this.world.raw.aircraft.find((a) => a.code === f.source.aircraft);
  }

  fareFamilyTerms(carrier: string, fareFamily: string): FareFamilyTerms | null {
    const t = this.airline(carrier).fareFamilyTerms?.find((x) => x.name === fareFamily);
    if (!t) return null;
    return { name: t.name, baggage: (t.baggage ?? []).map((b) => ({ category: b.category, piece: b.piece, weight: b.weight, size: b.size ?? null })), seat: t.seat ?? false, meal: t.meal ?? false };
  }

  /** Fare families sold on every one of the flights, in the first flight's order (lowest price first). */
  private commonFamilies(flights: ResolvedFlight[]): string[] {
    const [first, ...rest] = flights.map((f) => f.source.fareFamilies ?? ['STANDARD']);
    return (first ?? []).filter((name) => rest.every((list) => list.includes(name)));
  }

  /**
   * `families[i]`: the fare family flight i is priced in when it sells it; else (or absent) its lowest. Per flight,
   * not one for the itinerary (a review: a routing mixing its flights' lowest families was re-priced in the first
   * flight's family at verify.do and order.do — never verifiable, and booked at that family's fare).
   */
  private priced(flights: ResolvedFlight[], cabinClass: number, directions?: Array<'out' | 'ret'>, families: ReadonlyArray<string | null> = []): PricedItinerary {
    const first = flights[0]!;
    const airline = this.airline(first.carrier);
    const common = this.commonFamilies(flights);
    const chosen = flights.map((f, i) => {
      const sold = f.source.fareFamilies ?? ['STANDARD'];
      const wanted = families[i] ?? null;
      return wanted !== null && sold.includes(wanted) ? wanted : (sold[0] ?? null);
    });
    // A flight's fares are what its lowest fare family costs; another family costs its fareFactor times that.
    const factors = flights.map((f, i) =>
      chosen[i] === null || (f.source.fareFamilies ?? ['STANDARD'])[0] === chosen[i] ? 1 : (airline.fareFamilyTerms?.find((t) => t.name === chosen[i])?.fareFactor ?? 1),
    );
    const currency = first.source.fares?.currency ?? DEFAULT_FARE.currency;
    const sum = (pick: (f: ResolvedFlight, i: number) => PaxFare): PaxFare =>
      flights.reduce((acc, f, i) => {
        const p = pick(f, i);
        return { fareMinor: acc.fareMinor + p.fareMinor, taxMinor: acc.taxMinor + p.taxMinor };
      }, { fareMinor: 0, taxMinor: 0 });
    const price: ItineraryPrice = {
      currency,
      adult: sum((f, i) => this.paxFare(f, 'adult', cabinClass, factors[i])),
      child: sum((f, i) => this.paxFare(f, 'child', cabinClass, factors[i])),
      infant: sum((f, i) => this.paxFare(f, 'infant', cabinClass, factors[i])),
      // in the fares' currency: the world's loader refuses a flight priced in another (world.ts)
      feeMinor: airline.bookingFee ? toMinor(airline.bookingFee.amount, currency) : 0,
      feeMode: airline.bookingFee?.mode ?? 'PER_PAX',
    };
    let sawRet = false;
    const segments = flights.map((f, i) => {
      const direction = directions?.[i] ?? (i > 0 && f.from === first.to ? 'ret' : sawRet ? 'ret' : 'out');
      sawRet ||= direction === 'ret';
      return segmentOfFlight(f, i + 1, direction, cabinClass, chosen[i]!);
    });
    return {
      carrier: first.carrier,
      segments,
      price,
      seatsLeft: Math.min(...flights.map((f) => f.source.seatsForSale ?? DEFAULT_SEATS_FOR_SALE)),
      ancillarySupported: airline.supports?.seatSelection !== false,
      fareFamilies: common,
      ...(airline.infantsAllowed === false ? { infantsAllowed: false } : {}),
    };
  }

  private paxFare(f: ResolvedFlight, type: 'adult' | 'child' | 'infant', cabinClass: number, familyFactor = 1): PaxFare {
    const fares = f.source.fares ?? DEFAULT_FARE;
    const factor = (CABIN_FARE_FACTOR[cabinClass] ?? 1) * familyFactor;
    const adult = fares.adult;
    const given = type === 'adult' ? adult : fares[type];
    const tax = given ? given.tax : adult.tax;
    // In minor units, rounded once (half-up): a fare of a three-decimal currency (KWD 10.125) was rounded to two
    // decimals first (a review). A child without fares of its own pays 75 % of the adult fare, an infant 10 %; the
    // percent is the product of decimal factors, read without the float's noise (1.5 × 1.3 = 1.9500000000000002).
    const percent = Number((factor * (given ? 100 : type === 'child' ? 75 : 10)).toPrecision(12));
    return { fareMinor: percentOfMinor(toMinor(given ? given.fare : adult.fare, fares.currency), percent, fares.currency), taxMinor: toMinor(tax, fares.currency) };
  }

  // ---- seats and bags ----

  async seatMap(carrier: string, ref: FlightRef, cabinClass: number, fareFamily: string | null, opts: CallOptions): Promise<SeatMapAnswer> {
    const airline = this.airline(carrier);
    await this.behave(airline.behaviour ?? {}, opts.signal);
    if (airline.supports?.seatSelection === false) return { ok: false, reason: 'airlineWithoutSeats', message: `airline ${carrier} does not offer seat selection` };
    // The world's generation read with the flight, before the inventory read's await: a world reloaded meanwhile
    // must not tag this (the old world's) map with its generation, or the map would be served as the new world's
    // until the flight's next sale (found by a review: a seat the reload made occupied shown free).
    const generation = worldGeneration(this.world);
    const f = this.findFlight(ref);
    if (!f) return { ok: false, reason: 'selectionFailed', message: `flight ${ref.flightNumber} on ${ref.depDate} not found` };
    if (airline.routesWithoutSeatSelection?.includes(`${f.from}-${f.to}`)) {
      return { ok: false, reason: 'routeWithoutSeats', message: `airline ${carrier} offers no seat selection on ${f.from}-${f.to}` };
    }
    if (fareFamily === null || (f.source.fareFamilies?.length ?? 1) === 0) {
      return { ok: false, reason: 'noFareFamily', message: 'fare family empty and no lowest-price fare family configured' };
    }
    if (f.source.seatMapBehaviour === 'selectionFailed') return { ok: false, reason: 'selectionFailed', message: 'the airline could not produce a seat map' };
    if (f.source.seatMapBehaviour === 'unknownError') return { ok: false, reason: 'unknown', message: 'the airline answered with an unknown error' };
    const { cabins, version } = await this.cabinsOf(f, cabinClass);
    if (cabins.length === 0) return { ok: false, reason: 'selectionFailed', message: `no cabin of class ${cabinClass} on this aircraft` };
    return { ok: true, cabins, version: version === null ? null : `${generation}:${version}` };
  }

  /**
   * The version a seat map is read at: the world's generation (a reloaded world's flights may differ in their
   * occupied seats, prices, aircraft) and the flight's seat inventory version (every sale, release, void).
   */
  seatMapVersion(carrier: string, ref: FlightRef): string | null | Promise<string> {
    const f = this.flightOfRef(carrier, ref);
    if (!f) return null; // an unknown flight has no map to be stale
    const world = worldGeneration(this.world);
    // Without books the seats never change.
    if (!this.db) return `${world}:static`;
    const seats = this.inventory.current(f.saleKey);
    return typeof seats === 'string' ? `${world}:${seats}` : seats.then((v) => `${world}:${v}`);
  }

  /** The cabins of a class with the seats sold so far, and the inventory version they were read at. */
  private async cabinsOf(f: ResolvedFlight, cabinClass: number, db: Kysely<Database> | null = this.db): Promise<{ cabins: SeatMapCabin[]; version: string | null }> {
    const aircraft = this.aircraftOf(f);
    if (!aircraft) return { cabins: [], version: null };
    const { sold, version } = db ? await this.inventory.read(db, f.saleKey) : { sold: [], version: 'static' };
    const taken = new Set([...(f.source.occupiedSeats ?? []), ...f.heldSeats, ...sold]);
    const currency = f.source.fares?.currency ?? DEFAULT_FARE.currency;
    const cabins = aircraft.cabins
      .filter((c) => c.cabinClass === cabinClass)
      .map((c) => {
        const missing = new Set(c.missingSeats ?? []);
        const exit = (row: number) => (c.exitRows ?? []).some((r) => row >= r.first && row <= r.last);
        const seatRows: SeatMapCabin['seatRows'] = [];
        for (let row = c.rows.first; row <= c.rows.last; row++) {
          const seats = c.columns
            .filter((col) => !missing.has(`${row}${col.designator}`))
            .map((col) => {
              // the column's W, A or M as the original's sample map writes its seats (M middle; '9' until 2026-12-02)
              const chars: string[] = [col.characteristics];
              if (exit(row)) chars.push('E', 'IE');
              if (c.extraLegRoomRows?.includes(row)) chars.push('L');
              if (row === c.rows.first && !exit(row)) chars.push('I');
              const price = f.source.seatPrices?.find(
                (p) => row >= p.rows.first && row <= p.rows.last && (!p.columns || p.columns.includes(col.designator)),
              );
              return {
                column: col.designator,
                occupied: taken.has(`${row}${col.designator}`),
                characteristics: chars,
                priceMinor: price ? toMinor(price.price, price.currency) : 0,
                currency: price?.currency ?? currency,
              };
            });
          if (seats.length > 0) seatRows.push({ number: row, seats });
        }
        return { deck: c.deck === 'Main' ? ('Main' as const) : ('Upper' as const), cabinClass: c.cabinClass, columns: c.columns, rows: c.rows, exitRows: c.exitRows ?? [], seatRows };
      });
    return { cabins, version };
  }

  baggage(carrier: string, segments: AirlineSegment[], currency: string): BaggageProduct[] {
    this.airline(carrier);
    return segments.flatMap((s) => {
      const code = (category: string) => `BAG_${category}_${s.index}_${s.carrier}_${s.depAirport}_${s.arrAirport}`;
      return [
        { category: 'StandardCheckInBaggage' as const, piece: 1, weight: 23, priceMinor: toMinor(35, currency), currency, segmentIndex: s.index, code: code('StandardCheckInBaggage'), canPurchaseWithTicket: true, canPurchasePostTicket: true },
        { category: 'CabinBaggageOverheadLocker' as const, piece: 1, weight: 7, priceMinor: toMinor(15, currency), currency, segmentIndex: s.index, code: code('CabinBaggageOverheadLocker'), canPurchaseWithTicket: true, canPurchasePostTicket: false },
      ];
    });
  }

  async luggage(carrier: string, segments: AirlineSegment[], currency: string, opts: CallOptions): Promise<BaggageProduct[]> {
    await this.behave(this.airline(carrier).behaviour ?? {}, opts.signal);
    return this.baggage(carrier, segments, currency);
  }

  // ---- bookings ----

  async book(req: BookingRequest, opts: CallOptions): Promise<BookingAnswer> {
    const db = this.books();
    const airline = this.airline(req.carrier);
    await this.behave(airline.behaviour ?? {}, opts.signal);
    const again = await db.selectFrom('sandbox_bookings').select('booking').where('booking_key', '=', req.idempotencyKey).executeTakeFirst();
    if (again) {
      const stored = again.booking as StoredBooking;
      return { ok: true, record: await this.recordOf(stored), seats: stored.seats, holdUntil: stored.holdUntil ? new Date(stored.holdUntil) : null };
    }
    const flights: ResolvedFlight[] = [];
    const now = this.clock.now();
    for (const s of req.segments) {
      const f = this.findFlight(s.flight);
      if (!f || f.status === 'cancelled') return { ok: false, reason: 'flightUnknown', message: `flight ${s.flight.flightNumber} on ${s.flight.depDate} not found` };
      if (f.current.dep.toJSDate() <= now) return { ok: false, reason: 'flightUnknown', message: `flight ${s.flight.flightNumber} on ${s.flight.depDate} has departed` };
      flights.push(f);
    }
    const seated = req.passengers.filter((p) => p.type !== 'INF').length;
    if (flights.some((f) => (f.source.seatsForSale ?? DEFAULT_SEATS_FOR_SALE) < seated)) return { ok: false, reason: 'soldOut', message: 'not enough seats left' };
    if (airline.infantsAllowed === false && req.passengers.some((p) => p.type === 'INF')) {
      return { ok: false, reason: 'infantNotAllowed', message: `airline ${req.carrier} does not carry infants` };
    }
    const repriced = await this.repricing(req, flights);
    if (repriced) return repriced;

    let pnr = this.freshPnr(req.carrier);
    const bags = new Map<string, BaggageProduct>();
    for (const b of this.baggage(req.carrier, req.segments.map((s, i) => segmentOfFlight(flights[i]!, i + 1, s.direction, s.cabinClass, s.fareFamily)), req.price.currency)) {
      bags.set(`${b.segmentIndex}/${b.code}`, b);
    }
    const stored: StoredBooking = {
      carrier: req.carrier,
      pnr,
      status: 'OnHold',
      contact: req.contact,
      passengers: req.passengers,
      segments: req.segments.map((s, i) => ({
        flightId: flights[i]!.id,
        bookedDate: flights[i]!.scheduled.dep.toFormat('yyyy-MM-dd'),
        flight: { number: flights[i]!.flightNumber, from: flights[i]!.from, to: flights[i]!.to },
        direction: s.direction,
        cabinClass: s.cabinClass,
        fareFamily: s.fareFamily,
      })),
      fares: req.passengers.map((p) => {
        const f = p.type === 'ADT' ? req.price.adult : p.type === 'CHD' ? req.price.child : req.price.infant;
        return { paxRef: p.ref, currency: req.price.currency, fareMinor: f.fareMinor, taxMinor: f.taxMinor };
      }),
      ancillaries: [],
      seats: [],
      tickets: [],
      issuedAt: null,
      paymentMethod: null,
      bookedBy: req.clientId,
      // held at most until the first flight leaves: a booking is not ticketed for a flight that has gone (found by a
      // review: an order made ten minutes before departure was paid and ticketed after it)
      holdUntil: new Date(Math.min(now.getTime() + (airline.holdMinutes ?? DEFAULT_HOLD_MINUTES) * 60_000, ...flights.map((f) => f.current.dep.toMillis()))).toISOString(),
    };
    for (const a of req.ancillaries) {
      if (a.kind !== 'baggage') continue;
      const bag = bags.get(`${a.segmentIndex}/${a.code}`);
      if (!bag) return { ok: false, reason: 'seatUnknown', message: `no baggage product ${a.code}` };
      stored.ancillaries.push({ paxRef: a.paxRef, segmentIndex: a.segmentIndex, category: bag.category, productCode: bag.code, priceMinor: bag.priceMinor, currency: bag.currency, seat: null, baggage: { piece: bag.piece, weight: bag.weight } });
    }

    // Seats: every requested seat must exist; a taken one follows ifSeatOccupied. All in one transaction, so
    // STOP_TICKET (or no similar seat) sells nothing.
    class Refused extends Error {
      constructor(readonly answer: BookingAnswer) {
        super('refused');
      }
    }
    const sold = new Set<string>();
    const bumped = new Map<string, number>();
    const baggageOnly = stored.ancillaries.length;
    for (let attempt = 1; ; attempt++) {
      try {
        await db.transaction().execute(async (trx) => {
          for (const a of req.ancillaries) {
            if (a.kind !== 'seat') continue;
            const f = flights[a.segmentIndex - 1];
            const seg = req.segments[a.segmentIndex - 1];
            if (!f || !seg) throw new Refused({ ok: false, reason: 'seatUnknown', message: `segment ${a.segmentIndex} is not in the booking` });
            const { cabins } = await this.cabinsOf(f, seg.cabinClass, trx);
            const wanted = findSeat(cabins, a.seat);
            if (!wanted) throw new Refused({ ok: false, reason: 'seatUnknown', message: `seat ${a.seat} does not exist on ${f.flightNumber}` });
            const key = f.saleKey;
            const sell = async (seat: string) => {
              if ((f.source.occupiedSeats ?? []).includes(seat) || f.heldSeats.has(seat)) return false;
              const row = await trx
                .insertInto('sandbox_seat_sales')
                .values({ flight_key: key, seat, carrier: req.carrier, pnr, sold_at: now })
                .onConflict((oc) => oc.doNothing())
                .returning('seat')
                .executeTakeFirst();
              if (row !== undefined) sold.add(key);
              return row !== undefined;
            };
            let assigned: string | null = null;
            if (!wanted.seat.occupied && (await sell(a.seat))) assigned = a.seat;
            else if (req.ifSeatOccupied === 'STOP_TICKET') throw new Refused({ ok: false, reason: 'seatTaken', message: `seat ${a.seat} is no longer available` });
            else if (req.ifSeatOccupied === 'SIMILAR_SEAT') {
              for (const candidate of similarSeats(wanted.cabin, wanted.row, wanted.seat)) {
                if (await sell(candidate.name)) {
                  assigned = candidate.name;
                  break;
                }
              }
              if (!assigned) throw new Refused({ ok: false, reason: 'seatTaken', message: `seat ${a.seat} is no longer available and no similar seat is free` });
            }
            stored.seats.push({ paxRef: a.paxRef, segmentIndex: a.segmentIndex, requested: a.seat, assigned });
            if (assigned) {
              stored.ancillaries.push({
                paxRef: a.paxRef,
                segmentIndex: a.segmentIndex,
                category: 'Seat',
                productCode: `SCI_SEAT_${assigned}_${f.carrier}_${f.from}_${f.to}`,
                // the price the caller was shown for the seat it asked for (a similar seat never costs more)
                priceMinor: a.priceMinor,
                currency: a.currency,
                seat: assigned,
                baggage: null,
              });
            }
          }
          await trx
            .insertInto('sandbox_bookings')
            .values({ carrier: req.carrier, pnr, booking_key: req.idempotencyKey, status: 'OnHold', booking: JSON.stringify(stored), created_at: now, updated_at: now })
            .execute();
          // Every flight with a seat sold gets a new inventory version, committed with the sale (in key order,
          // so two orders on the same flights lock their version rows in the same order: no deadlock).
          for (const key of [...sold].sort()) bumped.set(key, await this.inventory.bump(trx, key));
        });
        for (const [key, version] of bumped) this.inventory.committed(key, version);
        break;
      } catch (err) {
        if (err instanceof Refused) return err.answer;
        // The PNR another booking of this carrier took meanwhile (six random characters: ~5 % likely by 10⁴ stored
        // bookings; a review): the whole booking again under a new one, nothing of this attempt kept.
        if (isUniqueViolation(err) && constraintOf(err) === 'sandbox_bookings_pkey' && attempt < 5) {
          stored.pnr = pnr = this.freshPnr(req.carrier);
          stored.seats = [];
          stored.ancillaries.length = baggageOnly;
          sold.clear();
          bumped.clear();
          continue;
        }
        // The same booking (its idempotency key) made by a concurrent call: its answer.
        if (isUniqueViolation(err) && constraintOf(err) === 'sandbox_bookings_booking_key_key') return this.book(req, opts);
        throw err;
      }
    }
    return { ok: true, record: await this.recordOf(stored), seats: stored.seats, holdUntil: new Date(stored.holdUntil!) };
  }

  /**
   * The price the airline books at, against the request's: the flights' fares (and seat prices) now, plus a
   * flight's `priceChangeAfterVerify`. A fare that differs for a passenger type of the booking: 'fareChanged'
   * with the new price; a seat whose price differs: 'seatPriceChanged' with every such seat's new price.
   */
  private async repricing(req: BookingRequest, flights: ResolvedFlight[]): Promise<BookingAnswer | null> {
    const cabinClass = req.segments[0]?.cabinClass ?? 1;
    // In the fare family booked (price() answered that family's fares at verify).
    const now = this.priced(flights, cabinClass, req.segments.map((s) => s.direction), req.segments.map((s) => s.fareFamily)).price;
    const fareDelta = flights.reduce((sum, f) => sum + toMinor(f.source.priceChangeAfterVerify?.fare ?? 0, now.currency), 0);
    const add = (p: PaxFare): PaxFare => ({ fareMinor: Math.max(0, p.fareMinor + fareDelta), taxMinor: p.taxMinor });
    const booked: ItineraryPrice = Object.assign({}, now, { adult: add(now.adult), child: add(now.child), infant: add(now.infant) });
    const types = new Set(req.passengers.map((p) => (p.type === 'ADT' ? 'adult' : p.type === 'CHD' ? 'child' : 'infant')));
    const differs = [...types].some((t) => booked[t].fareMinor !== req.price[t].fareMinor || booked[t].taxMinor !== req.price[t].taxMinor);
    if (differs || booked.currency !== req.price.currency) {
      return { ok: false, reason: 'fareChanged', message: 'the fare changed since it was verified', newPrice: Object.assign({}, booked, { feeMinor: req.price.feeMinor, feeMode: req.price.feeMode }) };
    }
    const seats: RepricedSeat[] = [];
    for (const a of req.ancillaries) {
      if (a.kind !== 'seat') continue;
      const f = flights[a.segmentIndex - 1];
      const seg = req.segments[a.segmentIndex - 1];
      if (!f || !seg) continue;
      const found = findSeat((await this.cabinsOf(f, seg.cabinClass)).cabins, a.seat);
      if (!found) continue;
      const price = Math.max(0, found.seat.priceMinor + toMinor(f.source.priceChangeAfterVerify?.seat ?? 0, found.seat.currency));
      if (price !== a.priceMinor || found.seat.currency !== a.currency) seats.push({ paxRef: a.paxRef, segmentIndex: a.segmentIndex, seat: a.seat, priceMinor: price, currency: found.seat.currency });
    }
    if (seats.length > 0) return { ok: false, reason: 'seatPriceChanged', message: `the price of seat ${seats.map((x) => x.seat).join(', ')} changed`, newSeatPrices: seats };
    return null;
  }

  async release(carrier: string, pnr: string, opts: CallOptions): Promise<'released' | 'ticketed'> {
    const db = this.books();
    await this.behave(this.airline(carrier).behaviour ?? {}, opts.signal);
    const bumped = new Map<string, number>();
    const outcome = await db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('sandbox_bookings').select(['booking', 'status']).where('carrier', '=', carrier).where('pnr', '=', pnr).forUpdate().executeTakeFirst();
      if (!row || row.status === 'Cancelled') return 'released' as const;
      if (row.status === 'Ticketed') return 'ticketed' as const;
      const stored = row.booking as StoredBooking;
      stored.status = 'Cancelled';
      await trx.updateTable('sandbox_bookings').set({ status: 'Cancelled', booking: JSON.stringify(stored), updated_at: this.clock.now() }).where('carrier', '=', carrier).where('pnr', '=', pnr).execute();
      const freed = await trx.deleteFrom('sandbox_seat_sales').where('carrier', '=', carrier).where('pnr', '=', pnr).returning('flight_key').execute();
      // The freed seats' flights get a new inventory version in the same transaction (in key order, as sales do).
      for (const key of [...new Set(freed.map((f) => f.flight_key))].sort()) bumped.set(key, await this.inventory.bump(trx, key));
      return 'released' as const;
    });
    for (const [key, version] of bumped) this.inventory.committed(key, version);
    return outcome;
  }

  async issueTickets(carrier: string, pnr: string, payment: IssuePayment, opts: CallOptions): Promise<AirlineRecord> {
    const db = this.books();
    await this.behave(this.airline(carrier).behaviour ?? {}, opts.signal);
    const row = await db.selectFrom('sandbox_bookings').select(['booking', 'status']).where('carrier', '=', carrier).where('pnr', '=', pnr).executeTakeFirst();
    if (!row) throw new ConnectorError('rejected', false, `sandbox airline ${carrier} has no booking ${pnr}`);
    const stored = row.booking as StoredBooking;
    if (stored.status === 'Ticketed') return this.recordOf(stored);
    if (stored.status !== 'OnHold') throw new ConnectorError('rejected', false, `booking ${pnr} is ${stored.status}`);
    if (payment.method === 'virtualCard') {
      // Asked again without the card (the expiry sweep after a call that did not answer): no card payment was
      // taken for this booking, and none is taken without its card.
      if (!payment.card) throw new ConnectorError('rejected', false, `booking ${pnr}: no card payment was received, and a card payment needs its card`);
      if (DECLINED_CARDS.has(payment.card.number)) throw new ConnectorError('rejected', false, 'the card was declined');
    }
    const now = this.clock.now();
    for (const [i, s] of stored.segments.entries()) {
      const seg = this.bookedSegment(s, i + 1);
      if (seg && seg.depAt <= now) throw new ConnectorError('rejected', false, `booking ${pnr}: flight ${seg.flightNumber} has departed`);
    }
    stored.status = 'Ticketed';
    stored.issuedAt = now.toISOString();
    stored.paymentMethod = payment.method;
    // 997 and ten digits of one sequence: unique across processes and restarts (migration 0035)
    const { rows: numbers } = await sql<{ n: string }>`select nextval('sandbox_ticket_numbers')::text as n from generate_series(1, ${stored.passengers.length})`.execute(db);
    stored.tickets = stored.passengers.map((p, i) => ({ ticketNo: `997${numbers[i]!.n.padStart(10, '0')}`, paxRef: p.ref }));
    // The answer made before the tickets are: one that cannot be made (a world reload dropped its flight:
    // `unavailable`) then issued nothing, as that kind promises (a review saw the tickets issued and the caller
    // told "nothing was charged").
    const answer = await this.recordOf(stored, false);
    // The itinerary as ticketed, kept with the tickets: a reload that drops one of its flights later does not make
    // the record unbuildable (found by a review: the stale-payment sweep then put a ticketed order back to unpaid).
    stored.issuedSegments = answer.segments.map((x) => Object.assign({}, x, { depAt: x.depAt.toISOString(), arrAt: x.arrAt.toISOString() }));
    if (payment.limit) {
      const price = recordPrice(answer);
      if (!price || price.currency !== payment.limit.currency || price.minor > payment.limit.minor) {
        throw new ConnectorError('rejected', false, `the booking's price is above the card's payment limit (${payment.limit.currency})`);
      }
    }
    // Only an OnHold booking is ticketed: two concurrent payments issue one set of tickets.
    const done = await db
      .updateTable('sandbox_bookings')
      .set({ status: 'Ticketed', booking: JSON.stringify(stored), updated_at: now })
      .where('carrier', '=', carrier)
      .where('pnr', '=', pnr)
      .where('status', '=', 'OnHold')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return this.issueTickets(carrier, pnr, payment, opts);
    return answer;
  }

  /**
   * Frees every seat a booking holds (a void): in one transaction with a new inventory version of each
   * flight concerned, so a seat map cached at an older version is stale. Answers how many seats were freed
   * (0 when none are left: a repeated release changes nothing).
   */
  async releaseSeats(carrier: string, pnr: string): Promise<number> {
    const db = this.books();
    const bumped = new Map<string, number>();
    let freed = 0;
    await db.transaction().execute(async (trx) => {
      const rows = await trx.deleteFrom('sandbox_seat_sales').where('carrier', '=', carrier).where('pnr', '=', pnr).returning('flight_key').execute();
      freed = rows.length;
      for (const key of [...new Set(rows.map((r) => r.flight_key))].sort()) bumped.set(key, await this.inventory.bump(trx, key));
    });
    for (const [key, version] of bumped) this.inventory.committed(key, version);
    return freed;
  }

  /**
   * Stored bookings as last read, by `carrier/pnr`, with the row version they were read at. Every read still
   * asks the store for the row's version (one primary-key read), so a change made by any process — another
   * API process or worker on PostgreSQL — shows at once; a TTL would have let a ticketing stay unseen for a
   * while. What the cache saves is the document's transfer and parse and the record's rebuild, and it keeps one
   * SandboxBooking object per version, which the connector and extractPnr.do cache their answers by.
   */
  private readonly stored = new BoundedMap<string, { xmin: string; updatedAt: Date; generation: number; booking: SandboxBooking }>(10_000);

  /** A booking made through postbook, as the connector's world bookings look; one object per row version. */
  async findStored(carrier: string, pnr: string): Promise<SandboxBooking | undefined> {
    if (!this.db) return undefined;
    const key = `${carrier}/${pnr}`;
    // A record is built from the world's flights (their times, airports): one kept from before a world reload is
    // built again (found by a review: extractPnr.do and claims kept the schedule the reload had changed).
    const generation = worldGeneration(this.world);
    const kept = this.stored.get(key);
    const known = kept?.generation === generation ? kept : undefined;
    // The row's version is its xmin (a new one at every UPDATE) and, against xid wrap-around, updated_at too.
    // The document comes along only when the row is not the version known here.
    const row = await this.db
      .selectFrom('sandbox_bookings')
      .select([
        sql<string>`xmin::text`.as('xmin'),
        'updated_at',
        sql<unknown>`case when xmin::text = ${known?.xmin ?? null} and updated_at = ${known?.updatedAt ?? null} then null else booking end`.as('booking'),
      ])
      .where('carrier', '=', carrier)
      .where('pnr', '=', pnr)
      .executeTakeFirst();
    if (!row) {
      this.stored.delete(key);
      return undefined;
    }
    if (known && row.booking === null) return known.booking;
    const stored = row.booking as StoredBooking;
    const record = await this.recordOf(stored);
    const booking: SandboxBooking = { record, behaviour: {}, refundBehaviour: {}, issuedAt: stored.issuedAt ? new Date(stored.issuedAt) : null, note: null };
    this.stored.set(key, { xmin: row.xmin, updatedAt: row.updated_at, generation, booking });
    return booking;
  }

  /**
   * A stored booking's segment on the day it was booked. The world's relative times are resolved again at every start
   * and reload, so the flight id it was booked on may name another day since (a review: after a restart the next day
   * the airline's record moved a day while the order kept its own, and refunds answered 8041): the same flight of its
   * booked day when the world has one (a daily flight's repeat), else its flight moved back to that day, local times
   * kept. null when the world no longer has the flight.
   */
  private bookedSegment(s: StoredSegment, index: number): AirlineSegment | null {
    const f = this.world.flights.get(s.flightId);
    const segment = (flight: ResolvedFlight) => segmentOfFlight(flight, index, s.direction, s.cabinClass, s.fareFamily);
    if (f && (!s.bookedDate || f.scheduled.dep.toFormat('yyyy-MM-dd') === s.bookedDate)) return segment(f);
    if (!s.bookedDate) return null;
    const named = s.flight ?? (f ? { number: f.flightNumber, from: f.from, to: f.to } : null);
    if (!named) return null;
    // the same flight on the booked day: a repeat of the booked flight's own entry first, then any of its number
    let sameNumber: ResolvedFlight | null = null;
    for (const other of this.world.flights.values()) {
      if (other.flightNumber !== named.number || other.from !== named.from || other.to !== named.to || other.scheduled.dep.toFormat('yyyy-MM-dd') !== s.bookedDate) continue;
      if (f && other.source === f.source) return segment(other);
      sameNumber ??= other;
    }
    if (sameNumber) return segment(sameNumber);
    if (!f) return null;
    const days = Math.round(DateTime.fromISO(s.bookedDate, { zone: 'UTC' }).diff(DateTime.fromISO(f.scheduled.dep.toFormat('yyyy-MM-dd'), { zone: 'UTC' }), 'days').days);
    return shiftedSegment(segment(f), days);
  }

  /**
   * The airline's record of a stored booking, its segments built from the world's flights. A ticketed booking's flight
   * that the world no longer has is shown as ticketed (`issuedSegments`), cancelled: the tickets exist whatever the
   * schedule became. Unbuildable otherwise: `unavailable`, which promises nothing was issued unless the booking was
   * (`issued`; one ticketed before its segments were kept), then retryable — a caller must not read it as a refusal to
   * ticket (the stale-payment sweep would put a ticketed order back to unpaid).
   */
  private async recordOf(stored: StoredBooking, issued = stored.status === 'Ticketed'): Promise<AirlineRecord> {
    const segments = stored.segments.map((s, i) => {
      const seg = this.bookedSegment(s, i + 1) ?? (issued ? issuedSegment(stored, i) : null);
      if (!seg) throw new ConnectorError('unavailable', issued, `booking ${stored.pnr} names flight ${s.flightId}, which the world no longer has`);
      return seg;
    });
    const issuedAt = stored.issuedAt ? new Date(stored.issuedAt) : null;
    const tickets: AirlineTicket[] = stored.tickets.map((t) => {
      const fare = stored.fares.find((f) => f.paxRef === t.paxRef)!;
      return {
        ticketNo: t.ticketNo,
        paxRef: t.paxRef,
        currency: fare.currency,
        fareMinor: fare.fareMinor,
        taxMinor: fare.taxMinor,
        issuedAt,
        taxStatusConfirmed: true,
        coupons: segments.map((s) => ({ segmentIndex: s.index, status: 'OPEN_FOR_USE' as const })),
        ancillaries: stored.ancillaries
          .filter((a) => a.paxRef === t.paxRef)
          .map((a) => {
            const m = a.seat ? SEAT.exec(a.seat) : null;
            return {
              kind: 'inflow' as const,
              category: a.category,
              segmentIndex: a.segmentIndex,
              productCode: a.productCode,
              currency: a.currency,
              priceMinor: a.priceMinor,
              postOrderNo: null,
              baggage: a.baggage ? Object.assign({}, a.baggage, { size: null, isAllWeight: false }) : null,
              seat: m ? { row: m[1] as string, column: m[2] as string } : null,
            };
          }),
      };
    });
    return {
      carrier: stored.carrier,
      pnr: stored.pnr,
      status: stored.status,
      contact: { email: stored.contact.email, phone: stored.contact.phone, companyName: null },
      passengers: structuredClone(stored.passengers),
      segments,
      tickets,
      paymentMethod: stored.paymentMethod,
      bookedByClient: stored.bookedBy,
    };
  }

  /** Flights by carrier and number with their departure dates, built once per world (a reload replaces its flights). */
  private flightIndex: Map<string, Array<{ f: ResolvedFlight; dates: [string, string] }>> | null = null;
  private flightIndexOf: World['flights'] | null = null;

  /**
   * findFlight of `ref` as `carrier`'s, kept per frozen reference object for the world's flights it was found in: a
   * seat map request's plan asks with the same frozen object every time (src/booking/seat-availability.ts), once per
   * answer; a reloaded world's flights are looked up again. Unfrozen references are looked up each time.
   */
  private flightOfRef(carrier: string, ref: FlightRef): ResolvedFlight | undefined {
    if (!Object.isFrozen(ref)) return this.findFlight(Object.assign({}, ref, { carrier }));
    const kept = this.flightsByRef.get(ref);
    if (kept !== undefined && kept.flights === this.world.flights && kept.carrier === carrier) return kept.f;
    const f = this.findFlight(Object.assign({}, ref, { carrier }));
    this.flightsByRef.set(ref, { flights: this.world.flights, carrier, f });
    return f;
  }
  private readonly flightsByRef = new WeakMap<FlightRef, { flights: World['flights']; carrier: string; f: ResolvedFlight | undefined }>();

  private findFlight(ref: FlightRef): ResolvedFlight | undefined {
    if (!this.flightIndex || this.flightIndexOf !== this.world.flights) {
      this.flightIndexOf = this.world.flights;
      this.flightIndex = new Map();
      for (const f of this.world.flights.values()) {
        // by the number as callers normalize it: a world's "XS0071" is found as "XS71" (a review: search.do found it,
        // verify.do and getOffers.do did not)
        const k = `${f.carrier}|${normalizeFlightNumber(f.carrier, f.flightNumber)}`;
        const list = this.flightIndex.get(k) ?? [];
        list.push({ f, dates: [f.current.dep.toFormat('yyyyMMdd'), f.scheduled.dep.toFormat('yyyyMMdd')] });
        this.flightIndex.set(k, list);
      }
    }
    for (const { f, dates } of this.flightIndex.get(`${ref.carrier}|${normalizeFlightNumber(ref.carrier, ref.flightNumber)}`) ?? []) {
      if (dates[0] !== ref.depDate && dates[1] !== ref.depDate) continue;
      if (ref.depAirport && ref.depAirport !== f.from) continue;
      if (ref.arrAirport && ref.arrAirport !== f.to) continue;
      return f;
    }
    return undefined;
  }

  /** Makes booking references (a test gives its own sequence to stage a clash). */
  pnrSource: () => string = newPnr;

  /** A new booking reference no booking of the world file has (those are read before the stored ones). */
  private freshPnr(carrier: string): string {
    for (;;) {
      const pnr = this.pnrSource();
      if (!this.world.bookings.has(`${carrier}/${pnr}`)) return pnr;
    }
  }

  private airline(carrier: string): WorldAirline {
    const a = this.world.airlines.get(carrier);
    if (!a) throw new ConnectorError('rejected', false, `sandbox airline ${carrier} does not exist`);
    return a;
  }

  private books(): Kysely<Database> {
    if (!this.db) throw new ConnectorError('unavailable', false, 'the sandbox airline was started without its books (database)');
    return this.db;
  }
}

/**
 * A world's generation: a number per flights table, which a reload replaces (console's reload and a follower's
 * `Object.assign(world, fresh)`), so that a seat map read from an earlier world is stale in a later one.
 */
const generations = new WeakMap<World['flights'], number>();
let lastGeneration = 0;

function worldGeneration(world: World): number {
  let g = generations.get(world.flights);
  if (g === undefined) generations.set(world.flights, (g = ++lastGeneration));
  return g;
}

type FoundSeat = { cabin: SeatMapCabin; row: number; seat: SeatMapCabin['seatRows'][number]['seats'][number] };

function findSeat(cabins: SeatMapCabin[], name: string): FoundSeat | null {
  const m = SEAT.exec(name);
  if (!m) return null;
  const number = Number(m[1]);
  for (const cabin of cabins) {
    const row = cabin.seatRows.find((r) => r.number === number);
    const seat = row?.seats.find((s) => s.column === m[2]);
    if (seat) return { cabin, row: number, seat };
  }
  return null;
}

/** Free seats of the same cabin with the same position (window/aisle/middle) and no higher price, nearest row first. */
function similarSeats(cabin: SeatMapCabin, row: number, wanted: FoundSeat['seat']): Array<{ name: string }> {
  const out: Array<{ name: string; distance: number }> = [];
  for (const r of cabin.seatRows) {
    for (const s of r.seats) {
      if (s.occupied || s.characteristics[0] !== wanted.characteristics[0] || s.priceMinor > wanted.priceMinor) continue;
      out.push({ name: `${r.number}${s.column}`, distance: Math.abs(r.number - row) });
    }
  }
  return out.sort((a, b) => a.distance - b.distance).slice(0, 20);
}

const PNR_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
function newPnr(): string {
  let s = '';
  for (let i = 0; i < 6; i++) s += PNR_ALPHABET[randomInt(0, PNR_ALPHABET.length)];
  return s;
}

/** A segment `days` calendar days later (earlier when negative), its local times kept in each airport's zone. */
function shiftedSegment(seg: AirlineSegment, days: number): AirlineSegment {
  const move = (local: string, zone: string) => DateTime.fromFormat(local, LOCAL_FORMAT, { zone }).plus({ days });
  const dep = move(seg.depLocal, seg.depTimeZone);
  const arr = move(seg.arrLocal, seg.arrTimeZone);
  return Object.assign({}, seg, {
    depLocal: dep.toFormat(LOCAL_FORMAT),
    arrLocal: arr.toFormat(LOCAL_FORMAT),
    depAt: dep.toJSDate(),
    arrAt: arr.toJSDate(),
    bookedDepLocal: move(seg.bookedDepLocal, seg.depTimeZone).toFormat(LOCAL_FORMAT),
    bookedArrLocal: move(seg.bookedArrLocal, seg.arrTimeZone).toFormat(LOCAL_FORMAT),
    durationMinutes: Math.round(arr.diff(dep, 'minutes').minutes),
  });
}
