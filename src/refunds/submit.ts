// refund.do (spec 4.2): by refundOfferId (single use, guaranteed by the database) or by refundRequestList
// (quote and submit in one step). Creates the refund order (its submission to the airline due at once: the
// lifecycle's sweep sends it, decision 0035) and its status history together, in one statement
// (docs/architecture.md "Offers and submission"; issue 7: the fewest statements that keep every guarantee).
import { createHash, randomBytes } from 'node:crypto';
import { newNumericId } from '../ids.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import { ApiError } from '../errors.js';
import { canonicalJson } from '../canonical-json.js';
import { toAmount } from '../money/money.js';
import { GroupCommitter } from '../store/group-commit.js';
import { constraintOf, isSerializationFailure, isUniqueViolation, sqlState } from '../store/errors.js';
import type { Database, OrderRow } from '../store/schema.js';
import { checkShape } from './checks.js';
import { checkRefund, findCallerOrder, loadCallerOrder, prepareFromContext, prepareRefund, type OrderRef, type Prepared } from './prepare.js';
import { contextCacheFor, OrderContextCache } from './context-cache.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { display, postAsObject, voucherIdOf, wireParts, type PricedQuote } from './pricing.js';
import { forgetKeptOrder, keptOffersFor, type KeptOffer } from './kept-offers.js';
import { offerDocuments, offerStateSql, readOffer, type OfferState } from './offers.js';
import { documentsBytesSql, documentSql } from '../store/json-documents.js';
import { newOfferId } from './quote.js';
import { executePrepared } from './statements.js';
import { REFUND_ORDER_STATUS as RS, REFUND_STATUS as S } from './statuses.js';
import { readUntilWritten, type Attempt } from './until-written.js';
import type { RefundRequestItem, RefundSubmitRequest, RefundSubmitResponse } from './wire.js';

/** A new refund's code: 24 digits that grow with time (decision 0061), or the test's generator. */
const drawCode = (deps: RefundDeps) => (deps.newRefundCode ?? newNumericId)();

const USED_MSG = 'illegal refund offer state: this refundOfferId was already submitted';
const SUPERSEDED_MSG = 'illegal refund offer state: a newer quote replaced this refundOfferId; use the latest one';

/** deposit: 0 → 1 → 3 → 2; pass-through virtual card and refund claims: 0 → 1 → 5 (docs/architecture.md "Refund lifecycle"). */
export function pathOf(order: OrderRow): 'deposit' | 'card' {
  return order.source === 'booking' && order.payment_method === 'deposit' ? 'deposit' : 'card';
}

function submitAnswer(deps: RefundDeps, priced: PricedQuote, offerId: string, refundCode: string, displayCurrency: string | null): RefundSubmitResponse {
  return {
    status: S.OK,
    msg: 'refund submitted; follow it with queryRefundOrders.do and the refundCode',
    // the vouchers' id as queryRefundOrders.do will show it (a review: null here, set in the query)
    ...wireParts(priced, { displayCurrency, rates: deps.rates, voucherState: { id: voucherIdOf(refundCode), code: null, startDate: null, endDate: null } }),
    refundOfferId: offerId,
    refundPostTicketingServiceAmounts: postAsObject(priced, displayCurrency, deps.rates),
    serviceFee: {
      currency: priced.serviceFee.currency,
      transactionFee: toAmount(priced.serviceFee.minor, priced.serviceFee.currency),
      displayTransactionFee: display(priced.serviceFee.minor, priced.serviceFee.currency, displayCurrency, deps.rates),
    },
    displayCurrency,
    refundStatus: RS.PROCESSING,
    refundCode,
    cancelReason: null,
    refundReason: priced.reason,
  };
}

/** 814: another submission holds what this one needs, right now. */
const inProgress = () => new ApiError(S.SUBMISSION_IN_PROGRESS, 'refund submission already in progress; wait before retrying');

/** Database failures that mean "somebody else got there first" become the documented statuses. */
function mapConflict(err: unknown): never {
  if (isUniqueViolation(err)) {
    const c = constraintOf(err) ?? '';
    if (c.includes('refund_tickets')) throw new ApiError(S.ALREADY_SUBMITTED, 'refund already submitted for this passenger; query status');
    if (c.includes('offer')) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'this refundOfferId was already used');
  }
  // lock_not_available, a deadlock or a serialization conflict: another transaction holds what this one needs
  if (sqlState(err) === '55P03' || isSerializationFailure(err)) throw inProgress();
  throw err;
}

/**
 * A failed submission statement: `behind` when only its refund code was taken (another process drew the same one in
 * the same millisecond, decision 0061; the statement wrote nothing), so that the attempt runs again with a new code;
 * otherwise as mapConflict.
 */
function drawAgainOrMap(err: unknown): 'behind' {
  if (isUniqueViolation(err) && constraintOf(err) === 'refund_orders_pkey') return 'behind';
  mapConflict(err);
}

/**
 * refund.do. `resumedFrom`: this is the retry of an identical request under an Idempotency-Key that died or failed
 * without answering, which claimed the key then (decision 0008); refused "offer already used" (813) or "already
 * submitted" (803), it answers the refund that request made, if it made one.
 */
export async function submitRefund(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, resumedFrom: Date | null = null): Promise<RefundSubmitResponse> {
  const hasOffer = typeof req.refundOfferId === 'string' && req.refundOfferId !== '';
  const hasList = Array.isArray(req.refundRequestList) && req.refundRequestList.length > 0;
  if (hasOffer === hasList) throw new ApiError(S.INVALID, 'invalid request: send refundOfferId or refundRequestList, not both and not neither');
  const displayCurrency = req.displayCurrency ? req.displayCurrency.toUpperCase() : null;
  const submitting = hasOffer ? submitOffer(deps, caller, req, req.refundOfferId!, displayCurrency) : submitList(deps, caller, req, req.refundRequestList!, displayCurrency);
  if (resumedFrom === null) return submitting;
  try {
    return await submitting;
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== S.OFFER_ILLEGAL_STATE && err.status !== S.ALREADY_SUBMITTED)) throw err;
    const made = await refundMadeSince(deps, caller, req, hasOffer, resumedFrom);
    if (!made) throw err;
    return submitAnswer(deps, made.quote as PricedQuote, made.offer_id, made.refund_code, displayCurrency);
  }
}

/**
 * The refund an identical request made since `since` and could not answer (it died, or failed after its commit), or
 * undefined when it made none: the refund of this refundOfferId, or of exactly this refundRequestList, by this
 * client. Its retry is then answered as the first request would have been, not 813/803 (a review: that refusal was
 * replayed under the key for good).
 */
async function refundMadeSince(deps: RefundDeps, caller: Pick<RefundCaller, 'clientId'>, req: RefundSubmitRequest, byOffer: boolean, since: Date) {
  const made = await deps.db
    .selectFrom('refund_orders as r')
    .innerJoin('refund_offers as o', 'o.offer_id', 'r.offer_id')
    .select(['r.refund_code', 'r.offer_id', 'r.order_no', 'o.quote', 'o.request'])
    .where('r.client_id', '=', caller.clientId)
    .where('r.created_at', '>=', since)
    .$if(byOffer, (q) => q.where('r.offer_id', '=', req.refundOfferId!))
    .orderBy('r.created_at')
    .limit(100)
    .execute();
  const wanted = byOffer ? null : canonicalJson(req.refundRequestList);
  return made.find((r) => (wanted === null || canonicalJson(r.request) === wanted) && (!req.orderNo || r.order_no === req.orderNo));
}

/** A refund by refundRequestList, priced and checked, ready to be written with its (used) offer. */
export interface NewSubmission {
  offerId: string;
  refundCode: string;
  clientId: string;
  order: OrderRow;
  /** The order's context version its checks ran on: written only while it is the order's (decision 0039). */
  ctxVersion: number;
  priced: PricedQuote;
  items: RefundRequestItem[];
  displayCurrency: string | null;
  now: Date;
  expiresAt: Date;
  /** The first history row's cause (default: submitted by the client). */
  cause?: string;
}

/**
 * A priced refund by refundRequestList as it will be written (808 when nothing in it is refundable): only if the
 * order's context version is still the one it was checked on.
 */
function newSubmission(
  deps: RefundDeps,
  caller: Pick<RefundCaller, 'clientId'>,
  { ctx, priced }: Prepared,
  items: RefundRequestItem[],
  displayCurrency: string | null,
  cause?: string,
): NewSubmission {
  if (!priced.isRefundable) throw new ApiError(S.NON_REFUNDABLE, 'ticket non-refundable under airline policy');
  const now = deps.clock.now();
  return {
    offerId: newOfferId(),
    refundCode: drawCode(deps),
    clientId: caller.clientId,
    order: ctx.order,
    ctxVersion: ctx.order.ctx_version,
    priced,
    items,
    displayCurrency,
    now,
    expiresAt: new Date(now.getTime() + deps.offerTtlMs),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** A new refund's columns taken from its order and its quote, as the batch statements' documents carry them. */
function refundColumns(s: { order: OrderRow; priced: PricedQuote; displayCurrency: string | null }) {
  return {
    carrier: s.order.carrier,
    reason: s.priced.reason,
    ticket_nos: s.priced.tickets.map((t) => t.ticketNo),
    pax_indexes: s.priced.tickets.map((t) => t.paxIndex),
    path: pathOf(s.order),
    quote_type: s.priced.quoteType,
    refund_method: s.priced.refundMethod,
    currency: s.priced.currency,
    estimated_refund_minor: s.priced.fare.refundMinor,
    post_refund_minor: s.priced.post.reduce((a, p) => a + p.refundMinor, 0),
    service_fee_currency: s.priced.serviceFee.currency,
    service_fee_minor: s.priced.serviceFee.minor,
    display_currency: s.displayCurrency,
    expected_confirmation_date: s.priced.expectedConfirmationDate,
    expected_refund_date: s.priced.expectedRefundDate,
    paid_minor: s.priced.tickets.reduce((a, t) => a + t.paidMinor, 0),
  };
}

/**
 * The submission statements' CTE `held`: the batch's orders (order_no, ctx_version), each row held until the
 * transaction ends (`for no key update`, in order_no order, so that two statements holding several orders
 * never wait on each other in a circle) and its version read as it stands once any other transaction that held
 * it has committed. Of two statements of one order at once — the list writer and the offers' writer of one
 * process, two API processes, a console approval — the second thus checks against the version the first
 * wrote (decision 0039); a version read from the statement's snapshot would be the one both started from.
 * Quotes and other reads are not held up; the statement's own triggers move the version of the rows it holds.
 * One lookup per order, as the offers' (a generic plan made on a young store would read orders whole for a list
 * of keys); joined whole (not a sub-select per row, which would read the CTE only as far as each order), so
 * every order is held, in order, before anything is written.
 */
const HELD_ORDERS = sql`held as materialized (
      select h.* from (select distinct order_no from batch order by order_no) b cross join lateral (
        select o.order_no, o.ctx_version from orders o where o.order_no = b.order_no
        for no key update of o
      ) h
    )`;

/**
 * Submissions by refundRequestList in one statement (one or several; group commit, decision 0018), from one
 * JSON document and their requests and quotes beside it (src/store/json-documents.ts): each quote stored as a used
 * offer (which makes older offers of its tickets superseded, decision 0019), and the rows offerSubmissionsSql
 * writes for a submission by offer (refund order due for submission, tickets, history row) — each only if the
 * order's `ctx_version` is still the one its checks ran on and no earlier submission of the same order in the batch
 * is written (decision 0039): one row per submission, in the batch's order, saying whether it was written; the others
 * read the order again. A refund of a ticket that is live already fails the statement on refund_tickets_one_live;
 * the group committer then writes them one by one (that one answers 803).
 */
export function submissionsSql(batch: readonly NewSubmission[]) {
  // the request and the quote of each apart from the batch's JSON (src/store/json-documents.ts: read once, as json),
  // as an offer stores them
  const { text, spans } = offerDocuments(batch.map((s) => [s.items, s.priced] as const));
  const rows = batch.map((s, n) => ({
    n,
    offer_id: s.offerId,
    refund_code: s.refundCode,
    client_id: s.clientId,
    order_no: s.order.order_no,
    ctx_version: s.ctxVersion,
    ...refundColumns(s),
    ...spans[n],
    expires_at: s.expiresAt.toISOString(),
    at: s.now.toISOString(),
    cause: s.cause ?? 'submitted by the client',
  }));
  return sql<{ written: boolean; behind: boolean }>`
    with docs as materialized (
      -- the parameter is a kysely value, which has no SQL text of its own to hand to documentsBytesSql: named once here
      select ${sql.raw(documentsBytesSql('p.text'))} as bytes from (select ${text}::text as text) p
    ),
    batch as (
      -- quote as json: stored as given in the used offer (a json column), the refund's quote (decision 0053: the refund's
      -- details hold only what the refund adds, none yet)
      select b.*, ${sql.raw(documentSql('d.bytes', 'b.request_at', 'b.request_len'))} as request, ${sql.raw(documentSql('d.bytes', 'b.quote_at', 'b.quote_len'))} as quote
      from docs d, json_to_recordset(${JSON.stringify(rows)}::json) as b(n int, offer_id text, refund_code text, client_id text, order_no text,
        ctx_version bigint, carrier text, reason text, ticket_nos text[], pax_indexes int[], request_at int, request_len int, quote_at int,
        quote_len int, path text, quote_type text, refund_method text, currency text, estimated_refund_minor bigint, post_refund_minor bigint,
        service_fee_currency text, service_fee_minor bigint, display_currency text, expected_confirmation_date text, expected_refund_date text,
        paid_minor bigint, expires_at timestamptz, at timestamptz, cause text)
    ),
    ${HELD_ORDERS},
    -- the submissions to write: the order's version still the one checked, the first of the batch per order
    checked as (
      select b.*, row_number() over (partition by b.order_no order by b.n) as nth from batch b left join held h on h.order_no = b.order_no
      where b.ctx_version = h.ctx_version
    ),
    usable as (
      select * from checked where nth = 1
    ),
    offer as (
      insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at, used_at)
      select offer_id, client_id, order_no, reason, ticket_nos, request, quote, 'used', expires_at, at, at from usable
    ),
    refund as (
      insert into refund_orders (refund_code, client_id, order_no, carrier, offer_id, reason, status, path, quote_type, refund_method, currency,
        estimated_refund_minor, post_refund_minor, service_fee_currency, service_fee_minor, display_currency, expected_confirmation_date,
        expected_refund_date, ticket_nos, paid_minor, details, created_at, updated_at, next_poll_at)
      select refund_code, client_id, order_no, carrier, offer_id, reason, ${sql.lit(RS.PROCESSING)}, path, quote_type, refund_method, currency,
        estimated_refund_minor, post_refund_minor, service_fee_currency, service_fee_minor, display_currency, expected_confirmation_date,
        expected_refund_date, ticket_nos, paid_minor, '{}', at, at, at
      from usable
    ),
    tickets as (
      insert into refund_tickets (refund_code, ticket_no, pax_index)
      select u.refund_code, t.ticket_no, t.pax_index from usable u, unnest(u.ticket_nos, u.pax_indexes) as t(ticket_no, pax_index)
    ),
    history as (
      insert into refund_status_history (refund_code, from_status, to_status, at, cause)
      select refund_code, null, ${sql.lit(RS.PROCESSING)}, at, cause from usable
    )
    -- a join, not a sub-select per row: that read the whole of usable and checked again for each submission
    select coalesce(c.nth = 1, false) as written, coalesce(c.nth > 1, false) as behind
    from batch b left join checked c on c.n = b.n order by b.n`;
}

/** What `submissionsSql` answered for one submission, as an attempt's outcome. */
function attemptOf(row: { written: boolean; behind: boolean } | undefined): Attempt<true> {
  return row?.written ? true : row?.behind ? 'behind' : 'moved';
}

/** One writer of submissions per store. */
const submissionWriters = new WeakMap<Kysely<Database>, GroupCommitter<NewSubmission, Attempt<true>>>();

/**
 * Resolves once committed: written, or why not — `moved`, the order's version is no longer the one checked;
 * `behind`, another submission of the batch for the order was written first (either way: read it again).
 */
function writeSubmission(deps: RefundDeps, s: NewSubmission): Promise<Attempt<true>> {
  let writer = submissionWriters.get(deps.db);
  if (!writer) {
    writer = new GroupCommitter<NewSubmission, Attempt<true>>(async (batch) =>
      (await executePrepared(deps.db, submissionsSql(batch))).rows.map(attemptOf),
    );
    submissionWriters.set(deps.db, writer);
  }
  return writer.write(s);
}

function submitList(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, items: RefundRequestItem[], displayCurrency: string | null) {
  // The order's context kept by a quote of it in this process (decision 0030), if any: checked and priced from
  // once, without a read; the statement writes only at its version. A refusal priced from it, or an order that
  // moved since it was read, is read again (a stale copy is no move of the order during this request).
  const key = OrderContextCache.key(caller.clientId, req);
  let kept = key === null ? undefined : contextCacheFor(deps.db).get(key);
  return readUntilWritten(async () => {
    const fromKept = kept;
    kept = undefined;
    let prepared: Prepared | undefined;
    if (fromKept) {
      try {
        prepared = prepareFromContext(deps, caller, fromKept, items, checkShape(items), true);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
    }
    if (prepared === undefined) {
      try {
        prepared = await prepareRefund(deps, caller, req, items, true);
      } catch (err) {
        if (err instanceof ApiError && err.status === S.OPERATOR_CONSOLE) await recordConsoleCase(deps, caller, req, items, displayCurrency);
        throw err;
      }
    }
    const submission = newSubmission(deps, caller, prepared, items, displayCurrency);
    let written: Attempt<true>;
    try {
      written = await writeSubmission(deps, submission);
    } catch (err) {
      written = drawAgainOrMap(err);
    }
    if (written !== true) return written === 'moved' && prepared.ctx === fromKept ? 'behind' : written;
    forgetKeptOrder(deps.db, prepared.ctx.order.order_no);
    deps.scheduler.submitted();
    return submitAnswer(deps, submission.priced, submission.offerId, submission.refundCode, displayCurrency);
  });
}

// ---- refund.do by refundOfferId: a kept offer (decision 0038), or the offer and the order read ----

/** A submission by refundOfferId, checked in this process (on a kept context or one just read), as its statement writes it. */
export interface OfferSubmission {
  offerId: string;
  refundCode: string;
  clientId: string;
  order: OrderRow;
  /** The order's context version its checks ran on: written only while it is the order's (decision 0039). */
  ctxVersion: number;
  priced: PricedQuote;
  displayCurrency: string | null;
  now: Date;
}

/** What the statement found for one submission by refundOfferId: written, or why not. */
interface OfferOutcome {
  created: boolean;
  /** The offer's state as held (null: no such offer of this client, or `busy`). */
  state: OfferState | null;
  /** Whether the offer is held by another transaction (a submission of it elsewhere, under way): 814. */
  busy: boolean;
  expires_at: Date | string | null;
  /** Whether the order's context version was still the one the checks ran on. */
  current: boolean;
  /** Whether another submission of the batch for the same order was written first. */
  behind: boolean;
}

/**
 * Submissions by refundOfferId in one statement (group commit, decision 0018), from one JSON document: each
 * offer held (`for no key update skip locked`, as its update needs: one that a submission elsewhere holds is
 * reported `busy`, 814, and the batch's other submissions go on), marked used and its refund written (refund
 * order due for submission, its quote the offer's (decision 0053), tickets, first history row) only if
 * it is active, unexpired and the order's `ctx_version` is still the one its checks ran on. Of several
 * submissions of one order in a batch only the first may be written: the others' checks ran on the context the
 * first one changes, so they are reported `behind` and read the order again after this commit (an XO
 * one-refund-per-booking order, two offers of one booking). One row per submission, in the batch's order.
 *
 * Every table is read by key, one lookup per submission (a lateral sub-select per offer and per order): the
 * statement is prepared, and a generic plan made on a young store would otherwise hash-join the document's
 * rows (estimated at 100) against refund_offers and orders read whole (src/store/hot-path-indexes.test.ts).
 */
export function offerSubmissionsSql(batch: readonly OfferSubmission[]) {
  const rows = batch.map((s, n) => ({
    n,
    offer_id: s.offerId,
    refund_code: s.refundCode,
    client_id: s.clientId,
    order_no: s.order.order_no,
    ctx_version: s.ctxVersion,
    ...refundColumns(s),
    at: s.now.toISOString(),
  }));
  return sql<OfferOutcome>`
    with batch as (
      select * from json_to_recordset(${JSON.stringify(rows)}::json) as b(n int, offer_id text, refund_code text, client_id text, order_no text,
        ctx_version bigint, carrier text, reason text, ticket_nos text[], pax_indexes int[], path text, quote_type text, refund_method text,
        currency text, estimated_refund_minor bigint, post_refund_minor bigint, service_fee_currency text, service_fee_minor bigint,
        display_currency text, expected_confirmation_date text, expected_refund_date text, paid_minor bigint, at timestamptz)
    ),
    -- each offer once, however many submissions of it the batch holds (a row per pair would multiply the answers)
    locked as (
      select l.* from (select distinct offer_id from batch) b cross join lateral (
        select o.offer_id, o.client_id, ${sql.raw(offerStateSql('o'))} as state, o.expires_at
        from refund_offers o where o.offer_id = b.offer_id
        for no key update of o skip locked
      ) l
    ),
    ${HELD_ORDERS},
    versions as (
      select b.n, b.ctx_version = h.ctx_version as current from batch b left join held h on h.order_no = b.order_no
    ),
    candidates as (
      select b.*, row_number() over (partition by b.order_no order by b.n) as nth
      from batch b join locked l on l.offer_id = b.offer_id and l.client_id = b.client_id join versions v on v.n = b.n
      where l.state = 'active' and l.expires_at > b.at and v.current
    ),
    usable as (
      select * from candidates where nth = 1
    ),
    offer as (
      update refund_offers o set status = 'used', used_at = u.at from usable u where o.offer_id = u.offer_id
      returning o.offer_id
    ),
    refund as (
      insert into refund_orders (refund_code, client_id, order_no, carrier, offer_id, reason, status, path, quote_type, refund_method, currency,
        estimated_refund_minor, post_refund_minor, service_fee_currency, service_fee_minor, display_currency, expected_confirmation_date,
        expected_refund_date, ticket_nos, paid_minor, details, created_at, updated_at, next_poll_at)
      select u.refund_code, u.client_id, u.order_no, u.carrier, u.offer_id, u.reason, ${sql.lit(RS.PROCESSING)}, u.path, u.quote_type, u.refund_method, u.currency,
        u.estimated_refund_minor, u.post_refund_minor, u.service_fee_currency, u.service_fee_minor, u.display_currency, u.expected_confirmation_date,
        u.expected_refund_date, u.ticket_nos, u.paid_minor, '{}', u.at, u.at, u.at
      from usable u join offer on offer.offer_id = u.offer_id
      returning refund_code
    ),
    tickets as (
      insert into refund_tickets (refund_code, ticket_no, pax_index)
      select u.refund_code, t.ticket_no, t.pax_index from usable u join refund r on r.refund_code = u.refund_code, unnest(u.ticket_nos, u.pax_indexes) as t(ticket_no, pax_index)
    ),
    history as (
      insert into refund_status_history (refund_code, from_status, to_status, at, cause)
      select u.refund_code, null, ${sql.lit(RS.PROCESSING)}, u.at, 'submitted by the client' from usable u join refund r on r.refund_code = u.refund_code
    )
    select l.state, l.expires_at, coalesce(v.current, false) as current, coalesce(c.nth, 1) > 1 as behind,
      r.refund_code is not null as created, coalesce(e.busy, false) as busy
    from batch b left join locked l on l.offer_id = b.offer_id and l.client_id = b.client_id left join versions v on v.n = b.n
      left join candidates c on c.n = b.n left join refund r on r.refund_code = b.refund_code
      -- an offer this statement could not hold that exists: held elsewhere (looked up only then, by key; offset 0
      -- keeps it a lookup per row, not a join that a generic plan would make by reading refund_offers whole)
      left join lateral (
        select true as busy from refund_offers o where l.offer_id is null and o.offer_id = b.offer_id and o.client_id = b.client_id offset 0
      ) e on true
    order by b.n`;
}

/** One writer of submissions by refundOfferId per store. */
const offerWriters = new WeakMap<Kysely<Database>, GroupCommitter<OfferSubmission, OfferOutcome>>();

function writeOfferSubmission(deps: RefundDeps, s: OfferSubmission): Promise<OfferOutcome> {
  let writer = offerWriters.get(deps.db);
  if (!writer) {
    writer = new GroupCommitter<OfferSubmission, OfferOutcome>(async (batch) => (await executePrepared(deps.db, offerSubmissionsSql(batch))).rows);
    offerWriters.set(deps.db, writer);
  }
  return writer.write(s);
}

/**
 * refund.do by a refundOfferId quoted by this process, without reading the offer or the order (decision 0038):
 * the kept offer checked again on the context it was priced from, then one statement. The answer, or null
 * when the reading path must answer instead — an offer not kept here (a non-refundable quote is never kept)
 * or being submitted, a request naming the order otherwise than by the offer's orderNo, an offer expired by
 * this clock, any refused check, or an order changed since that context — so that every refusal is the
 * reading path's, in its order of checks.
 */
async function submitKeptOffer(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, offerId: string, displayCurrency: string | null): Promise<RefundSubmitResponse | null> {
  const offers = keptOffersFor(deps.db);
  const kept = offers.claim(offerId, caller.clientId);
  if (kept === null) return null;
  // The order named otherwise than by the offer's orderNo (by PNR, or another order: 810): the reading path
  // answers this request; the offer stays kept for the next.
  const orderNo = kept.ctx.order.order_no;
  const namedOtherwise = req.orderNo ? req.orderNo !== orderNo : Boolean(req.airlinePNR && req.carrier);
  try {
    if (namedOtherwise) return null;
    // One time for the checks and the write, as on the reading path.
    const now = deps.clock.now();
    const refundCode = keptSubmissionChecked(deps, caller, kept, now);
    if (refundCode === null) return null;
    const order = kept.ctx.order;
    const submission: OfferSubmission = { offerId, refundCode, clientId: caller.clientId, order, ctxVersion: order.ctx_version, priced: kept.priced, displayCurrency, now };
    let outcome: OfferOutcome;
    try {
      outcome = await writeOfferSubmission(deps, submission);
    } catch (err) {
      // its code taken: the reading path draws another
      drawAgainOrMap(err);
      return null;
    }
    if (!outcome.created) {
      if (outcome.busy) throw inProgress();
      // The order moved since the kept context (another refund, a change by another process), or another
      // submission of the batch came first for this order: the reading path checks it.
      if (!outcome.current || outcome.behind || outcome.state === null) return null;
      offers.refused++;
      throwUnusable(outcome, submission.now);
    }
    offers.written++;
    forgetKeptOrder(deps.db, orderNo);
    deps.scheduler.submitted();
    return submitAnswer(deps, kept.priced, offerId, refundCode, displayCurrency);
  } finally {
    offers.release(offerId, namedOtherwise);
  }
}

/** The kept offer's checks in this process: a new refund code when it may be written, null when the reading path must answer. */
function keptSubmissionChecked(deps: RefundDeps, caller: RefundCaller, kept: KeptOffer, now: Date): string | null {
  if (kept.expiresAt.getTime() <= now.getTime()) return null;
  try {
    checkRefund(deps, caller, kept.ctx, kept.items, checkShape(kept.items), now, true);
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
  return drawCode(deps);
}

/** An offer the statement found not usable: 805 when only its time ran out, otherwise 813 with why. */
function throwUnusable(outcome: Pick<OfferOutcome, 'state' | 'expires_at'>, now: Date): never {
  if (outcome.state === 'active' && outcome.expires_at && new Date(outcome.expires_at).getTime() <= now.getTime()) {
    throw new ApiError(S.OFFER_EXPIRED, 'refundOfferId expired; obtain a fresh offer and resubmit');
  }
  throw new ApiError(S.OFFER_ILLEGAL_STATE, outcome.state === 'superseded' ? SUPERSEDED_MSG : USED_MSG);
}

/**
 * refund.do by refundOfferId, the reading path: the offer read, the order's context read, the checks run on it,
 * then the statement of kept offers (shared by concurrent submissions), which writes only if the order's
 * `ctx_version` is still the one just read and no other submission of its batch came first for the order;
 * else read again (decision 0039).
 */
/**
 * Offers a submission of this process is writing now, by either path. A second submission of one answers 814,
 * as DESIGN says of a concurrent submit of the same offer and as another process's held row answers (a review:
 * in one process it waited for the first and answered 813, "already used"); once the first is over, 813.
 */
const submittingOffers = new Set<string>();

async function submitOffer(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, offerId: string, displayCurrency: string | null) {
  if (submittingOffers.has(offerId)) throw inProgress();
  submittingOffers.add(offerId);
  try {
    const fast = await submitKeptOffer(deps, caller, req, offerId, displayCurrency);
    if (fast !== null) return fast;
    const answer = await readUntilWritten(() => submitReadOffer(deps, caller, req, offerId, displayCurrency));
    // Kept here still when this request named the order by PNR: used now, so the next submission of it is read (813).
    keptOffersFor(deps.db).forget(offerId);
    return answer;
  } finally {
    submittingOffers.delete(offerId);
  }
}

/** One attempt of the reading path: the answer, or why it was not written (read again). */
async function submitReadOffer(
  deps: RefundDeps,
  caller: RefundCaller,
  req: RefundSubmitRequest,
  offerId: string,
  displayCurrency: string | null,
): Promise<Attempt<RefundSubmitResponse>> {
  const offer = await readOffer(deps.db, offerId, caller.clientId);
  if (!offer) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: unknown refundOfferId');
  const now = deps.clock.now();
  if (offer.state === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
  if (offer.state === 'superseded') throw new ApiError(S.OFFER_ILLEGAL_STATE, SUPERSEDED_MSG);
  if (offer.expires_at.getTime() <= now.getTime()) throw new ApiError(S.OFFER_EXPIRED, 'refundOfferId expired; obtain a fresh offer and resubmit');

  // The order named in the request, when named, must be the offer's.
  const ctx = await loadCallerOrder(deps, caller, req.orderNo || (req.airlinePNR && req.carrier) ? req : { orderNo: offer.order_no });
  if (ctx.order.order_no !== offer.order_no) throw new ApiError(S.INVALID, 'invalid request: the refundOfferId belongs to another order');
  // The state may have moved since the quote (another refund, departure passed): check again.
  const items = offer.request as RefundRequestItem[];
  try {
    checkRefund(deps, caller, ctx, items, checkShape(items), now, true);
  } catch (err) {
    if (err instanceof ApiError && err.status === S.OPERATOR_CONSOLE) await recordConsoleCase(deps, caller, { orderNo: ctx.order.order_no }, items, displayCurrency);
    // A concurrent submission of this same offer may have committed between the offer read and the order
    // read: its refund then fails our check (803). The offer's own state is the answer (spec 7.1: 813).
    if (err instanceof ApiError && (await readOffer(deps.db, offerId, caller.clientId))?.state === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
    throw err;
  }
  const priced = offer.quote as PricedQuote;
  if (!priced.isRefundable) throw new ApiError(S.NON_REFUNDABLE, 'ticket non-refundable under airline policy');

  const refundCode = drawCode(deps);
  let outcome: OfferOutcome;
  try {
    outcome = await writeOfferSubmission(deps, { offerId, refundCode, clientId: caller.clientId, order: ctx.order, ctxVersion: ctx.order.ctx_version, priced, displayCurrency, now });
  } catch (err) {
    return drawAgainOrMap(err);
  }
  if (!outcome.created) {
    if (outcome.busy) throw inProgress();
    if (outcome.state === null) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: unknown refundOfferId');
    if (outcome.behind) return 'behind';
    if (!outcome.current) return 'moved';
    throwUnusable(outcome, now);
  }
  forgetKeptOrder(deps.db, ctx.order.order_no);
  deps.scheduler.submitted();
  return submitAnswer(deps, priced, offerId, refundCode, displayCurrency);
}

// ---- the operator console's cases (decision 0029) ----

/** What a console case holds: the request as submitted, with its order resolved to an orderNo. */
export interface ConsoleCaseRequest {
  orderNo: string;
  refundRequestList: RefundRequestItem[];
  displayCurrency: string | null;
}

/**
 * refund.do's 825 (a voluntary refund after departure): the request becomes a console case for an agent, in a
 * statement of its own (nothing else is written), and the answer stays 825. The same request sent again while
 * its case waits adds nothing (unique index console_cases_one_pending).
 */
async function recordConsoleCase(deps: RefundDeps, caller: Pick<RefundCaller, 'clientId'>, ref: OrderRef, items: RefundRequestItem[], displayCurrency: string | null): Promise<void> {
  const order = await findCallerOrder(deps, caller, ref);
  const request: ConsoleCaseRequest = { orderNo: order.order_no, refundRequestList: items, displayCurrency };
  const text = JSON.stringify(request);
  await deps.db
    .insertInto('console_cases')
    .values({
      case_id: `cc_${randomBytes(9).toString('base64url')}`,
      client_id: caller.clientId,
      order_no: order.order_no,
      request: text,
      request_hash: createHash('sha256').update(text).digest('hex'),
      created_at: deps.clock.now(),
    })
    .onConflict((oc) => oc.columns(['client_id', 'order_no', 'request_hash']).where('status', '=', 'pending').doNothing())
    .execute();
}

/**
 * An agent approves a console case: the request is checked and priced again as a submission would be, except
 * that the console is the place it was sent to (no 825), and becomes a refund at status 0 with its first job,
 * in one transaction with `alongside` (the case's decision and its audit row). Throws ApiError with the refund
 * code that stops it (e.g. 803 when a refund of the tickets exists, 808 when nothing is refundable).
 */
/**
 * What approving a console case would refund now, priced as submitApprovedCase prices it (the same checks, the
 * engine's quote, 808 when nothing in it is refundable), with nothing written: no offer, no kept context. The case
 * page's estimate; the approval prices again when it writes.
 */
export async function priceApprovedCase(deps: RefundDeps, caller: RefundCaller, request: ConsoleCaseRequest): Promise<{ priced: PricedQuote; path: 'deposit' | 'card' }> {
  const { priced, ctx } = await prepareRefund(deps, caller, { orderNo: request.orderNo }, request.refundRequestList, false);
  if (!priced.isRefundable) throw new ApiError(S.NON_REFUNDABLE, 'ticket non-refundable under airline policy');
  return { priced, path: pathOf(ctx.order) };
}

export async function submitApprovedCase(
  deps: RefundDeps,
  caller: RefundCaller,
  request: ConsoleCaseRequest,
  cause: string,
  alongside: (trx: Transaction<Database>, refundCode: string) => Promise<void>,
): Promise<{ refundCode: string }> {
  // Read, checked and written as a submission by list is (decision 0039): at the version its checks ran on,
  // read again when the order moved in between (a void or refund of it written at the same moment).
  return readUntilWritten(async () => {
    const prepared = await prepareRefund(deps, caller, { orderNo: request.orderNo }, request.refundRequestList, false);
    const submission = newSubmission(deps, caller, prepared, request.refundRequestList, request.displayCurrency, cause);
    let written: Attempt<true>;
    try {
      // in the same transaction as the case's decision (`alongside`), which is made only if the refund is written
      written = await deps.db.transaction().execute(async (trx) => {
        const attempt = attemptOf((await executePrepared(trx, submissionsSql([submission]))).rows[0]);
        if (attempt === true) await alongside(trx, submission.refundCode);
        return attempt;
      });
    } catch (err) {
      written = drawAgainOrMap(err);
    }
    if (written !== true) return written;
    forgetKeptOrder(deps.db, prepared.ctx.order.order_no);
    deps.scheduler.submitted();
    return { refundCode: submission.refundCode };
  });
}
