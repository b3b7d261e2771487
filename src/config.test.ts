import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_DOC, ConfigError, loadConfig } from './config.js';

test('defaults: embedded store in ./data, demo world, sandbox on, header prefix "service"', () => {
  const c = loadConfig({}, '/srv/app');
  assert.equal(c.port, 8080);
  assert.equal(c.dataDir, '/srv/app/data');
  assert.equal(c.databaseUrl, null);
  assert.equal(c.worldPath, '/srv/app/worlds/demo.yaml');
  assert.equal(c.headerPrefix, 'service');
  assert.equal(c.logLevel, 'info');
  assert.equal(c.sandbox, true);
});

test('every variable is read', () => {
  const c = loadConfig(
    {
      PORT: '9090',
      DATA_DIR: '/var/lib/postbook',
      DATABASE_URL: 'postgres://u@h/db',
      WORLD: 'w.json',
      HEADER_PREFIX: 'Acme',
      LOG_LEVEL: 'debug',
      SANDBOX: 'off',
      ADMIN_TOKEN: 'a-long-enough-admin-token',
      BODY_LIMIT_BYTES: '2048',
      SHUTDOWN_GRACE_MS: '500',
    },
    '/x',
  );
  assert.deepEqual(
    [c.port, c.dataDir, c.databaseUrl, c.worldPath, c.headerPrefix, c.logLevel, c.sandbox, c.adminToken, c.bodyLimitBytes, c.shutdownGraceMs],
    [9090, '/var/lib/postbook', 'postgres://u@h/db', '/x/w.json', 'acme', 'debug', false, 'a-long-enough-admin-token', 2048, 500],
  );
});

test('bad values are all reported at once, each naming its variable', () => {
  try {
    loadConfig({ PORT: '99999', DATABASE_URL: 'mysql://x', HEADER_PREFIX: 'bad prefix!', LOG_LEVEL: 'chatty', SANDBOX: 'maybe', ADMIN_TOKEN: 'short' });
    assert.fail('expected a ConfigError');
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    const text = err.message;
    for (const name of ['PORT', 'DATABASE_URL', 'HEADER_PREFIX', 'LOG_LEVEL', 'SANDBOX', 'ADMIN_TOKEN']) assert.match(text, new RegExp(name));
    assert.equal(err.problems.length, 6);
  }
});

test('PGLITE_SHARED_BUFFERS_MB: 16 by default (decision 0017), a whole number of MB from 1 to 4096', () => {
  assert.equal(loadConfig({}).pgliteSharedBuffersMb, 16);
  assert.equal(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '128' }).pgliteSharedBuffersMb, 128);
  for (const bad of ['0', '5000', '16MB']) {
    assert.throws(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: bad }), /PGLITE_SHARED_BUFFERS_MB must be/);
  }
});

test('PGLITE_AUTOVACUUM_SECONDS: 10 by default (decision 0032), 0 turns it off, a whole number of seconds up to a day', () => {
  assert.equal(loadConfig({}).pgliteAutovacuumSeconds, 10);
  assert.equal(loadConfig({ PGLITE_AUTOVACUUM_SECONDS: '0' }).pgliteAutovacuumSeconds, 0);
  assert.equal(loadConfig({ PGLITE_AUTOVACUUM_SECONDS: '60' }).pgliteAutovacuumSeconds, 60);
  for (const bad of ['-1', '86401', '10s']) {
    assert.throws(() => loadConfig({ PGLITE_AUTOVACUUM_SECONDS: bad }), /PGLITE_AUTOVACUUM_SECONDS must be/);
  }
});

test('IDEMPOTENCY_TTL_HOURS: 24 h by default, a whole number of hours from 1 to 720', () => {
  assert.equal(loadConfig({}).idempotencyTtlHours, 24);
  assert.equal(loadConfig({ IDEMPOTENCY_TTL_HOURS: '48' }).idempotencyTtlHours, 48);
  for (const bad of ['0', '721', '1.5', 'a day']) {
    assert.throws(() => loadConfig({ IDEMPOTENCY_TTL_HOURS: bad }), /IDEMPOTENCY_TTL_HOURS must be/);
  }
});

test('JOB_*: the job queue limits, with documented defaults (5 retries, 5 s, backoff, 60 s per attempt)', () => {
  // REFUND_SWEEP_LANES unset is no number here: the lifecycle's shape for the store it runs on decides (decision 0065;
  // src/refunds/look-failures.test.ts), not a copy of it in the configuration
  assert.deepEqual(loadConfig({}).jobs, { retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 60, refundRetryLimit: 24 });
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x' }).jobs.refundSweepLanes, undefined);
  assert.deepEqual(
    loadConfig({ JOB_RETRY_LIMIT: '0', JOB_RETRY_DELAY_SECONDS: '30', JOB_RETRY_BACKOFF: 'false', JOB_EXPIRE_SECONDS: '300', REFUND_RETRY_LIMIT: '3', REFUND_SWEEP_LANES: '8' }).jobs,
    { retryLimit: 0, retryDelaySeconds: 30, retryBackoff: false, expireInSeconds: 300, refundRetryLimit: 3, refundSweepLanes: 8 },
  );
});

test('JOB_*: a bad value stops the start with a message naming the variable', () => {
  const cases: Array<[string, string]> = [
    ['JOB_RETRY_LIMIT', '-1'],
    ['JOB_RETRY_LIMIT', '101'],
    ['REFUND_RETRY_LIMIT', '-1'],
    ['REFUND_RETRY_LIMIT', '101'],
    ['REFUND_SWEEP_LANES', '0'],
    ['REFUND_SWEEP_LANES', '17'],
    ['REFUND_SWEEP_LANES', 'many'],
    ['JOB_RETRY_DELAY_SECONDS', '3601'],
    ['JOB_RETRY_DELAY_SECONDS', 'soon'],
    ['JOB_RETRY_BACKOFF', 'sometimes'],
    // an attempt must hold a whole airline call (15 s) with room: at least 30 s; pg-boss refuses 24 h
    ['JOB_EXPIRE_SECONDS', '29'],
    ['JOB_EXPIRE_SECONDS', '86400'],
  ];
  for (const [name, value] of cases) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 1 && err.problems[0]!.startsWith(`${name} must be`),
      `${name}=${value}`,
    );
  }
});

test('docs/production.md lists every variable config.ts reads, with its default, and no other', () => {
  const source = fs.readFileSync(path.join(import.meta.dirname, 'config.ts'), 'utf8');
  const read = new Set([...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|Var\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]!));
  assert.ok(read.size >= 20, [...read].join(' '));
  assert.deepEqual([...read].sort(), CONFIG_DOC.map((d) => d.name).sort(), 'CONFIG_DOC describes exactly the variables config.ts reads');
  const guide = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'production.md'), 'utf8');
  const rows = new Map([...guide.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
  for (const d of CONFIG_DOC) assert.equal(rows.get(d.name), d.default, `docs/production.md "Configuration": ${d.name}`);
  assert.deepEqual([...rows.keys()].filter((name) => !read.has(name)), [], 'rows for variables nobody reads');
});

test('TRUST_PROXY: false by default; true; or addresses and CIDR ranges (a bad entry stops the start)', () => {
  assert.equal(loadConfig({}, '/x').trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }, '/x').trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8 ,::1 ' }, '/x').trustProxy, '127.0.0.1,10.0.0.0/8,::1');
  for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.1/8/1', '127.0.0.1,']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }, '/x'), /TRUST_PROXY must be/, bad);
  }
});
