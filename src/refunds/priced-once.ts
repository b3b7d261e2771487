// A quote priced once and answered again (decision 0067). A quote is a pure function of the order's context, the
// request, the airline's terms and features, the caller's criteria and fee, the rates it looks up and the clock; the
// context kept from an earlier quote (decision 0030) is the same frozen object from one quote of the order to the
// next, so the checks and the engine's pricing of the same request from it are kept with it and answered again while
// none of those has changed: the clock still inside the range of instants over which every reading of it the checks
// and the engine made gives the same (NowRange: minutes to departure, deadlines, the calendar day), the setting the
// same objects and values, every rate looked up the same. The offer is still stored per quote, checked against the
// order's version (src/refunds/offers.ts): what is kept is the pricing, never the store's answer.
import { BoundedMap } from '../bounded-map.js';
import { deepFreeze } from '../deep-freeze.js';
import type { Reason } from './checks.js';
import type { OrderContext } from './context.js';
import { contextCacheFor, type OrderContextCache } from './context-cache.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { NowRange } from './engine/index.js';
import { prepareFromContext, refundSetting, type Prepared, type RefundSetting } from './prepare.js';
import type { RefundRequestItem } from './wire.js';

/** A quote priced once, with everything it was priced from that may change while its context is kept. */
interface PricedOnce {
  prepared: Prepared;
  /** The instants at which the clock's readings give what they gave when it was priced. */
  range: NowRange;
  setting: RefundSetting;
  serviceFeeText: string | undefined;
  /** Every rate the pricing looked up, with what it found. */
  rates: ReadonlyArray<readonly [from: string, to: string, rate: RateAnswer]>;
}

type RateFunction = (from: string, to: string) => string | number | null | undefined;
type RateAnswer = ReturnType<RateFunction>;

/** Distinct requests kept per context (the same order quoted for one passenger, then another…): a flood of them replaces these. */
const REQUESTS_PER_CONTEXT = 4;

const pricedOf = new WeakMap<OrderContext, BoundedMap<string, PricedOnce>>();

function sameSetting(a: RefundSetting, b: RefundSetting): boolean {
  return (
    a.terms === b.terms &&
    a.supportsRefunds === b.supportsRefunds &&
    a.supportsVoids === b.supportsVoids &&
    a.minMinutesBeforeDeparture === b.minMinutesBeforeDeparture
  );
}

function stillHolds(kept: PricedOnce, nowMs: number, setting: RefundSetting, serviceFeeText: string | undefined, rates: RateFunction): boolean {
  if (!kept.range.holds(nowMs)) return false;
  if (!sameSetting(kept.setting, setting) || kept.serviceFeeText !== serviceFeeText) return false;
  for (const [from, to, rate] of kept.rates) if (rates(from, to) !== rate) return false;
  return true;
}

/**
 * The checks and the engine's quote of `items` from `ctx` now (prepareFromContext for a quote), answered from an
 * earlier pricing of the same request from the same context when nothing it was priced from has changed. The
 * answer is deep-frozen: it is shared by every quote that gets it. Kept only where nothing it was priced from can
 * change in place unseen: a frozen context (the kept ones are), frozen terms (the connector's contract) and rates
 * read through a function (the world's, as they are at each look). A refusal (ApiError) is not kept.
 */
export function quoteFromContext(
  deps: RefundDeps,
  caller: RefundCaller,
  ctx: OrderContext,
  items: RefundRequestItem[],
  reason: Reason,
  // counted with the store's kept contexts (read by /metrics as postbook_refund_pricings_total): the quote hands in
  // the cache it took the context from
  counts: OrderContextCache = contextCacheFor(deps.db),
): Prepared {
  const now = deps.clock.now();
  const nowMs = now.getTime();
  const setting = refundSetting(deps, caller, ctx.order.carrier);
  const rates = deps.rates;
  const serviceFeeText = caller.settings.refundServiceFee;
  if (!Object.isFrozen(ctx) || typeof rates !== 'function' || (setting.terms !== null && !Object.isFrozen(setting.terms))) {
    counts.pricingsMade++;
    return prepareFromContext(deps, caller, ctx, items, reason, false, { now, setting, rates });
  }
  const key = JSON.stringify(items);
  let kept = pricedOf.get(ctx);
  const hit = kept?.get(key);
  if (hit !== undefined && stillHolds(hit, nowMs, setting, serviceFeeText, rates)) {
    counts.pricingsKept++;
    return hit.prepared;
  }
  counts.pricingsMade++;

  const nowRange = new NowRange(nowMs);
  const read: Array<readonly [string, string, RateAnswer]> = [];
  const recorded: RateFunction = (from, to) => {
    const rate = rates(from, to);
    read.push([from, to, rate]);
    return rate;
  };
  const prepared = deepFreeze(prepareFromContext(deps, caller, ctx, items, reason, false, { now, setting, rates: recorded, nowRange }));
  if (kept === undefined) pricedOf.set(ctx, (kept = new BoundedMap(REQUESTS_PER_CONTEXT)));
  kept.set(key, { prepared, range: nowRange, setting, serviceFeeText, rates: read });
  return prepared;
}
