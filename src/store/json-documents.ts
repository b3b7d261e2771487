// JSON documents handed to a statement apart from the batch they belong to (the offers' statement,
// src/refunds/offers.ts; refund.do's submissions, src/refunds/submit.ts). Inside a batch's JSON parameter
// (json_to_recordset) PostgreSQL reads each document twice, by the batch's parser and again as json: for five
// offers of ~1 KB ~40 % of the offers' statement (2026-12-03, 3,000 statements alone on PostgreSQL: 370–450 µs
// of the backend's CPU against 233–283 with the documents apart). Apart, they are one text parameter, their JSON
// one after the other, which the statement makes bytes once (`convert_to`, a copy; documentsBytesSql) and cuts
// by byte offsets (documentSql), each parsed once as json.
//
// A text parameter, not bytea: PGlite turns a bytea parameter into text in JavaScript (a quote's thread 667
// against 325 µs, BENCHMARKS.md). Byte offsets, not characters: JavaScript counts UTF-16 units and PostgreSQL
// characters, and a bytea's substring is a copy where a text's walks every character before it.

/**
 * Where a row's request and quote are in the parameter's UTF-8 bytes: each one's start (1-based, as PostgreSQL's
 * `substring` counts) and length in bytes — the batch's columns `request_at int, request_len int, quote_at int,
 * quote_len int`.
 */
export interface RequestQuoteSpans {
  request_at: number;
  request_len: number;
  quote_at: number;
  quote_len: number;
}

/**
 * The requests and quotes of a batch's rows (both batches that use this module store one of each per row), given
 * as their JSON texts: the parameter (all of them one after the other) and, per row in the same order, its spans.
 */
export function requestQuoteDocuments(rows: readonly (readonly [request: string, quote: string])[]): {
  text: string;
  spans: RequestQuoteSpans[];
} {
  let text = '';
  let at = 1;
  const spans = rows.map(([request, quote]) => {
    const requestLen = Buffer.byteLength(request);
    const quoteLen = Buffer.byteLength(quote);
    text += request + quote;
    const span = { request_at: at, request_len: requestLen, quote_at: at + requestLen, quote_len: quoteLen };
    at += requestLen + quoteLen;
    return span;
  });
  return { text, spans };
}

/** The parameter (`param`, SQL: `$2`, say) as bytes: to be computed once a statement (a materialized CTE). */
export function documentsBytesSql(param: string): string {
  return `convert_to(${param}::text, 'UTF8')`;
}

/** The json document that starts at `at` and is `len` bytes long in `bytes` (SQL expressions, documentsBytesSql's bytes). */
export function documentSql(bytes: string, at: string, len: string): string {
  return `convert_from(substring(${bytes} from ${at} for ${len}), 'UTF8')::json`;
}
