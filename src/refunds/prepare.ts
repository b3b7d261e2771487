// Shared first half of quote and submit: shape, order, checks in the order of docs/architecture.md "Refund checks and their codes", the engine's quote.
import { ApiError } from '../errors.js';
import type { AirlineRefundTerms } from '../airline/connector.js';
import { checkRequest, checkShape, type Reason, type Selection } from './checks.js';
import { findOrderForCaller, loadContextForCaller, type OrderContext } from './context.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import type { OrderRow } from '../store/schema.js';
import { priceSelection, type PricedQuote } from './pricing.js';
import type { NowRange, Rates } from './engine/index.js';
import { REFUND_STATUS as S } from './statuses.js';
import type { RefundRequestItem } from './wire.js';

export interface OrderRef {
  orderNo?: string | null | undefined;
  airlinePNR?: string | null | undefined;
  carrier?: string | null | undefined;
}

export interface Prepared {
  ctx: OrderContext;
  selection: Selection;
  priced: PricedQuote;
}

/** 810 when the order is identified neither by orderNo nor by airlinePNR + carrier (spec 4.1). */
export function checkOrderRef(ref: OrderRef): void {
  if (!ref.orderNo && !(ref.airlinePNR && ref.carrier)) {
    throw new ApiError(S.INVALID, 'invalid request: identify the order by orderNo, or by airlinePNR together with carrier');
  }
}

/** The caller's order (824 for one of its ancillary order numbers, 801 for unknown or another client's). */
export async function findCallerOrder(deps: Pick<RefundDeps, 'db'>, caller: Pick<RefundCaller, 'clientId'>, ref: OrderRef): Promise<OrderRow> {
  checkOrderRef(ref);
  const found = await findOrderForCaller(deps.db, caller.clientId, ref);
  return orderOrFail(found).order;
}

function orderOrFail<T extends { kind: 'order' }>(found: T | { kind: 'ancillary' } | { kind: 'none' }): T {
  if (found.kind === 'ancillary') throw new ApiError(S.ANCILLARY_ORDER, 'wrong order number: use the main ticket order, not the ancillary order');
  // Another client's order is answered exactly like an unknown one.
  if (found.kind === 'none') throw new ApiError(S.ORDER_NOT_FOUND, 'order not found for refund; check the main ticket order number');
  return found;
}

/** The caller's order and everything a refund decision reads about it: one statement (801/824 as above). */
export async function loadCallerOrder(deps: Pick<RefundDeps, 'db'>, caller: Pick<RefundCaller, 'clientId'>, ref: OrderRef): Promise<OrderContext> {
  checkOrderRef(ref);
  return orderOrFail(await loadContextForCaller(deps.db, caller.clientId, ref)).ctx;
}

/** What the refund checks read besides the order, the request and the clock: the airline's terms and features, the caller's criteria. */
export interface RefundSetting {
  terms: AirlineRefundTerms | null;
  supportsRefunds: boolean;
  supportsVoids: boolean;
  minMinutesBeforeDeparture: number | null;
}

/** The setting of a refund of the carrier's order by this caller, as it is now (a world's reload or a client's edit changes it). */
export function refundSetting(deps: Pick<RefundDeps, 'airlines'>, caller: RefundCaller, carrier: string): RefundSetting {
  const connector = deps.airlines.forCarrier(carrier);
  const min = caller.settings.refundCriteria?.minMinutesBeforeDeparture;
  return {
    terms: connector?.refundTerms(carrier) ?? null,
    supportsRefunds: connector?.supports(carrier, 'refunds') ?? false,
    supportsVoids: connector?.supports(carrier, 'voids') ?? false,
    minMinutesBeforeDeparture: typeof min === 'number' ? min : null,
  };
}

/**
 * The refund checks (checks.ts, in their documented order) with what they read of the airline and the caller's
 * settings: the one set-up both a quote and a submission by refundOfferId (checked again) use. `nowRange`, when
 * given, is narrowed by the checks' readings of the clock (decision 0067).
 */
export function checkRefund(
  deps: RefundDeps,
  caller: RefundCaller,
  ctx: OrderContext,
  items: RefundRequestItem[],
  reason: Reason,
  now: Date,
  forSubmit: boolean,
  setting: RefundSetting = refundSetting(deps, caller, ctx.order.carrier),
  nowRange?: NowRange,
): { selection: Selection; terms: AirlineRefundTerms | null } {
  const selection = checkRequest(ctx, items, reason, {
    terms: setting.terms,
    supportsRefunds: setting.supportsRefunds,
    supportsVoids: setting.supportsVoids,
    minMinutesBeforeDeparture: setting.minMinutesBeforeDeparture,
    now,
    forSubmit,
    nowRange,
  });
  return { selection, terms: setting.terms };
}

export async function prepareRefund(
  deps: RefundDeps,
  caller: RefundCaller,
  ref: OrderRef,
  items: RefundRequestItem[],
  forSubmit: boolean,
): Promise<Prepared> {
  const reason = checkShape(items);
  const ctx = await loadCallerOrder(deps, caller, ref);
  return prepareFromContext(deps, caller, ctx, items, reason, forSubmit);
}

/**
 * The checks and the engine's quote on a context already at hand (read just now, or kept: decision 0030): now, with the
 * setting and rates as they are now, unless `at` gives them; its `nowRange`, when given, is narrowed by every reading
 * of the clock the checks and the engine make (src/refunds/priced-once.ts).
 */
export function prepareFromContext(
  deps: RefundDeps,
  caller: RefundCaller,
  ctx: OrderContext,
  items: RefundRequestItem[],
  reason: Reason,
  forSubmit: boolean,
  at?: { now: Date; setting: RefundSetting; rates: Rates; nowRange?: NowRange },
): Prepared {
  const now = at?.now ?? deps.clock.now();
  const rates = at?.rates ?? deps.rates;
  const nowRange = at?.nowRange;
  const { selection, terms } = checkRefund(deps, caller, ctx, items, reason, now, forSubmit, at?.setting, nowRange);
  const priced = priceSelection({ ctx, selection, terms: terms!, now, rates, serviceFeeText: caller.settings.refundServiceFee, nowRange });
  return { ctx, selection, priced };
}
