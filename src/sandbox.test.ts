// The sandbox test clock: an authenticated admin endpoint moves it; outside sandbox mode it does not exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminHeaders, makeTestApp } from './test-support/app.js';

test('sandbox clock: read, advance, set; only forward; admin token required', async () => {
  const t = await makeTestApp();
  try {
    const get = (headers: Record<string, string> = adminHeaders) => t.app.inject({ method: 'GET', url: '/sandbox/clock', headers });
    const post = (payload: unknown, headers: Record<string, string> = adminHeaders) =>
      t.app.inject({ method: 'POST', url: '/sandbox/clock', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

    assert.equal((await get({})).statusCode, 401);
    assert.equal((await get({ authorization: 'Bearer wrong-token-wrong-token' })).statusCode, 401);
    assert.equal((await post({ advanceMinutes: 60 }, {})).json().status, 900);

    const before = new Date((await get()).json().now).getTime();
    const moved = (await post({ advanceMinutes: 24 * 60 })).json();
    const after = new Date(moved.now).getTime();
    assert.ok(after - before >= 24 * 3600_000 && after - before < 24 * 3600_000 + 5_000);
    assert.ok(t.clock.now().getTime() >= after, 'the service clock moved');

    const target = new Date(after + 7 * 24 * 3600_000).toISOString();
    const set = (await post({ to: target })).json();
    assert.ok(Math.abs(new Date(set.now).getTime() - new Date(target).getTime()) < 1000);

    const back = await post({ to: new Date(before).toISOString() });
    assert.equal(back.statusCode, 400);
    assert.match(back.json().msg, /only moves forward/);
    const both = await post({ to: target, advanceMinutes: 1 });
    assert.equal(both.statusCode, 400);
  } finally {
    await t.close();
  }
});

test('outside sandbox mode the clock endpoint does not exist', async () => {
  const t = await makeTestApp({ env: { SANDBOX: 'false' } });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/sandbox/clock', headers: adminHeaders });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
  }
});
