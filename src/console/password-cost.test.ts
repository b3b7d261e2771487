// Operators' passwords at their own scrypt cost (decision 0059): hashed at PASSWORD_COST (N=2^14, r=8, p=5: OWASP's
// floor for scrypt at 16 MiB a run), client secrets still at SECRET_COST; a password hashed before is hashed again at
// login, and a reset meanwhile wins; the logins' checks run one at a time, and past the lane's queue the console
// answers 429 at once, never counting it as a failed login.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashSecret, PASSWORD_COST, SECRET_COST, verifySecret } from '../clients/secrets.js';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { changeOperator, createOperator, verifyLogin } from './operators.js';
import { createSessionIfPasswordIs } from './sessions.js';

const [first, second] = PLANTED.secrets;
const costOf = (hash: string) => hash.split('$').slice(1, 4).join('$');

describe("operators' passwords at their own cost", () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());
  const hashOf = async (login: string) => (await t.store.db.selectFrom('operators').select('password_hash').where('login', '=', login).executeTakeFirstOrThrow()).password_hash;

  test('a new password is hashed at the passwords\' cost, a client secret at the secrets\'', async () => {
    await createOperator(t.store.db, { login: 'cora.cost', password: first, role: 'viewer' }, new Date());
    assert.equal(costOf(await hashOf('cora.cost')), `${PASSWORD_COST.N}$${PASSWORD_COST.r}$${PASSWORD_COST.p}`);
    await changeOperator(t.store.db, 'cora.cost', { kind: 'password', password: second }, new Date());
    assert.equal(costOf(await hashOf('cora.cost')), '16384$8$5');
    assert.equal(costOf(await hashSecret('a-client-secret')), `${SECRET_COST.N}$${SECRET_COST.r}$${SECRET_COST.p}`);
    assert.equal(costOf(await hashSecret('a-client-secret')), '16384$8$1');
  });

  test('a password hashed before is hashed again at login; a wrong password changes nothing; a reset meanwhile wins', async () => {
    await createOperator(t.store.db, { login: 'olga.old', password: first, role: 'agent' }, new Date());
    const old = await hashSecret(first, SECRET_COST);
    await t.store.db.updateTable('operators').set({ password_hash: old }).where('login', '=', 'olga.old').execute();

    assert.equal(await verifyLogin(t.store.db, 'olga.old', second, new Date()), null);
    assert.equal(await hashOf('olga.old'), old, 'a wrong password: the hash as it was');

    const loginAt = new Date(Date.parse('2026-01-02T03:04:05.000Z'));
    const op = await verifyLogin(t.store.db, 'olga.old', first, loginAt);
    assert.ok(op);
    const lastLogin = async () => (await t.store.db.selectFrom('operators').select('last_login_at').where('login', '=', 'olga.old').executeTakeFirstOrThrow()).last_login_at;
    assert.equal((await lastLogin())?.toISOString(), loginAt.toISOString(), 'the login noted with its new hash');
    const now = await hashOf('olga.old');
    assert.equal(costOf(now), '16384$8$5', 'hashed again at the passwords\' cost');
    assert.equal(op.passwordHash, now, 'the login answers the hash it stored');
    assert.ok(await verifySecret(first, now));
    assert.ok(await createSessionIfPasswordIs(t.store.db, op.operatorId, op.passwordHash, 60_000), 'its session opens');
    const againAt = new Date(loginAt.getTime() + 60_000);
    assert.ok(await verifyLogin(t.store.db, 'olga.old', first, againAt), 'the same password logs in again');
    assert.equal(await hashOf('olga.old'), now, 'and is not hashed again');
    assert.equal((await lastLogin())?.toISOString(), againAt.toISOString(), 'its login noted');

    // a reset after the login read the old hash: the reset's hash stays, and the session the login asks for is
    // refused. The lane is kept busy by three unknown logins (~200 ms each) so that the reset lands while this
    // login's check waits behind them, after its read.
    await t.store.db.updateTable('operators').set({ password_hash: old }).where('login', '=', 'olga.old').execute();
    const reset = await hashSecret(second, PASSWORD_COST);
    const busy = Array.from({ length: 3 }, (_, i) => verifyLogin(t.store.db, `nobody.${i}`, first, new Date()));
    const racing = verifyLogin(t.store.db, 'olga.old', first, new Date());
    await sleep(250);
    await t.store.db.updateTable('operators').set({ password_hash: reset }).where('login', '=', 'olga.old').execute();
    const raced = await racing;
    await Promise.all(busy);
    assert.ok(raced, 'the password it read the hash of was right');
    assert.equal(raced.passwordHash, old, 'the hash it checked, not a new one');
    assert.equal(await hashOf('olga.old'), reset, "the reset's hash stays");
    assert.ok((await lastLogin())!.getTime() > againAt.getTime(), 'the login is noted all the same (its password was right)');
    assert.equal(await createSessionIfPasswordIs(t.store.db, raced.operatorId, raced.passwordHash, 60_000), null, 'no session');
  });
});

describe('the logins\' lane', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('past 16 waiting checks a login is answered 429 at once, not counted as a failure; the others are checked', async () => {
    // unknown logins from as many addresses (the throttle counts per login and per address: none binds here)
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.app.inject({ method: 'POST', url: '/console/api/login', remoteAddress: `10.9.0.${i + 1}`, payload: { login: `nobody.${i}`, password: 'wrong-password-123' } }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    const busy = answers.filter((a) => a.statusCode === 429);
    // one checked and 16 waiting while the rest arrive (more only if a check ended before they all had: a slow machine)
    const checked = codes.filter((c) => c === 401).length;
    assert.ok(checked >= 17 && busy.length >= 10 && checked + busy.length === 40, codes.join(','));
    for (const b of busy) {
      assert.equal(b.headers['retry-after'], '1');
      assert.match(b.json<{ error: string }>().error, /too many logins are being checked/);
    }
    // the refused ones are not failures of their login
    const failures = await t.store.db.selectFrom('console_login_failures').select('key_hash').execute();
    const counted = new Set(failures.map((f) => f.key_hash));
    const keyOf = (i: number) => createHash('sha256').update(`login:nobody.${i}`).digest('hex');
    const refused = answers.map((a, i) => (a.statusCode === 429 ? i : -1)).filter((i) => i >= 0);
    assert.ok(refused.every((i) => !counted.has(keyOf(i))), 'a 429 of the lane counts no failure');
    assert.equal(answers.filter((a, i) => a.statusCode === 401 && counted.has(keyOf(i))).length, checked, 'the checked ones count');
  });
});
