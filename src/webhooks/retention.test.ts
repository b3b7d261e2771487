// Decision 0022 (amended 2026-12-01): settled webhook events (delivered, or failed after their retries) and their
// attempts are deleted WEBHOOK_RETENTION_DAYS after their status change, in batches through the settled events'
// index (migration 0034); a pending event — retried, or redelivered by an operator — is never deleted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { settledEventsBefore, webhookRetention } from './retention.js';

const DAY = 86_400_000;
const client = TEST_CLIENTS.alpha.id;

describe('webhook events past their retention', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ env: { WEBHOOK_RETENTION_DAYS: '7' } });
  });
  after(() => t.close());

  /** An event of `ageDays` ago in the given state, with two attempts; answers its id. */
  const plant = async (subject: string, state: 'pending' | 'delivered' | 'failed', ageDays: number) => {
    const at = new Date(t.clock.now().getTime() - ageDays * DAY);
    const { id } = await t.store.db
      .insertInto('webhook_events')
      .values({ client_id: client, type: 'order.refund', subject, order_no: 'RET', to_status: 1, data: '{}', occurred_at: at, state, next_attempt_at: at, attempts: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const attempt of [1, 2]) {
      await t.store.db.insertInto('webhook_attempts').values({ event_id: id, attempt, url: 'https://hooks.example.com/x', started_at: at, duration_ms: 5, http_status: 500, error: 'HTTP 500' }).execute();
    }
    return id;
  };
  const left = async () => (await t.store.db.selectFrom('webhook_events').select('subject').orderBy('subject').execute()).map((r) => r.subject);

  test('config: WEBHOOK_RETENTION_DAYS reaches the workers (30 days by default, at least 2)', () => {
    assert.equal(t.config.webhookRetentionDays, 7);
  });

  test('settled events older than the retention go with their attempts, in batches; pending and younger ones stay', async () => {
    for (let i = 0; i < 12; i++) await plant(`old-delivered-${String(i).padStart(2, '0')}`, 'delivered', 8 + i / 10);
    await plant('old-failed', 'failed', 20);
    await plant('old-pending', 'pending', 30); // redelivered by an operator: waiting to be sent again
    await plant('young-delivered', 'delivered', 6);
    const sweeper = webhookRetention({ db: t.store.db, clock: t.clock, queue: t.workers.queue, days: 7, sweepSeconds: 60, batch: 5, log: { info: () => undefined } });
    assert.equal(await sweeper.sweep(), 13, 'three batches of at most 5');
    assert.deepEqual(await left(), ['old-pending', 'young-delivered']);
    const attempts = await t.store.db.selectFrom('webhook_attempts').select('event_id').execute();
    assert.equal(attempts.length, 4, 'the deleted events took their attempts with them');
    assert.equal(await sweeper.sweep(), 0);

    // The workers' own sweep follows the sandbox clock: a day on, the young event is past 7 days too.
    t.clock.advance(1.5 * DAY);
    assert.equal(await t.workers.webhookRetention.sweep(), 1);
    assert.deepEqual(await left(), ['old-pending']);
    await sql`delete from webhook_events`.execute(t.store.db);
  });

  test('the sweep finds settled events through their index (migration 0034), not a read of the whole outbox', async () => {
    await sql`
      insert into webhook_events (client_id, type, subject, order_no, to_status, data, occurred_at, state, next_attempt_at)
        select ${client}, 'order.refund', 'plan-' || g, 'RET', 1, '{}', now() - g * interval '1 min', case when g % 50 = 0 then 'pending' else 'delivered' end, now()
        from generate_series(1, 5000) g`.execute(t.store.db);
    await sql`analyze webhook_events`.execute(t.store.db);
    const compiled = settledEventsBefore(new Date(Date.now() - 4000 * 60_000), 1000).compile(t.store.db);
    const { rows } = await t.store.db.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
    const plan = rows.map((r) => Object.values(r)[0]).join('\n');
    assert.match(plan, /webhook_events_settled/, plan);
    assert.doesNotMatch(plan, /Seq Scan on webhook_events/, plan);
    await sql`delete from webhook_events`.execute(t.store.db);
  });
});
