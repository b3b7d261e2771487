// void.do (docs/voids.md): submits the newest quotation of an order, once. One statement holds the offer,
// marks it used, writes the void order at 0 with its submission due now (decision 0045: the lifecycle's sweep
// sends it) and its first history row (and so its webhook event): all of them or none.
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { ApiError } from '../errors.js';
import { constraintOf, isSerializationFailure, isUniqueViolation, sqlState } from '../store/errors.js';
import { loadCallerOrder } from '../refunds/prepare.js';
import { forgetKeptOrder } from '../refunds/kept-offers.js';
import { executePrepared } from '../refunds/statements.js';
import { readUntilWritten, type Attempt } from '../refunds/until-written.js';
import { checkVoid } from './checks.js';
import type { VoidCaller, VoidDeps } from './deps.js';
import { quoteWire, type VoidQuote } from './quote.js';
import { VOID_ORDER_STATUS as VS, VOID_STATUS as S } from './statuses.js';
import type { VoidSubmitRequest, VoidSubmitResponse } from './wire.js';

/** `yyyyMM-` and ten digits (the original's samples read "202505-0012"). */
export function newVoidCode(now: Date): string {
  return `${DateTime.fromJSDate(now, { zone: 'UTC' }).toFormat('yyyyMM')}-${String(randomInt(0, 1e5)).padStart(5, '0')}${String(randomInt(0, 1e5)).padStart(5, '0')}`;
}

type OfferState = 'active' | 'used' | 'superseded';

/** An offer's state: used once submitted; superseded when a newer quotation of its order exists. */
const OFFER_STATE = `case when o.used_at is not null then 'used'
  when exists (select 1 from void_offers n where n.order_no = o.order_no and n.seq > o.seq) then 'superseded'
  else 'active' end`;

const USED_MSG = 'illegal void offer state: this voidOfferId was already submitted; follow the void with queryVoidOrders.do';
const SUPERSEDED_MSG = 'illegal void offer state: a newer voidQuotation.do replaced this voidOfferId; submit the latest one';

function mapConflict(err: unknown): never {
  if (isUniqueViolation(err)) {
    const c = constraintOf(err) ?? '';
    if (c.includes('one_live')) throw new ApiError(S.ALREADY_SUBMITTED, 'a void of this order was already submitted; follow it with queryVoidOrders.do');
    if (c.includes('offer')) throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
  }
  // NOWAIT or a serialization conflict: another submission of this offer holds it right now
  if (sqlState(err) === '55P03' || isSerializationFailure(err)) throw new ApiError(S.SUBMISSION_IN_PROGRESS, 'void submission already in progress; wait before retrying');
  throw err;
}

/** What the void statement found: the offer's state (null: no such offer), its expiry, whether the order's version was the checked one, voids written. */
interface VoidOutcome {
  state: OfferState | null;
  expires_at: Date | null;
  current: boolean;
  created: number;
}

/**
 * One void written: the offer held (`for update nowait`: a submission of it running elsewhere fails the
 * statement, 814) and the order's row held (`for no key update`: a refund or void statement of the order
 * elsewhere is waited for, then its version read as it committed it); the offer marked used, the void order at
 * 0 (its quote is the offer's, decision 0058: only its two dates copied, for the console's queue), its first
 * history row and its due submission written only if the offer is active and unexpired and the order's
 * `ctx_version` is still the one the checks ran on (a refund written since them: read again, 818).
 */
function voidSql(caller: VoidCaller, v: { offerId: string; quote: VoidQuote; voidCode: string; carrier: string; ctxVersion: number; now: Date }) {
  const { offerId, quote, voidCode, now } = v;
  return sql<VoidOutcome>`
      with locked as (
        select o.offer_id, ${sql.raw(OFFER_STATE)} as state, o.expires_at from void_offers o where o.offer_id = ${offerId} for update of o nowait
      ),
      held as materialized (
        select o.ctx_version from orders o where o.order_no = ${quote.orderNo} for no key update of o
      ),
      offer as (
        update void_offers o set used_at = ${now}::timestamptz
        from locked
        where o.offer_id = locked.offer_id and locked.state = 'active' and locked.expires_at > ${now}::timestamptz
          and (select h.ctx_version from held h) = ${v.ctxVersion}::bigint
        returning o.offer_id
      ),
      v as (
        insert into void_orders (void_code, client_id, order_no, carrier, offer_id, status, path, currency, void_amount_minor, ticket_nos, details,
          expected_confirmation_date, expected_refund_date, created_at, updated_at, next_step_at)
        select ${voidCode}::text, ${caller.clientId}::text, ${quote.orderNo}::text, ${v.carrier}::text, offer.offer_id, ${sql.lit(VS.PROCESSING)}, ${quote.path}::text, ${quote.currency}::text,
          ${quote.voidAmountMinor}::bigint, ${sql.val(quote.ticketNos)}::text[], '{}', ${quote.expectedConfirmationDate}::text, ${quote.expectedRefundDate}::text,
          ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
        from offer
        returning void_code
      ),
      history as (
        insert into void_status_history (void_code, from_status, to_status, at, cause)
        select void_code, null, ${sql.lit(VS.PROCESSING)}, ${now}::timestamptz, 'submitted by the client' from v
      )
      select (select state from locked) as state, (select expires_at from locked) as expires_at,
        coalesce((select h.ctx_version from held h) = ${v.ctxVersion}::bigint, false) as current, (select count(*) from v)::int as created`;
}

/**
 * void.do. `resumedFrom`: the retry of an identical request under an Idempotency-Key that died or failed without
 * answering, which claimed the key then (decision 0008); refused "offer already used" (813), it answers the void that
 * request made from this voidOfferId, if it made one (as refund.do's).
 */
export async function submitVoid(deps: VoidDeps, caller: VoidCaller, req: VoidSubmitRequest, resumedFrom: Date | null = null): Promise<VoidSubmitResponse> {
  if (resumedFrom === null) return submitVoidOnce(deps, caller, req);
  try {
    return await submitVoidOnce(deps, caller, req);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== S.OFFER_ILLEGAL_STATE || !req.voidOfferId) throw err;
    const made = await deps.db
      .selectFrom('void_orders as v')
      .innerJoin('void_offers as o', 'o.offer_id', 'v.offer_id')
      .select(['v.void_code', 'o.quote'])
      .where('v.offer_id', '=', req.voidOfferId)
      .where('v.client_id', '=', caller.clientId)
      .where('v.created_at', '>=', resumedFrom)
      .executeTakeFirst();
    if (!made) throw err;
    return voidAnswer(made.quote as VoidQuote, req.voidOfferId, made.void_code);
  }
}

async function submitVoidOnce(deps: VoidDeps, caller: VoidCaller, req: VoidSubmitRequest): Promise<VoidSubmitResponse> {
  const offerId = req.voidOfferId;
  if (!offerId) throw new ApiError(S.INVALID, 'invalid request: voidOfferId is required; get one from voidQuotation.do first');
  const readOffer = () =>
    deps.db
      .selectFrom('void_offers as o')
      .select(['o.order_no', 'o.quote', 'o.expires_at', sql<OfferState>`${sql.raw(OFFER_STATE)}`.as('state')])
      .where('o.offer_id', '=', offerId)
      .where('o.client_id', '=', caller.clientId)
      .executeTakeFirst();
  const offer = await readOffer();
  if (!offer) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal void offer state: unknown voidOfferId');
  if (offer.state === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
  if (offer.state === 'superseded') throw new ApiError(S.OFFER_ILLEGAL_STATE, SUPERSEDED_MSG);
  const now = deps.clock.now();
  if (offer.expires_at.getTime() <= now.getTime()) throw new ApiError(S.OFFER_EXPIRED, 'voidOfferId expired; get a fresh one with voidQuotation.do');

  const named = req.orderNo || (req.airlinePNR && req.carrier);
  const quote = offer.quote as VoidQuote;
  const drawCode = deps.newVoidCode ?? newVoidCode;
  let voidCode = drawCode(now);
  // The order read, checked and written with the version the checks ran on; read again when it moved
  // in between (a refund submitted at the same moment: the void then answers as after it, 818).
  await readUntilWritten(async (): Promise<Attempt<true>> => {
    const ctx = await loadCallerOrder(deps, caller, named ? req : { orderNo: offer.order_no });
    if (ctx.order.order_no !== offer.order_no) throw new ApiError(S.INVALID, 'invalid request: the voidOfferId belongs to another order');
    // The order may have moved since the quotation (a refund, the deadline, another void): check again.
    try {
      checkVoid(ctx, deps.airlines.forCarrier(ctx.order.carrier), null, now);
    } catch (err) {
      // A concurrent submission of this offer may have committed its void between our two reads (803 then):
      // the offer's own state is the answer.
      if (err instanceof ApiError && (await readOffer())?.state === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
      throw err;
    }
    let outcome: VoidOutcome | undefined;
    try {
      outcome = (await executePrepared(deps.db, voidSql(caller, { offerId, quote, voidCode, carrier: ctx.order.carrier, ctxVersion: ctx.order.ctx_version, now }))).rows[0];
    } catch (err) {
      // Another void holds the code drawn: ten random digits a month meet one taken, by the birthday bound, about
      // once in a month of 10⁵ voids. Nothing was written; another code, and the order read again. `behind`, as
      // refund.do answers a taken refund code: the order did not move, so it counts toward the attempts, not the
      // moves before 814.
      if (isUniqueViolation(err) && constraintOf(err) === 'void_orders_pkey') {
        voidCode = drawCode(now);
        return 'behind';
      }
      mapConflict(err);
    }
    if (outcome?.created === 1) return true;
    if (outcome?.state === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, USED_MSG);
    if (outcome?.state === 'superseded') throw new ApiError(S.OFFER_ILLEGAL_STATE, SUPERSEDED_MSG);
    if (outcome?.state !== 'active' || outcome.current) throw new ApiError(S.OFFER_EXPIRED, 'voidOfferId expired; get a fresh one with voidQuotation.do');
    // active, unexpired and not written: the order's version was no longer the one checked
    return 'moved';
  }, 'void');
  // its refund offers and contexts kept in this process are stale now (voided, nothing is refundable)
  forgetKeptOrder(deps.db, offer.order_no);
  deps.scheduler.submitted();
  return voidAnswer(quote, offerId, voidCode);
}

function voidAnswer(quote: VoidQuote, offerId: string, voidCode: string): VoidSubmitResponse {
  return {
    status: S.OK,
    msg: 'void submitted; follow it with queryVoidOrders.do and the voidCode',
    voidCode,
    voidOfferId: offerId,
    voidStatus: VS.PROCESSING,
    ...quoteWire(quote),
  };
}

