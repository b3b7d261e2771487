// The bench's checks of answers (bench/harness.ts), driven as autocannon's worker drives them for each request:
// setupRequest (the next body in turn), then onResponse with the answer, then the answer check. Answers that differ
// from their reference only by a session binding (cycleOptions, the fresh-session seat map) must hold their own
// request's binding in every place of it and match the reference elsewhere; gzip answers (gzipOptions) must be
// their request's expected gzip body (as the text autocannon decodes them to). refund.do's answers (its measure's own
// callers: submitAnswerCheck) must be the reference submission's but for their own order, tickets, offer and refund.
// A figure counts only answers that passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { cycleOptions, gzipOptions, submitAnswerCheck } from '../bench/harness.js';

const require = createRequire(import.meta.url);

interface Modules {
  requests?: Array<{ setupRequest: string; onResponse: string }>;
  verifyBody: string;
}
type Setup = (request: { body?: string }, context: Record<string, unknown>) => { body?: string };
type OnResponse = (status: number, body: string, context: Record<string, unknown>) => void;

/** One connection of autocannon's worker: `answer(body)` is the server, the result whether the check passed. */
function connection(options: Modules) {
  const entry = options.requests?.[0];
  const setup = entry ? (require(entry.setupRequest) as Setup) : null;
  const onResponse = entry ? (require(entry.onResponse) as OnResponse) : null;
  const check = require(options.verifyBody) as (body: string) => boolean;
  return (answer: (requestBody: string | undefined) => string): boolean => {
    const context: Record<string, unknown> = {};
    const request = setup ? setup({}, context) : {};
    const body = answer(request.body);
    onResponse?.(200, body, context);
    return check(body);
  };
}

const seat = (code: string, price: string) => `{"seat":"12A","price":"${price}","productCode":"SCI_SEAT_12A_XS_CDG_JFK_${code}"}`;
const seatMap = (code: string, prices = ['10.00', '12.50']) => `{"status":0,"cabins":[${prices.map((p) => seat(code, p)).join(',')}]}`;

test('an answer passes only when it is the reference but for its own request\'s binding in every place of it', () => {
  const reference = seatMap('AbCdEfGhIj');
  const varying = [...reference.matchAll(/AbCdEfGhIj/g)].map((m) => m.index);
  const ids = ['AbCdEfGhIj', 'ZyXwVuTsRq'];
  const cycle = cycleOptions(
    { label: 't', url: 'http://127.0.0.1:1/', method: 'POST', headers: {} },
    { bodies: ['{"session":0}', '{"session":1}'], ids, reference, varying, varyingLength: 10 },
  );
  try {
    const next = connection(cycle.options);
    const session = (body: string | undefined) => Number((JSON.parse(body!) as { session: number }).session);
    const own = (body: string | undefined) => seatMap(ids[session(body)]!);
    const other = (body: string | undefined) => seatMap(ids[1 - session(body)]!);
    assert.equal(next(own), true, 'the reference itself, to the first body');
    assert.equal(next(own), true, 'another session, the same map, to the second body');
    assert.equal(next(other), false, 'the second session\'s answer to the first body');
    assert.equal(next(other), false, 'and the first\'s to the second');
    assert.equal(next(() => seatMap('ZyXwVuTsRq', ['10.00', '12.60'])), false, 'a price differs');
    assert.equal(next((b) => own(b).replace(/AbCdEfGhIj|ZyXwVuTsRq/, 'AbCdEfGhIk')), false, 'two bindings in one answer');
    assert.equal(next((b) => own(b).replace('"12A"', '"12Ł"')), false, 'a character beyond ASCII whose low byte is the reference one (Ł, U+0141, and A)');
    assert.equal(next((b) => own(b).replace('"12A"', '"12"')), false, 'shorter');
    assert.equal(next((b) => `${own(b)} `), false, 'longer');
  } finally {
    cycle.remove();
  }
});

test('a gzip answer passes only when it is its request\'s expected gzip body', () => {
  const zip = (text: string) => gzipSync(text, { level: 1 });
  const expected = [zip('{"status":0,"seat":"12A_AbCdEfGhIj"}'), zip('{"status":0,"seat":"12A_ZyXwVuTsRq"}')];
  // autocannon hands a body over as the text of its bytes (`body += chunk`: the chunk's UTF-8 decoding)
  const asReceived = (bytes: Buffer) => bytes.toString();
  const inTurn = gzipOptions({ label: 't', url: 'http://127.0.0.1:1/', method: 'POST', headers: {} }, { bodies: ['0', '1'], answers: expected });
  const single = gzipOptions({ label: 't', url: 'http://127.0.0.1:1/', method: 'POST', headers: {} }, { answers: [expected[0]!] });
  try {
    const next = connection(inTurn.options);
    const own = (body: string | undefined) => asReceived(expected[Number(body)]!);
    assert.equal(next(own), true, 'the first body\'s answer');
    assert.equal(next(own), true, 'the second body\'s answer');
    assert.equal(next((b) => asReceived(expected[1 - Number(b)]!)), false, 'the second body\'s answer to the first body');
    assert.equal(next((b) => asReceived(expected[1 - Number(b)]!)), false, 'and the first\'s to the second');
    assert.equal(next(() => asReceived(zip('{"status":0,"seat":"12A_AbCdEfGhIk"}'))), false, 'another answer');
    assert.equal(next(() => asReceived(gzipSync('{"status":0,"seat":"12A_AbCdEfGhIj"}', { level: 9 }))), false, 'the same JSON compressed otherwise');
    assert.equal(next(() => '{"status":0,"seat":"12A_ZyXwVuTsRq"}'), false, 'the JSON uncompressed');
    assert.equal(next((b) => own(b).slice(0, -1)), false, 'shorter');
    const alone = connection(single.options);
    assert.equal(alone(() => asReceived(expected[0]!)), true, 'one expected answer: itself');
    assert.equal(alone(() => asReceived(expected[1]!)), false, 'one expected answer: another');
  } finally {
    inTurn.remove();
    single.remove();
  }
});

/** A quote (spec 2.9) and the submission made from it, shaped as the service answers them. */
function quoteOf(orderNo: string, ticketNo: string, offerId: string, estimated = 505.4): string {
  return (
    `{"status":0,"msg":null,"fastConfirmation":0,"expectedConfirmationDate":"20261207","refundOfferId":"${offerId}",` +
    `"refundTickets":[{"lastName":"REFUND","firstName":"RUI","ticketNo":"${ticketNo}"}],` +
    `"refundFareAmount":{"currency":"EUR","originalFareAmount":505.4,"estimatedRefundAmount":${estimated}},"orderNo":"${orderNo}","isRefundable":true,` +
    `"serviceFee":{"currency":"EUR","transactionFee":5}}`
  );
}
function submissionOf(orderNo: string, ticketNo: string, offerId: string, refundCode: string, estimated = 505.4, refundStatus = 0): string {
  return quoteOf(orderNo, ticketNo, offerId, estimated)
    .replace('"msg":null', '"msg":"refund submitted"')
    .replace('"transactionFee":5}', '"transactionFee":5,"displayTransactionFee":null}').replace(/}$/, `,"displayCurrency":null,"refundStatus":${refundStatus},"refundCode":"${refundCode}","cancelReason":null,"refundReason":"0"}`);
}

test('spec 2.9: refund.do\'s reference submission is checked in full against its quote before any answer is counted', () => {
  const quote = quoteOf('O1', 'T1', 'rfo_A');
  assert.doesNotThrow(() => submitAnswerCheck(quote, submissionOf('O1', 'T1', 'rfo_B', 'R1'), 'O1', ['T1']));
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O1', 'T1', 'rfo_B', 'R1', 500), 'O1', ['T1']), /estimatedRefundAmount|refundFareAmount/, 'an amount the quote did not give');
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O1', 'T1', 'rfo_B', 'R1', 505.4, 4), 'O1', ['T1']), /refundStatus 4/, 'not at 0');
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O2', 'T1', 'rfo_B', 'R1'), 'O1', ['T1']), /orderNo/, 'another order');
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O1', 'T2', 'rfo_B', 'R1'), 'O1', ['T1']), /refundTickets/, 'another ticket');
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O1', 'T1', 'rfo_B', ''), 'O1', ['T1']), /no refundCode/);
  assert.throws(() => submitAnswerCheck(quote, submissionOf('O1', 'T1', 'rfo_B', 'R1').replace('"transactionFee":5,', '"transactionFee":6,'), 'O1', ['T1']), /serviceFee/, 'another fee');
  assert.throws(() => submitAnswerCheck(quote.replace('"status":0', '"status":801'), submissionOf('O1', 'T1', 'rfo_B', 'R1'), 'O1', ['T1']), /the quote's status 801/);
});

test('a refund.do answer passes only when it is the reference but for its own order, tickets, offer and refund', () => {
  const matches = submitAnswerCheck(quoteOf('O1', 'T1', 'rfo_A'), submissionOf('O1', 'T1', 'rfo_B', 'R1'), 'O1', ['T1']);
  assert.equal(matches(submissionOf('O2', 'T2', 'rfo_C', 'R2'), 'O2', ['T2']), true, 'another order\'s submission');
  assert.equal(matches(submissionOf('O3', 'T2', 'rfo_C', 'R2'), 'O2', ['T2']), false, 'naming another order');
  assert.equal(matches(submissionOf('O2', 'T3', 'rfo_C', 'R2'), 'O2', ['T2']), false, 'naming another ticket');
  assert.equal(matches(submissionOf('O2', 'T2', 'rfo_C', 'R2', 455.4), 'O2', ['T2']), false, 'another amount');
  assert.equal(matches(submissionOf('O2', 'T2', 'rfo_C', 'R2', 505.4, 4), 'O2', ['T2']), false, 'another refundStatus');
  assert.equal(matches(submissionOf('O2', 'T2', 'rfo_C', 'R2').replace('"status":0', '"status":813'), 'O2', ['T2']), false, 'status 813');
  assert.equal(matches('{"status":803,"msg":"ticket already has a refund"}', 'O2', ['T2']), false, 'a refusal');
});
