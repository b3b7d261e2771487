// docs/architecture.md "Refund arithmetic" step 9, at the airline's answer: the caller nets the airline's refund and
// the post-ticketing refunds, less the client's service fee; below zero the refund is rejected ("below the service
// fee"). Each amount in its own currency is converted into the refund's with the configured rates (found by a
// review: post-ticketing refunds of several currencies were added as one number of minor units, and a fee in
// another currency than the refund's was dropped). Without a rate the net cannot be told: the check is not made
// (a refund is never rejected on a sum that could not be done), and the caller says so.
import { convertMinor, type Rates } from './engine/index.js';

export type Net = { known: true; minor: number } | { known: false; missing: string };

export function refundNet(args: {
  refund: { minor: number; currency: string };
  post: ReadonlyArray<{ refundMinor: number; currency: string }>;
  fee: { minor: number; currency: string | null };
  rates: Rates;
}): Net {
  const { refund, rates } = args;
  let minor = refund.minor;
  const parts: Array<{ minor: number; currency: string; sign: 1 | -1 }> = [
    ...args.post.map((p) => ({ minor: p.refundMinor, currency: p.currency, sign: 1 as const })),
    ...(args.fee.minor !== 0 && args.fee.currency !== null ? [{ minor: args.fee.minor, currency: args.fee.currency, sign: -1 as const }] : []),
  ];
  for (const p of parts) {
    const c = convertMinor(p.minor, p.currency, refund.currency, rates);
    if (!c.ok) return { known: false, missing: `${p.currency}/${refund.currency}` };
    minor += p.sign * c.minor;
  }
  return { known: true, minor };
}

/**
 * An amount the airline answered (`minor` of `currency`) in the refund's or void's own currency, at the configured
 * rates, rounded once; throws without a rate (the look then fails, counted, until one is configured).
 */
export function airlineAmountIn(minor: number, currency: string, ownCurrency: string, rates: Rates): number {
  const c = convertMinor(minor, currency, ownCurrency, rates);
  if (!c.ok) throw new Error(`the airline paid in ${currency}, the order's refund is in ${ownCurrency}, and no rate ${currency}->${ownCurrency} is configured`);
  return c.minor;
}
