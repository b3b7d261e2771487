// A console case's estimate (src/console/actions.ts estimateCase: the request priced as its approval prices it,
// nothing written) as the case page and its Approve confirmation say it, kept apart from the page so a test reads
// it without a browser (test/console-format.test.ts). Money with the console's formatter (ISO 4217 decimals).
import type { CaseEstimate } from '../../src/console/actions.ts';
import { money } from './format.js';

/** The estimate as the page and the confirmation say it: the amount in its currency, or why there is none. */
export function estimateText(e: CaseEstimate | null): string {
  if (!e) return 'not priced';
  if ('unavailable' in e) return `no estimate: ${e.unavailable}`;
  const amount = e.quoteType === 'CannotQuote' ? 'an amount the airline decides (the rules give no quote)' : money(e.refundMinor, e.currency);
  const post = e.postRefunds.filter((p) => p.minor !== 0).map((p) => money(p.minor, p.currency));
  return `${amount}${post.length ? ` + post-ticketing ${post.join(' + ')}` : ''}, service fee ${money(e.serviceFee.minor, e.serviceFee.currency)} (${e.refundMethod})`;
}

/** The approval's confirmation: what it creates, for about how much, and that a deposit refund cannot be withdrawn. */
export function approveConfirmation(e: CaseEstimate | null): string {
  if (!e || 'unavailable' in e) return `${e ? `No estimate: ${e.unavailable}.` : 'Not priced.'} Create the refund and submit it to the airline anyway? The approval checks and prices it again (and is likely refused).`;
  const deposit = e.path === 'deposit' ? ' Paid by deposit: the refund cannot be withdrawn once created.' : '';
  return `Create a refund of an estimated ${estimateText(e)} and submit it to the airline? The amount is priced again at approval.${deposit}`;
}
