// Storing a quote's offer (refundQuotation.do, spec 4.1; docs/architecture.md "Offers and submission"): once it is stored,
// older offers of the same tickets are no longer usable (decision 0019: read from the write order, nothing
// rewritten). Offers of quotes that finish while an earlier write is still running are written together by
// one statement: one commit for several quotes (group commit, decision 0016). Every quote still answers
// only after its own offer is committed.
import type { Kysely } from 'kysely';
import { GroupCommitter } from '../store/group-commit.js';
import { documentsBytesSql, documentSql, requestQuoteDocuments } from '../store/json-documents.js';
import { preparedQuery } from '../store/prepared.js';
import type { Database } from '../store/schema.js';
import { pricedQuoteJson, type PricedQuote } from './pricing.js';
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
  /**
   * The order's context version the quote was priced from (decision 0030): the offer is stored only if the
   * order's `ctx_version` is still this one when the statement runs. null stores it whatever the version.
   */
  ctxVersion: number | null;
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
 * the order they were quoted (`n`) and $2 their documents (offersParameters), inserted in that order so that
 * their `seq` is that order. An offer priced from a context version that is no longer the order's is left out
 * (decision 0030), and so is one whose order is not there or is another client's (decision 0051: the statement is
 * the offers' check of their order and client, which no foreign key makes — the client's by the order's own); the
 * statement answers the ids it stored. The order is read on its primary key, once per offer: the lateral (kept apart by
 * `offset 0`) leaves the planner no join to choose, where an EXISTS let it hash the offers and read orders whole when
 * their costs came within a unit of each other (a few thousand orders and the function's estimate of 100 rows); its
 * client and version are compared outside it, on the row it read, so that no other index of orders fits its read
 * (decision 0066: a generic plan made on a young store read the order through orders_client, every order of the
 * client an offer).
 *
 * The statement's own transaction commits without waiting for the WAL's flush (`synchronous_commit` off for it
 * alone, decision 0049): an offer is a priced answer the caller can ask for again, not money. Only PostgreSQL
 * stopping abruptly (or a failover) within a fraction of a second of the commit can lose one (the caller's refund.do then
 * answers 813 "unknown refundOfferId" and a new quote is priced); a refund made from an offer commits with the
 * flush, which carries every offer written before it.
 */
export const RECORD_OFFERS_SQL = `with d as materialized (select ${documentsBytesSql('$2')} as docs)
   insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
   select b.offer_id, b.client_id, b.order_no, b.reason, b.ticket_nos,
          ${documentSql('d.docs', 'b.request_at', 'b.request_len')}, ${documentSql('d.docs', 'b.quote_at', 'b.quote_len')},
          'active', b.expires_at, b.created_at
   from d, json_to_recordset($1::json) as b(n int, offer_id text, client_id text, order_no text, reason text, ticket_nos text[],
                                            request_at int, request_len int, quote_at int, quote_len int,
                                            expires_at timestamptz, created_at timestamptz, ctx_version bigint)
     cross join lateral (select o.client_id, o.ctx_version from orders o where o.order_no = b.order_no offset 0) o
   where o.client_id = b.client_id and (b.ctx_version is null or o.ctx_version = b.ctx_version)
     and (select set_config('synchronous_commit', 'off', true)) = 'off'
   order by b.n
   returning offer_id`;

const recordOffers = preparedQuery<{ offer_id: string }>('refund_record_offers', RECORD_OFFERS_SQL);

/**
 * Requests and quotes as an offer stores them (this statement's and refund.do's submissions by list, which store the
 * used offer): the parameter and each row's spans (src/store/json-documents.ts); the quote by pricedQuoteJson.
 */
export function offerDocuments(rows: readonly (readonly [request: RefundRequestItem[], quote: PricedQuote])[]) {
  return requestQuoteDocuments(rows.map(([request, quote]) => [JSON.stringify(request), pricedQuoteJson(quote)] as const));
}

/**
 * $1 the offers' fields as JSON, $2 their documents apart (src/store/json-documents.ts: request, quote, request,
 * quote …), each offer giving where its two are.
 */
export function offersParameters(offers: readonly NewOffer[]): [string, string] {
  const { text, spans } = offerDocuments(offers.map((o) => [o.request, o.quote] as const));
  const rows = offers.map((o, n) => ({
    n,
    offer_id: o.offerId,
    client_id: o.clientId,
    order_no: o.orderNo,
    reason: o.reason,
    ticket_nos: o.ticketNos,
    ...spans[n],
    expires_at: o.expiresAt.toISOString(),
    created_at: o.createdAt.toISOString(),
    ctx_version: o.ctxVersion,
  }));
  return [JSON.stringify(rows), text];
}

/** Writes offers for one store, those of concurrent quotes together (src/store/group-commit.ts). */
export class OfferRecorder {
  private readonly committer: GroupCommitter<NewOffer, boolean>;

  constructor(db: Kysely<Database>) {
    this.committer = new GroupCommitter<NewOffer, boolean>(async (offers) => {
      const { rows } = await db.executeQuery(recordOffers(offersParameters(offers)));
      const stored = new Set(rows.map((r) => r.offer_id));
      return offers.map((o) => stored.has(o.offerId));
    });
  }

  /**
   * Resolves once the statement committed: true if the offer was stored, false if its context version was stale or
   * its order is not there or not its client's.
   */
  record(offer: NewOffer): Promise<boolean> {
    return this.committer.write(offer);
  }
}

const recorders = new WeakMap<Kysely<Database>, OfferRecorder>();

/**
 * Store the offer (superseding older active offers of its tickets); resolves once it is committed, with false
 * when it was not stored because the order changed since the context it was priced from (`ctxVersion`), or is
 * not there or not the offer's client's.
 */
export function recordOffer(db: Kysely<Database>, offer: NewOffer): Promise<boolean> {
  let recorder = recorders.get(db);
  if (!recorder) recorders.set(db, (recorder = new OfferRecorder(db)));
  return recorder.record(offer);
}

/** An offer as refund.do by refundOfferId reads it (the reading path of src/refunds/submit.ts). */
export interface StoredOffer {
  order_no: string;
  request: unknown;
  quote: unknown;
  expires_at: Date;
  state: OfferState;
}

/**
 * Offers of concurrent submissions by refundOfferId in one statement ($1 the offer ids, $2 their callers'
 * client ids): one row per pair in their order, its columns null when the client has no such offer. Each is
 * looked up by its key (a lateral sub-select), whatever the plan's estimate of the arrays' length.
 */
export const OFFERS_BY_ID_SQL = `select o.order_no, o.request, o.quote, o.expires_at, o.state
  from unnest($1::text[], $2::text[]) with ordinality as b(offer_id, client_id, n)
  left join lateral (
    select o.order_no, o.request, o.quote, o.expires_at, ${offerStateSql('o')} as state
    from refund_offers o where o.offer_id = b.offer_id and o.client_id = b.client_id
  ) o on true
  order by b.n`;

const offersById = preparedQuery<StoredOffer | { order_no: null }>('refund_offers_by_id', OFFERS_BY_ID_SQL);

const offerReaders = new WeakMap<Kysely<Database>, GroupCommitter<{ offerId: string; clientId: string }, StoredOffer | null>>();

/**
 * The caller's offer (null: none of this client), read together with those of concurrent submissions: one
 * statement for those that arrive while one runs (decision 0031's batching, for the offer's read). A failed read
 * fails every caller of it (the store unreachable): one read per caller would only repeat it.
 */
export function readOffer(db: Kysely<Database>, offerId: string, clientId: string): Promise<StoredOffer | null> {
  let reader = offerReaders.get(db);
  if (!reader) {
    reader = new GroupCommitter(
      async (refs) => {
        const { rows } = await db.executeQuery(offersById([refs.map((r) => r.offerId), refs.map((r) => r.clientId)]));
        return rows.map((r) => (r.order_no === null ? null : r));
      },
      { maxBatch: 32, afterFailure: 'all' },
    );
    offerReaders.set(db, reader);
  }
  return reader.write({ offerId, clientId });
}
