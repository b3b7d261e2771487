// The built-in sandbox airline: answers from a world file, with the latency and failures the world asks for.
// Its refund books live in the service's database (sandbox_refunds): a refund it received survives a crash,
// and its timeline follows the service clock (see refunds.ts).
import type { HotReader } from '../../store/hot-reader.js';
import type { SandboxRefundRow } from './refunds.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import {
  ConnectorError,
  type AirlineConnector,
  type AirlineFeature,
  type AirlineRecord,
  type AirlineRefundRule,
  type AirlineRefundReceipt,
  type AirlineRefundState,
  type AirlineRefundSubmission,
  type AirlineRefundTerms,
  type AirlineRefundWithdrawal,
  type AirlineVoidReceipt,
  type AirlineVoidState,
  type AirlineVoidSubmission,
  type CallOptions,
} from '../connector.js';
import { DateTime } from 'luxon';
import { callExpired, withinDeadline } from '../deadline.js';
import { freezeRecord } from '../record.js';
import { deepFreeze } from '../../deep-freeze.js';
import { BoundedMap } from '../../bounded-map.js';
import { systemClock, type Clock } from '../../clock.js';
import { isCurrency } from '../../money/money.js';
import type { Database } from '../../store/schema.js';
import {
  decideRefund,
  DEFAULT_WITHDRAW_REASON,
  recordRefunds,
  recordRefundsIfUnbooked,
  refundStateAt,
  ticketNosOf,
  type NewSandboxRefund,
  type RecordedRefunds,
  type SandboxBookEntry,
} from './refunds.js';
import type { SandboxBooking, World } from './world.js';
import type { WorldAirline, WorldBehaviour } from './world-schema.js';
import { SandboxBookingApi } from './booking.js';
import { SeatInventory } from './seat-inventory.js';
import { ruleTheAirlineApplies } from './refund-rules.js';

/** Where the sandbox airline keeps its refund books, and whose clock it follows. */
export interface SandboxBooks {
  db: Kysely<Database>;
  clock: Clock;
  /** Other processes change the same books (PostgreSQL): seat inventory versions are then read from the store. */
  shared?: boolean;
  /** PostgreSQL: the store's own connection for those reads (Store.hotReader). */
  reader?: HotReader;
}

/** A resend of a refund the airline holds whose booking is gone: answered with its receipt (checkSubmission). */
class HeldResend extends Error {
  constructor(readonly receipt: AirlineRefundReceipt) {
    super('a resend of a refund the airline holds');
  }
}

export class SandboxConnector implements AirlineConnector {
  readonly name = 'sandbox';
  private readonly clock: Clock;
  /** The booking chain: search, prices, seat maps, bookings and tickets (bookings in sandbox_bookings). */
  readonly booking: SandboxBookingApi;

  /**
   * `books`: the service's database and clock. Without them the airline still answers records and refund
   * terms, but refuses refund submissions and status queries (it has nowhere to keep them).
   */
  constructor(
    private readonly world: World,
    private readonly books: SandboxBooks | null = null,
  ) {
    this.clock = books?.clock ?? systemClock;
    const seatInventory = new SeatInventory(books?.db ?? null, books?.shared ?? false, books?.reader ?? null);
    this.booking = new SandboxBookingApi(world, books?.db ?? null, this.clock, (b, signal) => this.behave(b, signal), seatInventory);
  }

  /** A world booking, or one made through postbook's booking chain. */
  private async findBooking(carrier: string, pnr: string): Promise<SandboxBooking | undefined> {
    return this.world.bookings.get(`${carrier}/${pnr}`) ?? (await this.booking.findStored(carrier, pnr));
  }

  carriers(): string[] {
    return [...this.world.airlines.keys()];
  }

  /** A world reload replaces the airline table (Object.assign of the fresh world): the directory reads carriers() again. */
  carriersVersion(): unknown {
    return this.world.airlines;
  }

  supports(carrier: string, feature: AirlineFeature): boolean {
    const airline = this.world.airlines.get(carrier);
    return airline !== undefined && airline.supports?.[feature] !== false;
  }

  async readRecord(carrier: string, pnr: string, opts: CallOptions): Promise<AirlineRecord | null> {
    const airline = this.airline(carrier);
    // The hot path (a world booking, refunds cached, an airline that does not wait) awaits nothing.
    // The store's reads end at the caller's deadline too (found by a review: behind a busy embedded store a
    // 300 ms extract answered after 2 s).
    const booking = this.world.bookings.get(`${carrier}/${pnr}`) ?? (await withinDeadline(this.booking.findStored(carrier, pnr), opts, notInTime));
    // A missing PNR costs the same latency as an existing one: timing must not reveal which PNRs exist.
    const waiting = this.behaveWithin(behaviourOf(airline, booking), opts);
    if (waiting) await waiting;
    const refunded = this.refundedFromCache(carrier, pnr) ?? (await withinDeadline(this.refundedTickets(carrier, pnr), opts, notInTime));
    if (!booking) return null;
    return this.shown(booking, refunded);
  }

  /**
   * The record readers see, one frozen object per version: a booking (world bookings never change; stored
   * ones are a new SandboxBooking per row version, see SandboxBookingApi.findStored) and which of its tickets
   * are refunded now. No copy per read, and a reader may cache what it derives from the object by identity.
   */
  private readonly versions = new WeakMap<SandboxBooking, { base: AirlineRecord; overlays: Map<string, AirlineRecord> }>();

  private shown(booking: SandboxBooking, refunded: ReadonlySet<string>): AirlineRecord {
    let v = this.versions.get(booking);
    if (!v) {
      // Copied once: the world's own object stays the caller's (the loader's, the seeding's) to keep.
      v = { base: freezeRecord(structuredClone(booking.record)), overlays: new Map() };
      this.versions.set(booking, v);
    }
    if (refunded.size === 0) return v.base;
    const tickets = v.base.tickets.filter((t) => refunded.has(t.ticketNo)).map((t) => t.ticketNo);
    if (tickets.length === 0) return v.base;
    const key = tickets.join(' ');
    let overlay = v.overlays.get(key);
    if (!overlay) {
      const record = structuredClone(booking.record);
      // The airline's own refunds show on the coupons once the money went out (flown coupons stay USED).
      for (const t of record.tickets) {
        if (!refunded.has(t.ticketNo)) continue;
        for (const c of t.coupons) if (c.status !== 'USED') c.status = 'REFUND';
      }
      overlay = freezeRecord(record);
      v.overlays.set(key, overlay);
    }
    return overlay;
  }

  refundTerms(carrier: string): AirlineRefundTerms | null {
    const a = this.world.airlines.get(carrier);
    if (!a) return null;
    let terms = termsOfAirline.get(a);
    if (!terms) termsOfAirline.set(a, (terms = deepFreeze(termsOf(carrier, a))));
    return terms;
  }

  async submitRefund(carrier: string, s: AirlineRefundSubmission, opts: CallOptions): Promise<AirlineRefundReceipt> {
    const [outcome] = await this.submitRefunds(carrier, [s], opts);
    if (outcome === undefined || outcome instanceof Error) throw outcome ?? new Error('no outcome');
    return outcome;
  }

  /**
   * The airline takes a batch as it takes single refunds, one after the other in order (a later refund of the
   * batch sees the earlier ones), with one statement on its books for the whole batch when they know nothing about
   * it, else one read and one write (recordRefundsIfUnbooked). Each refund's
   * booking, wait and checks are its own: one that fails answers its error, the others go on.
   */
  async submitRefunds(carrier: string, submissions: readonly AirlineRefundSubmission[], opts: CallOptions): Promise<Array<AirlineRefundReceipt | Error>> {
    let airline: WorldAirline;
    let db: Kysely<Database>;
    try {
      airline = this.airline(carrier);
      db = this.db();
    } catch (err) {
      return submissions.map(() => asError(err));
    }
    // Concurrently, as separate calls: a booking's wait (latency, time-out) does not add to another's.
    const checked = await Promise.all(submissions.map((s) => this.checkSubmission(carrier, airline, s, opts).catch(asError)));
    const valid = checked.filter((c): c is CheckedRefund => !(c instanceof Error));
    if (valid.length === 0) return checked.map((c) => (c instanceof HeldResend ? c.receipt : (c as Error)));

    const now = this.clock.now();
    const pnrs = new Set(valid.map((c) => c.s.pnr));
    const anotherBooking = (s: AirlineRefundSubmission) => refusal(carrier, s, 'the refundCode is already recorded for another booking');

    // What the airline records and answers for the batch, given its books about it (the rows of these refundCodes and
    // the accepted refunds of these bookings).
    const plan = (books: readonly SandboxBookEntry[]) => {
      // Per submission: its error, or its refundCode and which of the batch's calls of that refundCode it is.
      const outcomes: Array<Error | { refundCode: string; nth: number }> = checked.map((c) => (c instanceof Error ? c : { refundCode: c.s.refundCode, nth: 1 }));
      // The refundCodes the airline already has (for whichever booking), and the refunds it accepted per booking.
      const known = new Map<string, SandboxBookEntry>();
      const accepted = new Map<string, Array<{ refundCode: string; ticketNos: string[] }>>();
      for (const row of books) {
        known.set(row.refund_code, row);
        if (row.carrier === carrier && row.decision === 'accept' && row.withdrawn_at === null && pnrs.has(row.pnr)) {
          const list = accepted.get(row.pnr) ?? [];
          list.push({ refundCode: row.refund_code, ticketNos: ticketNosOf(row) });
          accepted.set(row.pnr, list);
        }
      }
      // In order: what each refund would meet had the ones before it been recorded already.
      const toRecord = new Map<string, NewSandboxRefund>();
      checked.forEach((c, i) => {
        if (c instanceof Error) return;
        const { s, booking, ticketNos, tickets } = c;
        const earlier = toRecord.get(s.refundCode);
        if (earlier) {
          // The same refundCode again in this batch: a resend of the earlier one.
          if (earlier.pnr !== s.pnr) outcomes[i] = anotherBooking(s);
          else outcomes[i] = { refundCode: s.refundCode, nth: ++earlier.calls };
          return;
        }
        const stored = known.get(s.refundCode);
        if (stored && (stored.carrier !== carrier || stored.pnr !== s.pnr)) {
          outcomes[i] = anotherBooking(s);
          return;
        }
        const others = (accepted.get(s.pnr) ?? []).filter((a) => a.refundCode !== s.refundCode);
        const duplicate = (others.length > 0 && airline.oneRefundPerBooking === true) || others.some((a) => a.ticketNos.some((no) => ticketNos.includes(no)));
        const decision = decideRefund({ ...airline.refundBehaviour, ...booking.refundBehaviour }, s, duplicate);
        toRecord.set(s.refundCode, {
          refundCode: s.refundCode,
          pnr: s.pnr,
          ticketNos,
          reason: s.reason,
          currency: s.currency,
          paidMinor: s.paidMinor,
          quotedRefundMinor: s.quotedRefundMinor,
          isClaim: s.isClaim,
          decision,
          voucher: this.refundsInVoucher(airline, booking, tickets, s.reason, now),
          calls: 1,
        });
        // A new refund the airline accepts counts for the later ones (a known refundCode keeps its first decision).
        if (!stored && decision.decision === 'accept') {
          const list = accepted.get(s.pnr) ?? [];
          list.push({ refundCode: s.refundCode, ticketNos });
          accepted.set(s.pnr, list);
        }
      });
      return { outcomes, toRecord };
    };

    // One statement when the books know nothing about the batch (its first submission: the usual case), recorded as
    // decided without them; else its books as that statement read them, the batch decided again and recorded.
    let { outcomes, toRecord } = plan([]);
    let recorded: RecordedRefunds;
    try {
      const first = await recordRefundsIfUnbooked(db, carrier, now, [...toRecord.values()]);
      if ('recorded' in first) recorded = first.recorded;
      else {
        ({ outcomes, toRecord } = plan(first.books));
        recorded = await recordRefunds(db, carrier, now, [...toRecord.values()]);
      }
    } catch (err) {
      return checked.map((c, i) => {
        if (c instanceof HeldResend) return c.receipt;
        const o = outcomes[i]!;
        return o instanceof Error ? o : asError(err);
      });
    } finally {
      for (const pnr of pnrs) this.acceptedCache.delete(`${carrier}/${pnr}`);
    }
    return outcomes.map((o, i) => {
      if (o instanceof HeldResend) return o.receipt;
      if (o instanceof Error) return o;
      const row = recorded.get(o.refundCode);
      if (!row) return anotherBooking(submissions[i]!);
      // Calls of this refundCode when this one arrived: those before the batch, then the batch's in order.
      const calls = row.submitCalls - toRecord.get(o.refundCode)!.calls + o.nth;
      return { airlineRefundId: row.airlineRefundId, duplicate: calls > 1 };
    });
  }

  /** One refund's booking, the airline's wait for it, and the checks the airline makes before its books. */
  private async checkSubmission(carrier: string, airline: WorldAirline, s: AirlineRefundSubmission, opts: CallOptions): Promise<CheckedRefund> {
    const booking = await this.findBooking(carrier, s.pnr);
    await this.behaveWithin(behaviourOf(airline, booking), opts);

    const refuse = (why: string): never => {
      throw refusal(carrier, s, why);
    };
    if (airline.supports?.refunds === false) refuse('the airline does not take refunds through this channel');
    if (!booking) {
      // A refund it holds answers its receipt though the booking is gone (a world reload dropped it): idempotent on
      // the refundCode, as for any resend (a review: the resend was refused for good, and postbook rejected a refund
      // the airline held)
      const held = await this.db().selectFrom('sandbox_refunds').select(['pnr', 'airline_refund_id']).where('refund_code', '=', s.refundCode).where('carrier', '=', carrier).executeTakeFirst();
      if (held?.pnr === s.pnr) throw new HeldResend({ airlineRefundId: held.airline_refund_id, duplicate: true });
      return refuse(`it has no booking ${s.pnr}`);
    }
    if (!/^\S{1,64}$/.test(s.refundCode)) refuse('the refundCode is empty, too long or holds spaces');
    if (!['0', '1', '4'].includes(s.reason)) refuse(`unknown refund reason ${s.reason}`);
    const ticketNos = [...new Set(s.ticketNos.map((t) => t.replace('-', '')))];
    if (ticketNos.length === 0) refuse('no ticket named');
    const tickets = ticketNos.map((no) => booking.record.tickets.find((t) => t.ticketNo === no) ?? refuse(`ticket ${no} is not on booking ${s.pnr}`));
    if (!isCurrency(s.currency)) refuse(`unknown currency ${s.currency}`);
    if (!Number.isSafeInteger(s.paidMinor) || s.paidMinor < 0) refuse('paidMinor is not a non-negative integer');
    if (s.quotedRefundMinor !== null && (!Number.isSafeInteger(s.quotedRefundMinor) || s.quotedRefundMinor < 0)) {
      refuse('quotedRefundMinor is not a non-negative integer');
    }
    return { s, booking, ticketNos, tickets };
  }

  /** A refund on the airline's books, after the airline's behaviour for its booking (latency, failure); unknown → rejected. */
  private async refundOnBooks(carrier: string, refundCode: string, opts: CallOptions) {
    const airline = this.airline(carrier);
    const row = await this.db().selectFrom('sandbox_refunds').selectAll().where('refund_code', '=', refundCode).where('carrier', '=', carrier).executeTakeFirst();
    const booking = row ? await this.findBooking(carrier, row.pnr) : undefined;
    await this.behaveWithin(behaviourOf(airline, booking), opts);
    if (!row) throw new ConnectorError('rejected', false, `sandbox airline ${carrier} has no refund ${refundCode}`);
    return row;
  }

  async refundStatus(carrier: string, refundCode: string, opts: CallOptions): Promise<AirlineRefundState> {
    const row = await this.refundOnBooks(carrier, refundCode, opts);
    return refundStateAt(row, this.clock.now());
  }

  /**
   * Withdraws a refund the airline is still processing: from now on it is withdrawn (refundStatus answers so, its
   * tickets count no more among the booking's accepted refunds). Idempotent: withdrawn already (at postbook's
   * request or by the airline's own decision) answers `already`. Refused for good once the airline decided
   * otherwise: rejected, accepted (refunding) or refunded. One conditional update: a withdrawal racing the
   * end of processing either lands before it or is refused.
   */
  async withdrawRefund(carrier: string, refundCode: string, opts: CallOptions): Promise<AirlineRefundWithdrawal> {
    const row = await this.refundOnBooks(carrier, refundCode, opts);
    const db = this.db();
    const now = this.clock.now();
    const updated = await db
      .updateTable('sandbox_refunds')
      .set({ withdrawn_at: now })
      .where('refund_code', '=', refundCode)
      .where('withdrawn_at', 'is', null)
      .where(sql<boolean>`submitted_at + processing_seconds * interval '1 second' > ${now}::timestamptz`)
      .returning('refund_code')
      .executeTakeFirst();
    this.acceptedCache.delete(`${carrier}/${row.pnr}`);
    if (updated) return { already: false, cancelReason: DEFAULT_WITHDRAW_REASON };
    const current = await db.selectFrom('sandbox_refunds').selectAll().where('refund_code', '=', refundCode).executeTakeFirstOrThrow();
    // Withdrawn meanwhile by a concurrent call (the update above waited on its row and found it set): withdrawn, even
    // when that call read the clock a moment after this one (judged at this call's instant it read 'processing', and
    // two operators withdrawing at once got 200 and 502: a CI run on PostgreSQL).
    if (current.withdrawn_at !== null) return { already: true, cancelReason: DEFAULT_WITHDRAW_REASON };
    const state = refundStateAt(current, now);
    switch (state.state) {
      case 'withdrawn':
        return { already: true, cancelReason: state.cancelReason };
      case 'rejected':
        throw new ConnectorError('rejected', false, `sandbox airline ${carrier} refuses to withdraw refund ${refundCode}: it rejected the refund already (${state.cancelReason})`);
      case 'refunding':
        throw new ConnectorError('rejected', false, `sandbox airline ${carrier} refuses to withdraw refund ${refundCode}: it accepted the refund and the money is on its way`);
      case 'refunded':
        throw new ConnectorError('rejected', false, `sandbox airline ${carrier} refuses to withdraw refund ${refundCode}: it refunded already`);
      case 'processing':
        // Not expected: the update above and this read judge the same instant.
        throw new ConnectorError('unavailable', true, `sandbox airline ${carrier} could not withdraw refund ${refundCode} now; try again`);
    }
  }

  /**
   * A void, as the airline books it: a refund of the whole booking with reason 4 in the same books (so its
   * timeline, its decision from refundBehaviour, its idempotency on the code and its REFUND coupons are the
   * refunds' own, see refunds.ts), after the airline's own void checks. An accepted void frees the booking's
   * seats at once (a new seat inventory version: cached maps show them free).
   */
  async submitVoid(carrier: string, v: AirlineVoidSubmission, opts: CallOptions): Promise<AirlineVoidReceipt> {
    const airline = this.airline(carrier);
    const refuse = (why: string, reason: string): never => {
      throw new ConnectorError('rejected', false, `sandbox airline ${carrier} refuses void ${v.voidCode}: ${why}`, reason);
    };
    if (airline.supports?.voids === false || (airline.voidWindow ?? 'none') === 'none') {
      refuse('the airline does not void through this channel', 'the airline does not void this booking; the order was not voided, request a refund instead');
    }
    // A void the airline already holds (a resend after a crash or a lost answer) answers its receipt whatever the
    // day: the deadline is for new voids (a review saw a resend after midnight refused, the void then rejected
    // here although the airline had voided and paid).
    const known = await this.db().selectFrom('sandbox_refunds').select(['carrier', 'pnr', 'reason']).where('refund_code', '=', v.voidCode).executeTakeFirst();
    const resend = known !== undefined && known.carrier === carrier && known.pnr === v.pnr && known.reason === '4';
    const booking = resend ? null : await this.findBooking(carrier, v.pnr);
    if (booking) {
      const zone = airline.homeTimeZone ?? 'UTC';
      const issued = booking.issuedAt ?? booking.record.tickets[0]?.issuedAt ?? null;
      const today = DateTime.fromJSDate(this.clock.now(), { zone }).toISODate();
      if (!issued || DateTime.fromJSDate(issued, { zone }).toISODate() !== today) refuse(`the void deadline passed (end of the issue day, ${zone})`, 'the void deadline (the end of the issue day) passed; the order was not voided, request a refund instead');
    }
    const receipt = await this.submitRefund(
      carrier,
      { refundCode: v.voidCode, pnr: v.pnr, ticketNos: v.ticketNos, reason: '4', currency: v.currency, paidMinor: v.paidMinor, quotedRefundMinor: v.paidMinor, isClaim: false },
      opts,
    );
    const row = await this.db().selectFrom('sandbox_refunds').select('decision').where('refund_code', '=', v.voidCode).executeTakeFirst();
    // Idempotent: a resent void finds no seat left to free.
    if (row?.decision === 'accept') await this.booking.releaseSeats(carrier, v.pnr);
    return { airlineVoidId: receipt.airlineRefundId, duplicate: receipt.duplicate };
  }

  async voidStatus(carrier: string, voidCode: string, opts: CallOptions): Promise<AirlineVoidState> {
    const s = await this.refundStatus(carrier, voidCode, opts);
    switch (s.state) {
      case 'processing':
        return s;
      case 'rejected':
      case 'withdrawn':
        return { state: 'rejected', cancelReason: s.cancelReason };
      case 'refunding':
        return { state: 'voiding', amountMinor: s.amountMinor, currency: s.currency };
      case 'refunded':
        return { state: 'voided', amountMinor: s.amountMinor, currency: s.currency };
    }
  }

  private airline(carrier: string): WorldAirline {
    const airline = this.world.airlines.get(carrier);
    if (!airline) throw new ConnectorError('rejected', false, `sandbox airline ${carrier} does not exist`);
    return airline;
  }

  private db(): Kysely<Database> {
    if (!this.books) throw new ConnectorError('unavailable', false, 'the sandbox airline was started without its refund books (database)');
    return this.books.db;
  }

  /** Tickets of the booking whose refund reached `refunded` by now. */
  /**
   * Accepted refunds of a PNR, cached for a second: extraction is the hot read path and the rows change only
   * when a refund is submitted (which drops the entry here; another process's submissions show within 1 s).
   * The state itself is computed from the clock at every read.
   */
  private readonly acceptedCache = new BoundedMap<string, { rows: SandboxRefundRow[]; at: number }>(10_000);
  private static readonly CACHE_MS = 1_000;

  private async refundedTickets(carrier: string, pnr: string): Promise<ReadonlySet<string>> {
    const cached = this.refundedFromCache(carrier, pnr);
    if (cached) return cached;
    const key = `${carrier}/${pnr}`;
    const rows = await this.db()
      .selectFrom('sandbox_refunds')
      .selectAll()
      .where('carrier', '=', carrier)
      .where('pnr', '=', pnr)
      .where('decision', '=', 'accept')
      .execute();
    this.acceptedCache.set(key, { rows, at: Date.now() });
    return this.refundedOf(rows);
  }

  /** refundedTickets without a promise when the cache answers (the hot path); null when the store must. */
  private refundedFromCache(carrier: string, pnr: string): ReadonlySet<string> | null {
    if (!this.books) return NO_TICKETS;
    const hit = this.acceptedCache.get(`${carrier}/${pnr}`);
    return hit && Date.now() - hit.at <= SandboxConnector.CACHE_MS ? this.refundedOf(hit.rows) : null;
  }

  private refundedOf(rows: SandboxRefundRow[]): ReadonlySet<string> {
    if (rows.length === 0) return NO_TICKETS;
    const out = new Set<string>();
    const now = this.clock.now();
    for (const row of rows) if (refundStateAt(row, now).state === 'refunded') for (const no of ticketNosOf(row)) out.add(no);
    return out;
  }


  /** Whether the airline's rule that applies to these tickets now refunds in vouchers (its own reading: refund-rules.ts). */
  private refundsInVoucher(airline: WorldAirline, booking: SandboxBooking, tickets: AirlineRecord['tickets'], reason: AirlineRefundSubmission['reason'], now: Date): boolean {
    return tickets.some((t) => {
      // the ticket's own first flight (the published step 1): a return ticket of a booking split per direction is
      // timed from its return flight, not the booking's outbound one (a review)
      const firstIndex = Math.min(...t.coupons.map((c) => c.segmentIndex));
      const first = booking.record.segments.find((s) => s.index === firstIndex) ?? booking.record.segments[0];
      if (!first) return false;
      const pax = booking.record.passengers.find((p) => p.ref === t.paxRef);
      const rule = ruleTheAirlineApplies(airline.refundRules, { passengerType: pax?.type ?? 'ADT', depLocal: first.depLocal, depTimeZone: first.depTimeZone, reason, now });
      return rule?.refundMethod === 'Voucher';
    });
  }

  /**
   * `behave` that makes the caller's AbortSignal only when the airline actually waits (see Deadline): throws
   * at once, or returns the wait (undefined when the airline answers without one).
   */
  private behaveWithin(b: WorldBehaviour, opts: CallOptions): Promise<void> | undefined {
    if (b.failure === 'timeout' || b.latencyMs) return this.behave(b, opts.signal);
    if (callExpired(opts)) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
    if (b.failure === 'error') throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
    return undefined;
  }

  private async behave(b: WorldBehaviour, signal: AbortSignal): Promise<void> {
    try {
      if (b.failure === 'timeout') {
        // The airline never answers: wait until the caller gives up.
        await sleep(2 ** 31 - 1, undefined, { signal });
      }
      if (b.latencyMs) await sleep(b.latencyMs, undefined, { signal });
    } catch (err) {
      if (signal.aborted) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
      throw err;
    }
    if (signal.aborted) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
    if (b.failure === 'error') throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
  }
}

const NO_TICKETS: ReadonlySet<string> = new Set();

const notInTime = () => new ConnectorError('timeout', true, 'the airline did not answer in time');

/** A submission past the airline's checks, with what its books need. */
interface CheckedRefund {
  s: AirlineRefundSubmission;
  booking: SandboxBooking;
  ticketNos: string[];
  tickets: AirlineRecord['tickets'];
}

function refusal(carrier: string, s: AirlineRefundSubmission, why: string): ConnectorError {
  return new ConnectorError('rejected', false, `sandbox airline ${carrier} refuses refund ${s.refundCode}: ${why}`);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** How the airline behaves for this booking: the booking's own knobs over the airline's. */
function behaviourOf(airline: WorldAirline, booking: SandboxBooking | undefined): WorldBehaviour {
  const own = booking?.behaviour;
  if (!own || Object.keys(own).length === 0) return airline.behaviour ?? {};
  return { ...airline.behaviour, ...own };
}

/**
 * The refund terms of a world's airline, built once per airline object and deep-frozen: every quote and submission
 * asks for them, and a world's airlines never change in place (a reload, from the console or followed from another
 * process, brings new objects).
 */
const termsOfAirline = new WeakMap<WorldAirline, AirlineRefundTerms>();

function termsOf(carrier: string, a: WorldAirline): AirlineRefundTerms {
  return {
    carrier,
    rules: rulesOf(a),
    confirmationDays: a.confirmationDays,
    refundDays: a.refundDays,
    fastConfirmation: a.fastConfirmation,
    voidWindow: a.voidWindow ?? 'none',
    homeTimeZone: a.homeTimeZone ?? 'UTC',
    refundDeadlineDaysAfterDeparture: a.refundDeadlineDaysAfterDeparture ?? null,
    routesWithoutRefund: [...(a.routesWithoutRefund ?? [])],
    oneRefundPerBooking: a.oneRefundPerBooking ?? false,
  };
}

/**
 * The airline's rules as it publishes them (spec 2.8): the world's rules with the airline code — copies, so that
 * freezing the terms leaves the world's own objects alone.
 */
function rulesOf(a: WorldAirline): AirlineRefundRule[] {
  return structuredClone(a.refundRules).map((r) => ({ airline: a.code, ...r }));
}
