// Storing a quote's offer (refundQuotation.do, spec 4.1; docs/architecture.md "Offers and submission"): once it is stored,
// older offers of the same tickets are no longer usable (decision 0019: read from the write order, nothing
// rewritten). Offers of quotes that finish while an earlier write is still running are written together by
// one statement: one commit for several quotes (group commit, decision 0016). Every quote still answers
// only after its own offer is committed.
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
 * "A newer quote supersedes older offers", the one place it is written (decision 0019): an offer is
 * superseded when a later offer of the same order (`seq`, the write order) shares one of its tickets —
 * whatever became of that later offer, exactly as if each quote had marked the older ones when it was
 * written. Nothing is rewritten when a quote is stored: the state is read where it matters (refund.do by
 * refundOfferId). Offers written before decision 0019 may carry status 'superseded' themselves. The newer
 * offers are found on refund_offers_order_seq (src/store/hot-path-indexes.test.ts).
 */
export function offerStateSql(alias: string): string {
  return `case when ${alias}.status = 'used' then 'used'
       when ${alias}.status = 'superseded'
         or exists (select 1 from refund_offers newer
                    where newer.order_no = ${alias}.order_no and newer.seq > ${alias}.seq and newer.ticket_nos && ${alias}.ticket_nos)
         then 'superseded'
       else 'active' end`;
}

export type OfferState = 'active' | 'used' | 'superseded';

/**
 * Offers in one statement (one or several; group commit, decision 0016): $1 a JSON array of the offers in
 * the order they were quoted (`n`), inserted in that order so that their `seq` is that order.
 */
export const RECORD_OFFERS_SQL = `insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
   select offer_id, client_id, order_no, reason, ticket_nos, request, quote, 'active', expires_at, created_at
   from json_to_recordset($1::json) as b(n int, offer_id text, client_id text, order_no text, reason text, ticket_nos text[],
                                         request json, quote json, expires_at timestamptz, created_at timestamptz)
   order by n`;

const recordOffers = preparedQuery('refund_record_offers', RECORD_OFFERS_SQL);

function offersParameters(offers: readonly NewOffer[]): unknown[] {
  const rows = offers.map((o, n) => ({
    n,
    offer_id: o.offerId,
    client_id: o.clientId,
    order_no: o.orderNo,
    reason: o.reason,
    ticket_nos: o.ticketNos,
    request: o.request,
    quote: o.quote,
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
