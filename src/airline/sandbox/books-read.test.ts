// The sandbox airline's books read (readBooks, once per 0 → 1 batch) goes by key even on a plan made while the
// books were analyzed empty (migration 0021): a generic plan made then costs a sequential scan at nothing and
// was kept until the next ANALYZE, reading every book twice per element of every batch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { makeTestApp, type TestApp } from '../../test-support/app.js';
import { inRolledBackTransaction, rowsRead } from '../../test-support/rows-read.js';
import { readBooks } from './refunds.js';

const GROWN = 3000;

describe('sandbox airline: the books read', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('a plan made on books analyzed empty still reads each refundCode and booking by key once the books have grown', async () => {
    await sql`delete from sandbox_refunds`.execute(t.store.db);
    await sql`analyze sandbox_refunds`.execute(t.store.db);
    const { read, found } = await inRolledBackTransaction(t.store.db, async (trx) => {
      // The worst case: a generic plan, made now, on the books as analyzed (empty), kept for later calls.
      await sql`discard plans`.execute(trx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await readBooks(trx, 'XS', ['BK1'], ['BKP1']);
      await sql`insert into sandbox_refunds (refund_code, carrier, pnr, ticket_nos, reason, currency, paid_minor, is_claim, airline_refund_id,
                                             submitted_at, last_submitted_at, decision, processing_seconds, refund_minor)
                select 'BK' || g, 'XS', 'BKP' || g, '[]', '1', 'EUR', 100, false, 'BKA' || g, now(), now(), 'accept', 0, 100
                from generate_series(1, ${GROWN}::int) g`.execute(trx);
      const counted = async () => (await rowsRead(trx, ['sandbox_refunds'])).get('sandbox_refunds') ?? 0;
      const before = await counted();
      const codes = Array.from({ length: 10 }, (_, i) => `BK${i + 1}`);
      const pnrs = Array.from({ length: 10 }, (_, i) => `BKP${i + 11}`);
      const found = (await readBooks(trx, 'XS', codes, pnrs)).length;
      return { read: (await counted()) - before, found };
    });
    assert.equal(found, 20, 'ten books by refundCode, ten accepted refunds of the ten bookings');
    assert.ok(read >= 0 && read < GROWN / 10, `rows read: ${read} (a sequential scan reads ${GROWN} per element)`);
  });
});
