// Storing a quote's offer (refundQuotation.do, spec 4.1; docs/architecture.md "Offers and submission"): older active offers
// of the same tickets stop being usable and the new one is stored, atomically. Offers of quotes that finish
// while an earlier write is still running are written together by one statement: one commit for several
// quotes (group commit, decision 0016). Every quote still answers only after its own offer is committed.
import type { Kysely } from 'kysely';
import { GroupCommitter } from '../store/group-commit.js';
import { preparedQuery } from '../store/prepared.js';
import type { Database } from '../store/schema.js';
import type { PricedQuote } from './pricing.js';
import type { RefundRequestItem } from './wire.js';

export interface NewOffer {
  offerId: string;
  clientId: string;
  orderNo: string;
  reason: string;
  ticketNos: string[];
  request: RefundRequestItem[];
  quote: PricedQuote;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * "A newer quote supersedes older offers", the one place it is written (docs/architecture.md "Offers and submission"): the
 * UPDATE, for a CTE named `batch` with columns order_no and ticket_nos, of the stored active offers of those
 * orders that share a ticket with a row of the batch. Offers (RECORD_OFFERS_SQL) and submissions by
 * refundRequestList (src/refunds/submit.ts) both write through it. The order numbers come as one array
 * (an InitPlan), so every plan reads refund_offers through refund_offers_order
 * (src/store/hot-path-indexes.test.ts).
 */
export const SUPERSEDE_OLDER_OFFERS_SQL = `update refund_offers o set status = 'superseded'
     where o.order_no = any(array(select b.order_no from batch b)) and o.status = 'active'
       and exists (select 1 from batch b where b.order_no = o.order_no and b.ticket_nos && o.ticket_nos)`;

/**
 * Offers in one statement (one or several; group commit, decision 0016): $1 a JSON array of the offers in
 * the order they were quoted, each with its status already decided ('superseded' when a later offer of the
 * same batch covers one of its tickets).
 */
export const RECORD_OFFERS_SQL = `with batch as (
     select * from json_to_recordset($1::json) as b(offer_id text, client_id text, order_no text, reason text, ticket_nos text[],
                                                      request json, quote json, status text, expires_at timestamptz, created_at timestamptz)
   ), superseded as (
     ${SUPERSEDE_OLDER_OFFERS_SQL}
     returning 1
   )
   insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
   select offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at from batch`;

const recordOffers = preparedQuery('refund_record_offers', RECORD_OFFERS_SQL);

/**
 * The status each offer of a batch is written with: a later offer of the same order sharing a ticket
 * supersedes it, exactly as if the offers had been written one after the other in this order.
 */
export function batchStatuses(offers: readonly NewOffer[]): Array<'active' | 'superseded'> {
  return offers.map((o, i) => {
    const mine = new Set(o.ticketNos);
    const replaced = offers.some((later, j) => j > i && later.orderNo === o.orderNo && later.ticketNos.some((t) => mine.has(t)));
    return replaced ? 'superseded' : 'active';
  });
}

function offersParameters(offers: readonly NewOffer[]): unknown[] {
  const statuses = batchStatuses(offers);
  const rows = offers.map((o, i) => ({
    offer_id: o.offerId,
    client_id: o.clientId,
    order_no: o.orderNo,
    reason: o.reason,
    ticket_nos: o.ticketNos,
    request: o.request,
    quote: o.quote,
    status: statuses[i],
    expires_at: o.expiresAt.toISOString(),
    created_at: o.createdAt.toISOString(),
  }));
  return [JSON.stringify(rows)];
}

/** Writes offers for one store, those of concurrent quotes together (src/store/group-commit.ts). */
export class OfferRecorder {
  private readonly committer: GroupCommitter<NewOffer>;

  constructor(db: Kysely<Database>) {
    this.committer = new GroupCommitter<NewOffer>(async (offers) => void (await db.executeQuery(recordOffers(offersParameters(offers)))));
  }

  record(offer: NewOffer): Promise<void> {
    return this.committer.write(offer);
  }
}

const recorders = new WeakMap<Kysely<Database>, OfferRecorder>();

/** Store the offer (superseding older active offers of its tickets); resolves once it is committed. */
export function recordOffer(db: Kysely<Database>, offer: NewOffer): Promise<void> {
  let recorder = recorders.get(db);
  if (!recorder) recorders.set(db, (recorder = new OfferRecorder(db)));
  return recorder.record(offer);
}
