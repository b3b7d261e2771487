// Stores planted in bulk for plan checks (src/test-support/rows-read.ts): orders, and refunds with their orders and
// used offers, named from a prefix so that two plantings in one store never collide. Each is one statement per
// table (generate_series), not one request per row.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { PricedQuote } from '../refunds/pricing.js';
import { TEST_CLIENTS } from './world.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A priced quote of one ticket with only what the submission statements write (src/refunds/submit.ts). */
export function quoteAsWritten(ticketNo: string): PricedQuote {
  return {
    reason: '1',
    quoteType: 'AccurateQuote',
    refundMethod: 'CashBackToOriginalPayment',
    currency: 'EUR',
    tickets: [{ ticketNo, paxIndex: 1, paidMinor: 40000 }],
    fare: { originalMinor: 40000, refundMinor: 30000 },
    post: [],
    serviceFee: { currency: 'EUR', minor: 0 },
  } as unknown as PricedQuote;
}

/** Orders `<prefix>1…<prefix>count` of the test client alpha (settled bookings, airline record `<prefix>P<n>`). */
export async function plantOrders(db: Db, prefix: string, count: number): Promise<void> {
  await sql`insert into orders (order_no, client_id, source, status, carrier, airline_pnr, payment_method, currency, total_minor)
    select ${prefix} || g, ${TEST_CLIENTS.alpha.id}, 'booking', '2', 'XS', ${prefix} || 'P' || g, 'deposit', 'EUR', 50000
    from generate_series(1, ${count}::int) g`.execute(db);
}

/**
 * Refunds `<prefix>R1…` at `status`, each of order `<prefix><n>` (planted here too) and its used offer, one
 * ticket `<prefix>T<n>` paid 50000 in the refund's details.
 */
export async function plantRefunds(db: Db, prefix: string, count: number, status: number): Promise<void> {
  await plantOrders(db, prefix, count);
  const client = TEST_CLIENTS.alpha.id;
  const offer = `rfo_${prefix.toLowerCase()}`;
  await sql`insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
    select ${offer} || g, ${client}, ${prefix} || g, '1', array[${prefix} || 'T' || g], '[]', '{}', 'used', now(), now()
    from generate_series(1, ${count}::int) g`.execute(db);
  await sql`insert into refund_orders (refund_code, client_id, order_no, offer_id, reason, status, path, quote_type, refund_method, currency,
                                       estimated_refund_minor, service_fee_currency, service_fee_minor, details, created_at, updated_at)
    select ${prefix} || 'R' || g, ${client}, ${prefix} || g, ${offer} || g, '1', ${status}::int, 'deposit', 'AccurateQuote', 'CashBackToOriginalPayment', 'EUR', 1, 'EUR', 0,
      jsonb_build_object('tickets', jsonb_build_array(jsonb_build_object('ticketNo', ${prefix} || 'T' || g, 'paidMinor', 50000))), now(), now()
    from generate_series(1, ${count}::int) g`.execute(db);
}
