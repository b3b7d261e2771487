// `postbook clients webhook` (docs/webhooks.md "Registering"): set a URL (its first prints the signing
// secret once), rotate the secret, remove the URL; refused URLs and unknown clients; webhooks off outside
// sandbox mode without WEBHOOK_SECRET_KEY.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killChildren, migratedDataDir, spawnNode } from './support/processes.js';
import { openStore } from '../src/store/store.js';
import { webhookKeyring } from '../src/webhooks/secret.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-hooks-cli-'));
const dataDir = await migratedDataDir(path.join(dir, 'data'));
after(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

const KEY = 'cli-test-webhook-key-of-32-characters-or-more';

async function cli(args: string[], env: Record<string, string> = {}) {
  const p = spawnNode(['src/cli.ts', ...args], { DATA_DIR: dataDir, SANDBOX: 'true', WEBHOOK_SECRET_KEY: KEY, ...env });
  const { code } = await p.exit;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe('postbook clients webhook', () => {
  test('set, secret once, rotate, remove; refusals', { timeout: 300_000 }, async () => {
    assert.equal((await cli(['clients', 'add', 'hook-agency', 'Hook', 'Agency'])).code, 0);
    // an id taken: a plain refusal, not the database's words (found by a review)
    const taken = await cli(['clients', 'add', 'hook-agency', 'Again']);
    assert.equal(taken.code, 2);
    assert.match(taken.err, /client hook-agency exists already/);
    assert.doesNotMatch(taken.err, /duplicate key|constraint/);
    const help = await cli(['clients', 'webhook', '--help']);
    assert.match(help.out, /Usage: postbook clients webhook \[options\] <id> \[url\]/);
    assert.match(help.out, /--rotate-secret/);

    const first = await cli(['clients', 'webhook', 'hook-agency', 'http://127.0.0.1:9/hooks']);
    assert.equal(first.code, 0, first.err);
    const secret = /\n(whsec_[A-Za-z0-9_-]{43})\n/.exec(first.out)?.[1];
    assert.ok(secret, first.out);
    // A second URL keeps the secret (printed once); a rotation keeps the URL.
    const rotated = await cli(['clients', 'webhook', 'hook-agency', '--rotate-secret']);
    assert.equal(rotated.code, 0);
    const secret2 = /\n(whsec_[A-Za-z0-9_-]{43})\n/.exec(rotated.out)?.[1];
    assert.ok(secret2 && secret2 !== secret);

    const again = await cli(['clients', 'webhook', 'hook-agency', 'https://hooks.example.com/postbook']);
    assert.equal(again.code, 0);
    assert.doesNotMatch(again.out, /whsec_/, 'the secret is printed once');
    const bad = await cli(['clients', 'webhook', 'hook-agency', 'ftp://example.com/x']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /http or https/);
    const unknown = await cli(['clients', 'webhook', 'nobody-here', 'https://example.com/x']);
    assert.equal(unknown.code, 1);
    const prodLoopback = await cli(['clients', 'webhook', 'hook-agency', 'https://127.0.0.1/x'], { SANDBOX: 'false' });
    assert.equal(prodLoopback.code, 2);
    assert.match(prodLoopback.err, /loopback/);
    const off = await cli(['clients', 'webhook', 'hook-agency', 'https://example.com/x'], { SANDBOX: 'false', WEBHOOK_SECRET_KEY: '' });
    assert.equal(off.code, 2);
    assert.match(off.err, /WEBHOOK_SECRET_KEY/);

    let store = await openStore({ databaseUrl: null, dataDir });
    try {
      const row = await store.db.selectFrom('clients').select(['webhook_url', 'webhook_secret']).where('client_id', '=', 'hook-agency').executeTakeFirstOrThrow();
      assert.equal(row.webhook_url, 'https://hooks.example.com/postbook', 'a rotation keeps the URL');
      assert.equal(webhookKeyring(KEY).open(row.webhook_secret!), secret2);
    } finally {
      await store.close();
    }
    const removed = await cli(['clients', 'webhook', 'hook-agency', '--remove']);
    assert.equal(removed.code, 0);
    store = await openStore({ databaseUrl: null, dataDir });
    try {
      const row = await store.db.selectFrom('clients').select('webhook_url').where('client_id', '=', 'hook-agency').executeTakeFirstOrThrow();
      assert.equal(row.webhook_url, null);
    } finally {
      await store.close();
    }
  });
});
