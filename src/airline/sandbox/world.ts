// Loads a sandbox world file (JSON or YAML), validates it against the schema and the cross-references, and
// resolves relative times against the service clock, so the bundled demo world never goes stale.
import fs from 'node:fs';
import path from 'node:path';
import { DateTime, IANAZone } from 'luxon';
import YAML from 'yaml';
import { Compile } from 'typebox/compile';
import {
  SPEC_CANCEL_REASONS,
  WorldSchema,
  type WorldAirline,
  type WorldBehaviour,
  type WorldClient,
  type WorldFile,
  type WorldFlight,
  type WorldRefundBehaviour,
} from './world-schema.js';
import { isExact, isExactMoneyText, MoneyError, toMinor } from '../../money/money.js';
import { cityTable, type CityTable } from './cities.js';
import type { AirlineAncillary, AirlinePassenger, AirlineRecord, AirlineSegment, AirlineTicket, ScheduleStatus } from '../connector.js';

export class WorldError extends Error {
  constructor(
    readonly file: string,
    readonly fieldPath: string,
    readonly problem: string,
  ) {
    super(`world file ${file}: ${fieldPath || '(root)'} ${problem}`);
    this.name = 'WorldError';
  }
}

export interface ResolvedFlight {
  id: string;
  source: WorldFlight;
  carrier: string;
  flightNumber: string;
  from: string;
  to: string;
  depTimeZone: string;
  arrTimeZone: string;
  scheduled: { dep: DateTime; arr: DateTime };
  current: { dep: DateTime; arr: DateTime };
  status: ScheduleStatus;
  /**
   * Its seats' key in the sandbox airline's books: flight number and scheduled local departure date, and the
   * airports when another flight of the world has the same two (the legs of a through flight: each has seats of its
   * own — found by a review: a seat sold on one leg showed occupied on the other).
   */
  saleKey: string;
  /** Seats the world's bookings hold (their seat ancillaries): occupied on the map and never sold again. */
  heldSeats: Set<string>;
}

export interface SandboxBooking {
  record: AirlineRecord;
  behaviour: WorldBehaviour;
  /** Overrides the airline's refundBehaviour field by field. */
  refundBehaviour: WorldRefundBehaviour;
  issuedAt: Date | null;
  note: string | null;
}

export interface World {
  name: string;
  file: string;
  adminToken: string | null;
  clients: WorldClient[];
  airlines: Map<string, WorldAirline>;
  airports: Map<string, { code: string; name: string; timeZone: string; city?: string }>;
  /** Cities and their airports (search.do fromCity/toCity): the built-in table, cities[], airports[].city. */
  cities: CityTable;
  flights: Map<string, ResolvedFlight>;
  /** keyed by `${carrier}/${pnr}` */
  bookings: Map<string, SandboxBooking>;
  rates: Record<string, string>;
  raw: WorldFile;
  /** The service-clock time its relative times (`+3d 10:30`) were resolved at. */
  resolvedAt: Date;
}

const check = Compile(WorldSchema);

/** '/bookings/2/tickets/0/passenger' → 'bookings[2].tickets[0].passenger' */
export function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

/**
 * The file's data. A syntax error is told by where it is, never by the text around it: the parsers quote the
 * offending line (YAML) or the characters about it (JSON), and a world holds client and webhook secrets, the admin
 * token and passengers' names, e-mails and documents — the message went to the start-up's fatal log line (a review).
 */
export function parseWorldText(text: string, file: string): unknown {
  const yaml = /\.ya?ml$/i.test(file);
  try {
    return yaml ? YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    if (err instanceof YAML.YAMLError) {
      const at = err.linePos?.[0];
      throw new WorldError(file, '', `is not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''} (${err.code})`);
    }
    throw new WorldError(file, '', `is not valid JSON${jsonErrorPlace((err as Error).message, text)}`);
  }
}

/**
 * Where JSON.parse stopped, from its message's "at position N" (line and column), and what it met — never the
 * characters it quotes ("Unexpected token 'q', …\"secret\": qx-…\" is not valid JSON" gives no position: only its kind).
 */
function jsonErrorPlace(message: string, text: string): string {
  const at = / at position (\d+)/.exec(message);
  const kind = /^Unexpected end/.test(message) ? 'unexpected end' : /^Unexpected token/.test(message) ? 'unexpected token' : 'syntax error';
  if (!at) return ` (${kind})`;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')} (${kind})`;
}

export function loadWorldFile(file: string, now: Date): World {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new WorldError(file, '', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return buildWorld(parseWorldText(text, file), now, path.relative(process.cwd(), file) || file);
}

/**
 * Wall-clock world time → instant, in `zone`. "+Nd HH:mm" counts days from one calendar date for the
 * whole world (the UTC date of `now`), not from each airport's own local date: otherwise an arrival could
 * land before its departure whenever the two airports are on different local dates.
 */
export function resolveWorldTime(text: string, zone: string, now: Date): DateTime | null {
  const base = DateTime.fromJSDate(now, { zone });
  if (!base.isValid) return null;
  if (text === 'now') return base;
  let m = /^([+-])(\d+)([hm])$/.exec(text);
  if (m) {
    const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
    return base.plus(m[3] === 'h' ? { hours: n } : { minutes: n });
  }
  m = /^([+-])(\d+)d (\d{2}):(\d{2})$/.exec(text);
  if (m) {
    const hour = Number(m[3]);
    const minute = Number(m[4]);
    if (hour > 23 || minute > 59) return null;
    const days = Number(m[2]) * (m[1] === '-' ? -1 : 1);
    const date = DateTime.fromJSDate(now, { zone: 'UTC' }).plus({ days });
    const dt = DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour, minute }, { zone });
    return dt.isValid ? dt : null;
  }
  const abs = DateTime.fromFormat(text, 'yyyy-MM-dd HH:mm', { zone });
  return abs.isValid ? abs : null;
}

export const LOCAL_FORMAT = 'yyyy-MM-dd HH:mm';

/** A booking segment on a resolved flight (its current schedule; the booked one when it changed). */
export function segmentOfFlight(f: ResolvedFlight, index: number, direction: 'out' | 'ret', cabinClass: number, fareFamily: string | null): AirlineSegment {
  const src = f.source;
  return {
    index,
    direction,
    carrier: f.carrier,
    flightNumber: f.flightNumber,
    depAirport: f.from,
    arrAirport: f.to,
    depLocal: f.current.dep.toFormat(LOCAL_FORMAT),
    arrLocal: f.current.arr.toFormat(LOCAL_FORMAT),
    depAt: f.current.dep.toJSDate(),
    arrAt: f.current.arr.toJSDate(),
    depTimeZone: f.depTimeZone,
    arrTimeZone: f.arrTimeZone,
    bookedDepLocal: f.scheduled.dep.toFormat(LOCAL_FORMAT),
    bookedArrLocal: f.scheduled.arr.toFormat(LOCAL_FORMAT),
    scheduleStatus: f.status,
    depTerminal: src.depTerminal ?? null,
    arrTerminal: src.arrTerminal ?? null,
    aircraftCode: src.aircraft,
    codeShare: Boolean(src.operatingCarrier && src.operatingCarrier !== f.carrier),
    operatingCarrier: src.operatingCarrier ?? f.carrier,
    operatingFlightNumber: src.operatingFlightNumber ?? f.flightNumber,
    durationMinutes: Math.round(f.current.arr.diff(f.current.dep, 'minutes').minutes),
    cabinClass,
    fareFamily,
  };
}

function keyOf(carrier: string, pnr: string): string {
  return `${carrier}/${pnr}`;
}

/** What every step of building a world shares: where a problem is reported, and the checks of amounts. */
interface Build {
  now: Date;
  fail: (p: string, problem: string) => never;
  unique: <T>(items: T[], key: (t: T) => string, at: string, what: string) => void;
  money: (amount: number, currency: string, at: string) => number;
  moneyText: (text: string | undefined, at: string) => void;
  cancelReason: (b: WorldRefundBehaviour | undefined, at: string) => void;
}

function builder(file: string, now: Date): Build {
  const fail = (p: string, problem: string): never => {
    throw new WorldError(file, p, problem);
  };
  const unique = <T>(items: T[], key: (t: T) => string, at: string, what: string) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (seen.has(k)) fail(`${at}[${i}]`, `repeats ${what} ${k}`);
      seen.add(k);
    });
  };
  const money = (amount: number, currency: string, at: string): number => {
    try {
      if (!isExact(amount, currency)) fail(at, `has more decimals than ${currency} allows`);
      return toMinor(amount, currency);
    } catch (err) {
      if (err instanceof MoneyError) return fail(at, err.message);
      throw err;
    }
  };
  const moneyText = (text: string | undefined, at: string) => {
    if (text === undefined) return;
    let exact: boolean;
    try {
      exact = isExactMoneyText(text);
    } catch (err) {
      return fail(at, (err as Error).message);
    }
    // parseMoney would round the rest half-up: the world would charge another amount than it says
    if (!exact) fail(at, `has more decimals than its currency allows: ${text}`);
  };

  const cancelReasons: ReadonlySet<string> = new Set(SPEC_CANCEL_REASONS);
  const cancelReason = (b: WorldRefundBehaviour | undefined, at: string) => {
    if (b?.cancelReason !== undefined && !cancelReasons.has(b.cancelReason)) {
      fail(`${at}.refundBehaviour.cancelReason`, `is not one of the cancelReason texts of spec 2.11 (e.g. "${SPEC_CANCEL_REASONS[0]}"; all of them: docs/world.md)`);
    }
  };
  return { now, fail, unique, money, moneyText, cancelReason };
}

/** The file's shape (the schema), or a WorldError naming the first bad field. */
function checkedShape(data: unknown, file: string): WorldFile {
  if (!check.Check(data)) {
    const first = check.Errors(data)[0];
    const where = pointerToPath(first?.instancePath ?? '');
    // TypeBox reports a field that additionalProperties: false forbids at the field's own path.
    const detail =
      first?.keyword === 'additionalProperties' || first?.keyword === 'boolean'
        ? 'is an unknown field (check its spelling against docs/world.md)'
        : (first?.message ?? 'is invalid');
    throw new WorldError(file, where, detail);
  }
  return data;
}

type ReferenceData = Pick<World, 'airlines' | 'airports'> & { aircraft: Map<string, WorldFile['aircraft'][number]> };

/** Clients, airports, airlines and aircraft: unique, and their own fields consistent. */
function referenceData(w: WorldFile, build: Build): ReferenceData {
  const { fail, unique, money, moneyText, cancelReason } = build;
  unique(w.clients, (c) => c.id, 'clients', 'client id');
  unique(w.airlines, (a) => a.code, 'airlines', 'airline');
  unique(w.airports, (a) => a.code, 'airports', 'airport');
  unique(w.cities ?? [], (c) => c.code, 'cities', 'city');
  unique(w.aircraft, (a) => a.code, 'aircraft', 'aircraft');
  unique(w.flights, (f) => f.id, 'flights', 'flight id');
  unique(w.bookings, (b) => keyOf(b.carrier, b.pnr), 'bookings', 'booking');

  w.clients.forEach((c, i) => moneyText(c.settings?.refundServiceFee, `clients[${i}].settings.refundServiceFee`));

  const airports = new Map(w.airports.map((a) => [a.code, a]));
  w.airports.forEach((a, i) => {
    if (!IANAZone.isValidZone(a.timeZone)) fail(`airports[${i}].timeZone`, `is not an IANA time zone: ${a.timeZone}`);
  });

  const airlines = new Map(w.airlines.map((a) => [a.code, a]));
  w.airlines.forEach((a, i) => {
    if (a.homeTimeZone && !IANAZone.isValidZone(a.homeTimeZone)) fail(`airlines[${i}].homeTimeZone`, `is not an IANA time zone: ${a.homeTimeZone}`);
    a.refundRules.forEach((r, j) => {
      moneyText(r.penaltyAmount, `airlines[${i}].refundRules[${j}].penaltyAmount`);
      moneyText(r.airlineFee, `airlines[${i}].refundRules[${j}].airlineFee`);
    });
    if (a.bookingFee) money(a.bookingFee.amount, a.bookingFee.currency, `airlines[${i}].bookingFee.amount`);
    cancelReason(a.refundBehaviour, `airlines[${i}]`);
    a.routesWithoutRefund?.forEach((route, j) => {
      for (const code of route.split('-')) {
        if (!airports.has(code)) fail(`airlines[${i}].routesWithoutRefund[${j}]`, `names airport ${code}, which airports[] does not list`);
      }
    });
  });
  const aircraft = new Map(w.aircraft.map((a) => [a.code, a]));
  w.aircraft.forEach((a, i) =>
    a.cabins.forEach((c, j) => {
      if (c.rows.first > c.rows.last) fail(`aircraft[${i}].cabins[${j}].rows`, 'has first after last');
    }),
  );

  return { airports, airlines, aircraft };
}

/** The currency of a flight's fares when the world gives none. */
export const DEFAULT_FARE_CURRENCY = 'EUR';

/** Flights with their times resolved against the clock (scheduled, and current after a schedule change). */
function resolveFlights(w: WorldFile, build: Build, { airports, airlines, aircraft }: ReferenceData): Map<string, ResolvedFlight> {
  const { now, fail, money } = build;
  const flights = new Map<string, ResolvedFlight>();
  w.flights.forEach((f, i) => {
    const at = `flights[${i}]`;
    if (!airlines.has(f.carrier)) fail(`${at}.carrier`, `names airline ${f.carrier}, which airlines[] does not list`);
    // An order's total is its fares plus its seats in one currency: a seat priced in another was added as if it were
    // that one (35000 JPY + EUR 25 read as 37500 JPY: found by a review).
    const currency = f.fares?.currency ?? DEFAULT_FARE_CURRENCY;
    f.seatPrices?.forEach((p, j) => {
      if (p.currency !== currency) fail(`${at}.seatPrices[${j}].currency`, `is ${p.currency}, but the flight's fares are in ${currency}: seats are priced in the fares' currency`);
    });
    // The airline's booking fee is charged in its fares' currency: a flight priced in another was sold without it
    // (verify.do showed no fee, order.do charged none), silently.
    const fee = airlines.get(f.carrier)?.bookingFee;
    if (fee && fee.currency !== currency) fail(`${at}.fares.currency`, `is ${currency}, but airline ${f.carrier}'s bookingFee is in ${fee.currency}: the fee is charged in the fares' currency`);
    if (!f.flightNumber.startsWith(f.carrier)) fail(`${at}.flightNumber`, `must start with the carrier code ${f.carrier}`);
    const from = airports.get(f.from) ?? fail(`${at}.from`, `names airport ${f.from}, which airports[] does not list`);
    const to = airports.get(f.to) ?? fail(`${at}.to`, `names airport ${f.to}, which airports[] does not list`);
    if (!aircraft.has(f.aircraft)) fail(`${at}.aircraft`, `names aircraft ${f.aircraft}, which aircraft[] does not list`);
    const time = (text: string, zone: string, field: string) =>
      resolveWorldTime(text, zone, now) ?? fail(`${at}.${field}`, `is not a valid time: ${text}`);
    const dep = time(f.departure, from.timeZone, 'departure');
    const arr = time(f.arrival, to.timeZone, 'arrival');
    if (arr <= dep) fail(`${at}.arrival`, 'is not after the departure');
    const status = f.status ?? 'onTime';
    if ((f.changedDeparture || f.changedArrival) && status !== 'scheduleChanged') {
      fail(`${at}.status`, 'must be scheduleChanged when changedDeparture or changedArrival is given');
    }
    const cdep = f.changedDeparture ? time(f.changedDeparture, from.timeZone, 'changedDeparture') : dep;
    const carr = f.changedArrival ? time(f.changedArrival, to.timeZone, 'changedArrival') : arr;
    if (carr <= cdep) fail(`${at}.changedArrival`, 'is not after the changed departure');
    f.seatPrices?.forEach((p, j) => money(p.price, p.currency, `${at}.seatPrices[${j}].price`));
    // the changes are in the fares' currency, as the seats are (read with the same rounding as every amount)
    if (f.priceChangeAfterVerify?.fare !== undefined) money(f.priceChangeAfterVerify.fare, currency, `${at}.priceChangeAfterVerify.fare`);
    if (f.priceChangeAfterVerify?.seat !== undefined) money(f.priceChangeAfterVerify.seat, currency, `${at}.priceChangeAfterVerify.seat`);
    if (f.fares) {
      for (const t of ['adult', 'child', 'infant'] as const) {
        const pf = f.fares[t];
        if (pf) {
          money(pf.fare, f.fares.currency, `${at}.fares.${t}.fare`);
          money(pf.tax, f.fares.currency, `${at}.fares.${t}.tax`);
        }
      }
    }
    // A daily flight: the same local times on each of the next repeatDays days (ids "<id>+Nd").
    for (let day = 0; day <= (f.repeatDays ?? 0); day++) {
      const id = day === 0 ? f.id : `${f.id}+${day}d`;
      // also a flight whose own id is another's repeat ("f+1d" after f with repeatDays): it replaced that repeat
      if (flights.has(id)) fail(day === 0 ? `${at}.id` : `${at}.repeatDays`, day === 0 ? `${id} is already a flight's id (a flight's own, or another flight's repeat)` : `makes flight id ${id}, which another flight already has`);
      const plus = (t: DateTime) => (day === 0 ? t : t.plus({ days: day }));
      // The same local times each day: where one airport's clocks change on a repeat's day, its length changes by
      // the hour, and a short one would land before it leaves (a review). It does not fly that day: with relative
      // times a refusal would come and go with the calendar, the world refused months after it first loaded.
      if (day > 0 && (plus(arr) <= plus(dep) || plus(carr) <= plus(cdep))) continue;
      flights.set(id, {
        id,
        source: f,
        carrier: f.carrier,
        flightNumber: f.flightNumber,
        from: f.from,
        to: f.to,
        depTimeZone: from.timeZone,
        arrTimeZone: to.timeZone,
        scheduled: { dep: plus(dep), arr: plus(arr) },
        current: { dep: plus(cdep), arr: plus(carr) },
        status,
        saleKey: '',
        heldSeats: new Set(),
      });
    }
  });

  // A flight number and date one flight has keep their key as it always was (sales stored before stay theirs);
  // the legs of a through flight add their airports.
  const legs = new Map<string, number>();
  for (const f of flights.values()) {
    f.saleKey = `${f.flightNumber}/${f.scheduled.dep.toFormat('yyyyMMdd')}`;
    legs.set(f.saleKey, (legs.get(f.saleKey) ?? 0) + 1);
  }
  for (const f of flights.values()) if ((legs.get(f.saleKey) ?? 0) > 1) f.saleKey = `${f.saleKey}/${f.from}-${f.to}`;
  return flights;
}

/** An ancillary of a ticket (in-flow) or a post-ticketing service, on one of the booking's segments. */
function ancillaryOf(
{ fail, money }: Build,
segments: readonly AirlineSegment[],
  a: { category: string; segment: number; price: number; productCode?: string; baggage?: { piece: number; weight: number; size?: string; isAllWeight?: boolean }; seat?: string },
  currency: string,
  where: string,
  kind: 'inflow' | 'post',
  postOrderNo: string | null,
): AirlineAncillary {
  const seg = segments[a.segment - 1] ?? fail(`${where}.segment`, `is ${a.segment}, but the booking has ${segments.length} segment(s)`);
  if (a.category === 'Seat' && !a.seat) fail(`${where}.seat`, 'is required for a Seat');
  if (a.category !== 'Seat' && !a.baggage) fail(`${where}.baggage`, `is required for ${a.category}`);
  const seatMatch = a.seat ? /^(\d+)([A-Z])$/.exec(a.seat) : null;
  return {
    kind,
    category: a.category,
    segmentIndex: a.segment,
    productCode:
      a.productCode ??
      (a.seat
        ? `SCI_SEAT_${a.seat}_${seg.carrier}_${seg.depAirport}_${seg.arrAirport}`
        : `BAG_${a.category}_${a.segment}_${seg.carrier}_${seg.depAirport}_${seg.arrAirport}`),
    currency,
    priceMinor: money(a.price, currency, `${where}.price`),
    postOrderNo,
    baggage: a.baggage
      ? { piece: a.baggage.piece, weight: a.baggage.weight, size: a.baggage.size ?? null, isAllWeight: a.baggage.isAllWeight ?? false }
      : null,
    seat: seatMatch ? { row: seatMatch[1] as string, column: seatMatch[2] as string } : null,
  };
}

/** One ticket of a booking: its passenger and segments checked, its coupons and ancillaries. */
function ticketOf(
  build: Build,
  t: NonNullable<WorldFile['bookings'][number]['tickets']>[number],
  tat: string,
  { paxRefs, segments, ticketNos }: { paxRefs: ReadonlySet<string>; segments: readonly AirlineSegment[]; ticketNos: Set<string> },
): AirlineTicket {
  const { fail, money } = build;
  if (!paxRefs.has(t.passenger)) fail(`${tat}.passenger`, `names passenger ${t.passenger}, which this booking does not list`);
  const ticketNo = t.ticketNo.replace('-', '');
  if (ticketNos.has(ticketNo)) fail(`${tat}.ticketNo`, `repeats ticket ${t.ticketNo}`);
  ticketNos.add(ticketNo);
  const covered = t.segments ?? segments.map((s) => s.index);
  covered.forEach((n, k) => {
    if (n > segments.length) fail(`${tat}.segments[${k}]`, `is ${n}, but the booking has ${segments.length} segment(s)`);
  });
  if (new Set(covered).size !== covered.length) fail(`${tat}.segments`, 'lists a segment twice');
  if (t.coupons.length !== covered.length) fail(`${tat}.coupons`, `has ${t.coupons.length} coupon(s) for ${covered.length} segment(s)`);
  return {
    ticketNo,
    paxRef: t.passenger,
    currency: t.currency,
    fareMinor: money(t.fare, t.currency, `${tat}.fare`),
    taxMinor: money(t.tax, t.currency, `${tat}.tax`),
    issuedAt: null,
    taxStatusConfirmed: t.taxStatusUnconfirmed !== true,
    coupons: t.coupons.map((status, k) => ({ segmentIndex: covered[k]!, status })),
    ancillaries: (t.ancillaries ?? []).map((a, k) => ancillaryOf(build, segments, a, t.currency, `${tat}.ancillaries[${k}]`, 'inflow', null)),
  };
}

/** The airline's record of one booking, its behaviours and issue time; `ticketNos` collects the world's ticket numbers. */
function resolveBooking(
  b: WorldFile['bookings'][number],
  i: number,
  build: Build,
  refs: { airlines: World['airlines']; flights: Map<string, ResolvedFlight>; aircraft: ReferenceData['aircraft']; clientIds: ReadonlySet<string>; ticketNos: Set<string> },
): SandboxBooking {
  const { now, fail, unique, cancelReason } = build;
  const { airlines, flights, aircraft, clientIds, ticketNos } = refs;
  const at = `bookings[${i}]`;
  if (!airlines.has(b.carrier)) fail(`${at}.carrier`, `names airline ${b.carrier}, which airlines[] does not list`);
  if (b.bookedBy && !clientIds.has(b.bookedBy)) fail(`${at}.bookedBy`, `names client ${b.bookedBy}, which clients[] does not list`);
  cancelReason(b.refundBehaviour, at);
  unique(b.passengers, (p) => p.ref, `${at}.passengers`, 'passenger ref');
  const paxRefs = new Set(b.passengers.map((p) => p.ref));

  let sawReturn = false;
  const segments: AirlineSegment[] = b.segments.map((s, j) => {
    const f = flights.get(s.flight) ?? fail(`${at}.segments[${j}].flight`, `names flight ${s.flight}, which flights[] does not list`);
    const direction = s.direction ?? 'out';
    if (direction === 'out' && sawReturn) fail(`${at}.segments[${j}].direction`, 'outbound segments must come before return segments');
    sawReturn ||= direction === 'ret';
    return segmentOfFlight(f, j + 1, direction, s.cabinClass ?? 1, s.fareFamily ?? null);
  });
  if (segments.some((s) => s.carrier !== b.carrier) && !segments.some((s) => s.carrier === b.carrier)) {
    fail(`${at}.segments`, `has no segment of the booking carrier ${b.carrier}`);
  }

  const tickets: AirlineTicket[] = (b.tickets ?? []).map((t, j) => ticketOf(build, t, `${at}.tickets[${j}]`, { paxRefs, segments, ticketNos }));
  if (b.status === 'Ticketed') {
    if (tickets.length === 0) fail(`${at}.tickets`, 'must hold a ticket per passenger when status is Ticketed');
    b.passengers.forEach((p, j) => {
      // An infant may travel on an adult's ticket (some airlines issue none of its own).
      if (p.type !== 'INF' && !tickets.some((t) => t.paxRef === p.ref)) fail(`${at}.passengers[${j}]`, `(${p.ref}) has no ticket although the booking is Ticketed`);
    });
  }
  (b.postTicketingServices ?? []).forEach((s, j) => {
    const sat = `${at}.postTicketingServices[${j}]`;
    const ticket = tickets.find((t) => t.paxRef === s.passenger) ?? fail(`${sat}.passenger`, `names passenger ${s.passenger}, who has no ticket`);
    ticket.ancillaries.push(ancillaryOf(build, segments, s, s.currency, sat, 'post', s.orderNo));
  });

  // The seats the booking holds are taken on its flights' maps (a review: DEMO01's 12A showed free and order.do
  // sold it again); a seat its aircraft does not have, or another booking holds, is a mistake of the file.
  if (b.status !== 'Cancelled') {
    for (const t of tickets) {
      for (const a of t.ancillaries) {
        if (!a.seat || a.segmentIndex === null || t.coupons.some((c) => c.segmentIndex === a.segmentIndex && c.status === 'REFUND')) continue;
        const f = flights.get(b.segments[a.segmentIndex - 1]!.flight)!;
        const seat = `${a.seat.row}${a.seat.column}`;
        const plane = aircraft.get(f.source.aircraft);
        if (plane && !hasSeat(plane, seat)) fail(at, `holds seat ${seat} on flight ${f.id} (ticket ${t.ticketNo}), which its aircraft ${plane.code} does not have`);
        if (f.heldSeats.has(seat)) fail(at, `holds seat ${seat} on flight ${f.id} (ticket ${t.ticketNo}), which another booking holds`);
        f.heldSeats.add(seat);
      }
    }
  }

  const issuedAt = b.issuedAt ? (resolveWorldTime(b.issuedAt, 'UTC', now) ?? fail(`${at}.issuedAt`, 'is not a valid time')).toJSDate() : null;
  for (const t of tickets) t.issuedAt = issuedAt;

  const passengers: AirlinePassenger[] = b.passengers.map((p) => ({
    ref: p.ref,
    type: p.type,
    lastName: p.lastName,
    firstName: p.firstName,
    birthday: p.birthday ?? null,
    gender: p.gender ?? null,
    document: p.document
      ? {
          type: p.document.type,
          number: p.document.number,
          expiry: p.document.expiry ?? null,
          issuePlace: p.document.issuePlace ?? null,
          nationality: p.document.nationality ?? null,
        }
      : null,
  }));

  return {
    record: {
      carrier: b.carrier,
      pnr: b.pnr,
      status: b.status,
      contact: { email: b.contact.email, phone: b.contact.phone ?? null, companyName: b.contact.companyName ?? null },
      passengers,
      segments,
      tickets,
      paymentMethod: b.paymentMethod ?? null,
      bookedByClient: b.bookedBy ?? null,
    },
    behaviour: b.behaviour ?? {},
    refundBehaviour: b.refundBehaviour ?? {},
    issuedAt,
    note: b.note ?? null,
  };
}

/** Whether an aircraft has the seat ("12A"): a row of a cabin with the column, not a missing seat. */
function hasSeat(plane: WorldFile['aircraft'][number], seat: string): boolean {
  const m = /^(\d+)([A-Z])$/.exec(seat);
  if (!m) return false;
  const row = Number(m[1]);
  return plane.cabins.some((c) => row >= c.rows.first && row <= c.rows.last && c.columns.some((col) => col.designator === m[2]) && !(c.missingSeats ?? []).includes(seat));
}

/** Rates name ISO 4217 currencies and are positive. */
function checkRates(w: WorldFile, { fail }: Build): void {
  for (const [pair, rate] of Object.entries(w.rates ?? {})) {
    const [a, b2] = pair.split('/') as [string, string];
    try {
      toMinor(1, a);
      toMinor(1, b2);
    } catch {
      fail(`rates.${pair}`, 'names a currency ISO 4217 does not list');
    }
    if (Number(rate) <= 0) fail(`rates.${pair}`, 'must be positive');
  }

}

export function buildWorld(data: unknown, now: Date, file = '(world)'): World {
  const w = checkedShape(data, file);
  const build = builder(file, now);
  const { airports, airlines, aircraft } = referenceData(w, build);
  const flights = resolveFlights(w, build, { airports, airlines, aircraft });
  const clientIds = new Set(w.clients.map((c) => c.id));
  const ticketNos = new Set<string>();
  const bookings = new Map<string, SandboxBooking>();
  w.bookings.forEach((b, i) => bookings.set(keyOf(b.carrier, b.pnr), resolveBooking(b, i, build, { airlines, flights, aircraft, clientIds, ticketNos })));
  checkRates(w, build);

  return {
    name: w.name,
    file,
    adminToken: w.sandbox?.adminToken ?? null,
    clients: w.clients,
    airlines,
    airports,
    cities: cityTable(w.airports, w.cities ?? []),
    flights,
    bookings,
    rates: w.rates ?? {},
    raw: w,
    resolvedAt: now,
  };
}
