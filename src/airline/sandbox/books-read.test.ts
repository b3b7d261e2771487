// The sandbox airline's books read (sandbox_refund_books, inside the statement that records a batch the books know
// nothing about, once per 0 → 1 batch) goes by key even on a plan made while the books were analyzed
// empty (migration 0021): a generic plan made then costs a sequential scan at nothing and was kept until the next
// ANALYZE, reading every book twice per element of every batch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { makeTestApp, type TestApp } from '../../test-support/app.js';
import { inRolledBackTransaction, rowsRead } from '../../test-support/rows-read.js';
import { recordRefundsIfUnbooked, type NewSandboxRefund } from './refunds.js';

const GROWN = 3000;
const AT = new Date('2026-01-15T10:00:00Z');

/** Grows the books by GROWN accepted refunds (BK1…, bookings BKP1…) inside `trx`. */
const grow = (trx: Parameters<Parameters<typeof inRolledBackTransaction>[1]>[0]) =>
  sql`insert into sandbox_refunds (refund_code, carrier, pnr, ticket_nos, reason, currency, paid_minor, is_claim, airline_refund_id,
                                   submitted_at, last_submitted_at, decision, processing_seconds, refund_minor)
      select 'BK' || g, 'XS', 'BKP' || g, '[]', '1', 'EUR', 100, false, 'BKA' || g, now(), now(), 'accept', 0, 100
      from generate_series(1, ${GROWN}::int) g`.execute(trx);

const newRefund = (refundCode: string, pnr: string): NewSandboxRefund => ({
  refundCode,
  pnr,
  ticketNos: ['9990000000001'],
  reason: '1',
  currency: 'EUR',
  paidMinor: 100,
  quotedRefundMinor: 100,
  isClaim: false,
  decision: { decision: 'accept', cancelReason: null, processingSeconds: 0, refundMinor: 100 },
  voucher: false,
  calls: 1,
});

describe('sandbox airline: the books read', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  /**
   * In a transaction rolled back after `fn`: the worst case — the recording statement planned generically on the books
   * as analyzed (empty), by a first batch (NEW0), that plan kept — then the books grown by GROWN accepted refunds;
   * `fn` gets the rows of the books read so far.
   */
  async function onGrownBooks<T>(fn: (trx: Parameters<typeof grow>[0], rowsReadSoFar: () => Promise<number>) => Promise<T>): Promise<T> {
    await sql`delete from sandbox_refunds`.execute(t.store.db);
    await sql`analyze sandbox_refunds`.execute(t.store.db);
    return inRolledBackTransaction(t.store.db, async (trx) => {
      await sql`discard plans`.execute(trx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await recordRefundsIfUnbooked(trx, 'XS', AT, [newRefund('NEW0', 'NEWP0')]);
      await grow(trx);
      return fn(trx, async () => (await rowsRead(trx, ['sandbox_refunds'])).get('sandbox_refunds') ?? 0);
    });
  }

  test('a plan made on books analyzed empty still reads each refundCode and booking by key once the books have grown', async () => {
    const { read, found } = await onGrownBooks(async (trx, counted) => {
      const before = await counted();
      // refundCodes BK1–BK10 of the bookings BKP11–BKP20
      const batch = Array.from({ length: 10 }, (_, i) => newRefund(`BK${i + 1}`, `BKP${i + 11}`));
      const answer = await recordRefundsIfUnbooked(trx, 'XS', AT, batch);
      const found = 'books' in answer ? answer.books.length : 0;
      return { read: (await counted()) - before, found };
    });
    assert.equal(found, 20, 'ten books by refundCode, ten accepted refunds of the ten bookings');
    assert.ok(read >= 0 && read < GROWN / 10, `rows read: ${read} (a sequential scan reads ${GROWN} per element)`);
  });

  test('a batch recorded only if the books know nothing about it: by key on a plan made on empty books; known, nothing written', async () => {
    const out = await onGrownBooks(async (trx, counted) => {
      const before = await counted();
      const fresh = await recordRefundsIfUnbooked(trx, 'XS', AT, [newRefund('NEW1', 'NEWP1'), newRefund('NEW2', 'NEWP2')]);
      const read = (await counted()) - before;
      // BKP7 has an accepted refund (BK7): its books answered, nothing written; so for a refundCode known already.
      const byBooking = await recordRefundsIfUnbooked(trx, 'XS', AT, [newRefund('NEW3', 'BKP7'), newRefund('NEW4', 'NEWP4')]);
      const byCode = await recordRefundsIfUnbooked(trx, 'XS', AT, [newRefund('BK9', 'BKP9')]);
      const stored = await sql<{ refund_code: string }>`select refund_code from sandbox_refunds where refund_code like 'NEW%' order by 1`.execute(trx);
      return { fresh, read, byBooking, byCode, stored: stored.rows.map((r) => r.refund_code) };
    });
    assert.ok('recorded' in out.fresh);
    assert.deepEqual([...out.fresh.recorded.keys()].sort(), ['NEW1', 'NEW2']);
    assert.ok(out.read >= 0 && out.read < GROWN / 10, `rows read: ${out.read} (a sequential scan reads ${GROWN} per element)`);
    assert.ok('books' in out.byBooking);
    assert.deepEqual(out.byBooking.books.map((b) => [b.refund_code, b.pnr, b.decision]), [['BK7', 'BKP7', 'accept']]);
    assert.ok('books' in out.byCode);
    assert.deepEqual(out.byCode.books.map((b) => b.refund_code), ['BK9']);
    assert.deepEqual(out.stored, ['NEW0', 'NEW1', 'NEW2'], 'nothing written for a batch the books know');
  });
});
