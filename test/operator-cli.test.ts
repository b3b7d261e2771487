// The operator commands on a refund made through the API (README "Operating it"): `refunds show` prints
// its status history, `webhooks list` the events of a receiver that is down, `webhooks retry` makes one due
// again; `world load` writes a world's clients into a fresh store. The server runs as a child process on
// the demo world; the CLI opens the embedded store once the server has stopped.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killChildren, migratedDataDir, spawnNode, startServer } from './support/processes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-ops-cli-'));
after(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = { DATA_DIR: await migratedDataDir(path.join(dir, 'data')), SANDBOX: 'true' };
async function cli(args: string[], extra: Record<string, string> = {}) {
  const p = spawnNode(['src/cli.ts', ...args], { ...env, ...extra });
  const { code } = await p.exit;
  return { code, out: p.stdout(), err: p.stderr() };
}
const H = { 'content-type': 'application/json', 'x-service-client-id': 'demo-agency', 'x-service-client-secret': 'demo-agency-secret-2026' };
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');

test('refunds show, webhooks list and retry, world load', { timeout: 300_000 }, async () => {
  const server = await startServer(env);
  const post = async (p: string, body: unknown) => (await (await fetch(server.url + p, { method: 'POST', headers: H, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
  // A webhook receiver that is down: the events wait in the outbox.
  assert.equal((await post('/updateWebhookURL.do', { url: 'http://127.0.0.1:9/hooks' })).status, 0);
  const segments = [
    { depDate: day(3), flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' },
    { depDate: day(10), flightNo: 'XS102', depAirport: 'SGN', arrAirport: 'HND' },
  ];
  const quote = await post('/refundQuotation.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments }] });
  assert.equal(quote.status, 0, String(quote.msg));
  const refund = await post('/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundOfferId: quote.refundOfferId });
  assert.equal(refund.status, 0, String(refund.msg));
  const code = String(refund.refundCode);
  for (let i = 0; i < 100; i++) {
    const q = await post('/queryRefundOrders.do', { refundCode: code });
    if ((q.refundOrders as Array<{ refundStatus: number }>)[0]!.refundStatus >= 1) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  server.child.kill('SIGTERM');
  assert.equal((await server.exit).code, 0, server.stderr());

  const shown = await cli(['refunds', 'show', code]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, new RegExp(`refund ${code}: order \\d+, client demo-agency, reason 1`));
  assert.match(shown.out, /- → 0 /);
  assert.match(shown.out, /0 → 1 /);
  assert.doesNotMatch(shown.out, /REFUND|RUI/, 'no passenger name');
  const none = await cli(['refunds', 'show', '0000000000000000']);
  assert.equal(none.code, 1);
  assert.match(none.err, /no refund 0000000000000000/);

  const listed = await cli(['webhooks', 'list', '--client', 'demo-agency']);
  assert.equal(listed.code, 0, listed.err);
  const lines = listed.out.trim().split('\n');
  assert.ok(lines.length >= 2, listed.out);
  assert.ok(lines.every((l) => l.includes(`order.refund ${code}`)), listed.out);
  const id = lines.at(-1)!.split(/\s+/)[0]!;
  const retried = await cli(['webhooks', 'retry', id]);
  assert.equal(retried.code, 0, retried.err);
  assert.match(retried.out, /^1 event\(s\) due now/);
  assert.equal((await cli(['webhooks', 'retry', '999999'])).code, 1);
  assert.equal((await cli(['webhooks', 'retry'])).code, 2);
  assert.equal((await cli(['webhooks', 'list', '--state', 'lost'])).code, 2);

  // world load into a fresh store: its clients exist afterwards (a client id taken by the world is refused by clients add).
  // Fresh stores are the migrated template unpacked: a CLI's first start on an empty folder (its cluster made in a
  // child process, every migration run: ~5 s longer each) is the server's, tested in test/process.test.ts.
  const fresh = { DATA_DIR: await migratedDataDir(path.join(dir, 'fresh')) };
  const loaded = await cli(['world', 'load', 'worlds/demo.yaml'], fresh);
  assert.equal(loaded.code, 0, loaded.err);
  assert.match(loaded.out, /loaded \d+ clients and \d+ booked orders/);
  // the console's bound on the grace (a review: 100000 hours kept the old secret for 11 years)
  const tooLong = await cli(['clients', 'rotate', 'demo-agency', '--grace-hours', '100000'], fresh);
  assert.notEqual(tooLong.code, 0);
  assert.match(tooLong.err, /0 to 720/);
  const rotated = await cli(['clients', 'rotate', 'demo-agency', '--grace-hours', '720'], fresh);
  assert.equal(rotated.code, 0, rotated.err);

  // world load does what the server does at start (found by a review): at the stored sandbox time, and with the
  // world's webhooks; a webhook URL refused leaves nothing written
  const later = { DATA_DIR: await migratedDataDir(path.join(dir, 'later')) };
  assert.equal((await cli(['sandbox', 'clock', 'advance', '10d'], later)).code, 0);
  const demo = fs.readFileSync('worlds/demo.yaml', 'utf8');
  const withHook = (url: string) => demo.replace('    secret: demo-agency-secret-2026\n', `    secret: demo-agency-secret-2026\n    webhook: { url: '${url}', secret: whsec_world_hook_secret_1234 }\n`);
  const hooked = path.join(dir, 'hooked.yaml');
  fs.writeFileSync(hooked, withHook('ftp://127.0.0.1/hooks'));
  const refused = await cli(['world', 'load', hooked], later);
  assert.equal(refused.code, 2, refused.err);
  assert.match(refused.err, /not loaded, nothing changed: world client demo-agency: webhook/);
  // world check says what the server's start would refuse (a review: "ok", then the start failed with a stack trace)
  const checked = await cli(['world', 'check', hooked], later);
  assert.equal(checked.code, 2, checked.out);
  assert.match(checked.err, /the server would not start with it: world client demo-agency: webhook/);
  fs.writeFileSync(hooked, withHook('http://127.0.0.1:9/hooks'));
  const hookedLoad = await cli(['world', 'load', hooked], later);
  assert.equal(hookedLoad.code, 0, hookedLoad.err);
  assert.match(hookedLoad.out, /booked orders, 1 client webhook\(s\)/);
  const { openStore } = await import('../src/store/store.js');
  const store = await openStore({ databaseUrl: null, dataDir: later.DATA_DIR });
  try {
    const clients = await store.db.selectFrom('clients').select(['client_id', 'webhook_url']).orderBy('client_id').execute();
    assert.deepEqual(clients.map((x) => [x.client_id, x.webhook_url]), [['demo-agency', 'http://127.0.0.1:9/hooks'], ['other-agency', null]]);
    // DEMO20's outbound flight is '+3d' in the world file: 3 days after the sandbox time, 13 after the system's
    const dep = await store.db.selectFrom('order_segments').innerJoin('orders', 'orders.order_no', 'order_segments.order_no').select('order_segments.dep_at').where('orders.airline_pnr', '=', 'DEMO20').where('order_segments.segment_index', '=', 1).executeTakeFirstOrThrow();
    const days = (new Date(dep.dep_at).getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 11 && days < 15, `departure ${days.toFixed(1)} days ahead`);
  } finally {
    await store.close();
  }
});
