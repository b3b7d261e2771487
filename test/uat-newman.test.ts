// Our own Postman collection (uat/postbook-happy-path.postman_collection.json) run with newman against the
// real server process over HTTP, as a caller written against the original interface would run its UAT
// happy path (docs/plans/original-chain.md §5): the demo world, HEADER_PREFIX=atlas, search JKT→SUB →
// verify → seat map → order → pay → retrieve until ticketed, then refund quote → refund → follow the refund
// with the sandbox clock to its final status. Every assertion of the collection must pass, and the
// collection must reach its real end (the ticketed and final-status assertions), not a fall-through.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import newman, { type NewmanRunSummary } from 'newman';
import { killChildren, migratedDataDir, ROOT, startServer } from './support/processes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-uat-'));
after(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ADMIN_TOKEN = 'uat-admin-token-0123456789';

function run(options: newman.NewmanRunOptions): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => newman.run(options, (err, summary) => (err ? reject(err) : resolve(summary))));
}

test('plan §5: the happy-path collection passes end to end on the demo world', { timeout: 300_000 }, async () => {
  const server = await startServer({ SANDBOX: 'true', HEADER_PREFIX: 'atlas', DATA_DIR: await migratedDataDir(path.join(dir, 'data')), ADMIN_TOKEN });
  // Two weeks ahead, as the original's environment asks (the demo world flies JKT→SUB every day 2–4 weeks out).
  const fromDate = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
  const summary = await run({
    collection: path.join(ROOT, 'uat', 'postbook-happy-path.postman_collection.json'),
    envVar: [
      { key: 'base_url', value: server.url },
      { key: 'header_prefix', value: 'atlas' },
      { key: 'client_id', value: 'demo-agency' },
      { key: 'client_secret', value: 'demo-agency-secret-2026' },
      { key: 'currency', value: 'USD' },
      { key: 'from_date', value: fromDate },
      { key: 'admin_token', value: ADMIN_TOKEN },
    ],
    reporters: [],
    delayRequest: 50,
    timeoutRequest: 30_000,
  });
  const failures = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
  assert.deepEqual(failures, [], failures.join('\n'));
  const passed = new Set(
    summary.run.executions.flatMap((e) => (e.assertions ?? []).filter((a) => !a.error).map((a) => `${e.item.name} / ${a.assertion}`)),
  );
  for (const needed of [
    '1.6 Retrieve until ticketed / orderStatus is the number 2 (ticketed)',
    '1.6 Retrieve until ticketed / pnrCode is a non-empty string',
    '2.3 Follow the refund (the sandbox clock moves a day between polls) / the refund reached a final status (2 refunded, 4 rejected or 5 done)',
  ]) {
    assert.ok(passed.has(needed), `the collection did not reach "${needed}"; passed: ${[...passed].join(' | ')}`);
  }
});
