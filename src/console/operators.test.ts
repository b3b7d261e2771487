// Operator accounts changed from the command line (`postbook operators disable|enable|role|password`; found by a
// review: an operator who left could not be locked out, nor a leaked password replaced): each change is one
// transaction with its audit row, never holding the password or its hash; disabling and a new password end the
// account's console sessions at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import type { Store } from '../store/store.js';
import { changeOperator, changeOwnPassword, createOperator, NoLongerAdmin, NotYours, OperatorError, verifyLogin, WrongPassword } from './operators.js';
import { createSession, createSessionIfPasswordIs, findSession } from './sessions.js';

const [first, second] = PLANTED.secrets;

describe('operator accounts from the command line', () => {
  let store: Store;
  before(async () => {
    store = await openTestStore();
  });
  after(() => store.close());
  const now = () => new Date();
  const auditOf = (login: string) => store.db.selectFrom('audit_log').select(['operator_login', 'action', 'before', 'after']).where('target', '=', `operator:${login}`).orderBy('id').execute();

  test('disable refuses logins and ends the sessions at once; enable lets the operator back', async () => {
    const op = await createOperator(store.db, { login: 'dora.disable', password: first, role: 'agent' }, now());
    const session = await createSession(store.db, op.operatorId, 3_600_000);
    assert.ok(await findSession(store.db, session.token));
    const disabled = await changeOperator(store.db, 'Dora.Disable', { kind: 'disable' }, now());
    assert.equal(disabled.disabled, true);
    assert.equal(await findSession(store.db, session.token), null, 'its session is gone');
    assert.equal((await store.db.selectFrom('console_sessions').select('token_hash').where('operator_id', '=', op.operatorId).execute()).length, 0, 'deleted, not only refused');
    assert.equal(await verifyLogin(store.db, 'dora.disable', first, now()), null);
    await assert.rejects(changeOperator(store.db, 'dora.disable', { kind: 'disable' }, now()), /disabled already/);
    await changeOperator(store.db, 'dora.disable', { kind: 'enable' }, now());
    assert.ok(await verifyLogin(store.db, 'dora.disable', first, now()));
    const rows = await auditOf('dora.disable');
    assert.deepEqual(
      rows.map((r) => [r.operator_login, r.action, r.before, r.after]),
      [
        ['cli', 'operator.create', null, { role: 'agent', disabled: false }],
        ['cli', 'operator.disable', { role: 'agent', disabled: false }, { role: 'agent', disabled: true, sessionsEnded: 1 }],
        ['cli', 'operator.enable', { role: 'agent', disabled: true }, { role: 'agent', disabled: false, sessionsEnded: 0 }],
      ],
    );
  });

  test("a login checked against the password before a reset opens no session after it; one's own change made against it is refused (found by a review: the reset left a session open, or was undone)", async () => {
    const op = await createOperator(store.db, { login: 'lea.race', password: first, role: 'agent' }, now());
    const checked = await verifyLogin(store.db, 'lea.race', first, now());
    assert.ok(checked);
    // the admin's reset lands between the password check and the session
    await changeOperator(store.db, 'lea.race', { kind: 'password', password: second }, now());
    assert.equal(await createSessionIfPasswordIs(store.db, op.operatorId, checked.passwordHash, 3_600_000), null, 'no session from the old password');
    const now2 = await verifyLogin(store.db, 'lea.race', second, now());
    const session = await createSessionIfPasswordIs(store.db, op.operatorId, now2!.passwordHash, 3_600_000);
    assert.ok(session && (await findSession(store.db, session.token)), 'the new password opens one');
    // one's own change checked against the old hash, the reset written meanwhile: refused, the reset stands
    await assert.rejects(
      changeOperator(store.db, 'lea.race', { kind: 'password', password: 'chosen-by-the-holder-1' }, now(), op, { expectPasswordHash: checked.passwordHash }),
      WrongPassword,
    );
    assert.ok(await verifyLogin(store.db, 'lea.race', second, now()), "the admin's password still works");
    // and as it runs without a race: the new hash opens the session that replaces the old ones
    const changed = await changeOwnPassword(store.db, op, second, 'chosen-by-the-holder-2', now());
    assert.equal(await findSession(store.db, session.token), null, 'its sessions ended');
    assert.ok(await createSessionIfPasswordIs(store.db, op.operatorId, changed.passwordHash, 3_600_000));
    // a disabled account opens none
    await changeOperator(store.db, 'lea.race', { kind: 'disable' }, now());
    assert.equal(await createSessionIfPasswordIs(store.db, op.operatorId, changed.passwordHash, 3_600_000), null);
  });

  test('the audit log\'s names for the command line and the sandbox are no operator logins (found by a review)', async () => {
    for (const login of ['cli', 'Sandbox']) {
      await assert.rejects(createOperator(store.db, { login, password: first, role: 'admin' }, now()), /reserved/);
    }
  });

  test('role: the open session acts with the new role from its next request', async () => {
    const op = await createOperator(store.db, { login: 'rita.role', password: first, role: 'admin' }, now());
    const session = await createSession(store.db, op.operatorId, 3_600_000);
    await changeOperator(store.db, 'rita.role', { kind: 'role', role: 'viewer' }, now());
    assert.equal((await findSession(store.db, session.token))?.operator.role, 'viewer');
    await assert.rejects(changeOperator(store.db, 'rita.role', { kind: 'role', role: 'viewer' }, now()), /viewer already/);
    await assert.rejects(changeOperator(store.db, 'rita.role', { kind: 'role', role: 'root' as never }, now()), OperatorError);
  });

  test('password: the old one stops working, the sessions end, and neither password nor hash reaches the audit log', async () => {
    const op = await createOperator(store.db, { login: 'pia.password', password: first, role: 'viewer' }, now());
    const session = await createSession(store.db, op.operatorId, 3_600_000);
    await assert.rejects(changeOperator(store.db, 'pia.password', { kind: 'password', password: 'short' }, now()), /at least 12 characters/);
    assert.ok(await findSession(store.db, session.token), 'a refused change changes nothing');
    await changeOperator(store.db, 'pia.password', { kind: 'password', password: second }, now());
    assert.equal(await verifyLogin(store.db, 'pia.password', first, now()), null);
    assert.ok(await verifyLogin(store.db, 'pia.password', second, now()));
    assert.equal(await findSession(store.db, session.token), null);
    const text = JSON.stringify(await auditOf('pia.password'));
    assert.match(text, /operator\.password/);
    const hash = (await store.db.selectFrom('operators').select('password_hash').where('login', '=', 'pia.password').executeTakeFirstOrThrow()).password_hash;
    assert.ok(!text.includes(second) && !text.includes(first) && !text.includes(hash));
  });

  test('create is audited with who made it (cli by default), never the password; a login taken writes nothing', async () => {
    await createOperator(store.db, { login: 'cleo.create', password: first, role: 'agent' }, now());
    await createOperator(store.db, { login: 'carl.console', password: second, role: 'viewer' }, now(), { operatorId: 'op_x', login: 'ada.admin' });
    assert.deepEqual((await auditOf('cleo.create')).map((r) => [r.operator_login, r.action, r.before, r.after]), [['cli', 'operator.create', null, { role: 'agent', disabled: false }]]);
    assert.deepEqual((await auditOf('carl.console')).map((r) => [r.operator_login, r.action]), [['ada.admin', 'operator.create']]);
    await assert.rejects(createOperator(store.db, { login: 'cleo.create', password: second, role: 'admin' }, now()), /exists already/);
    assert.equal((await auditOf('cleo.create')).length, 1);
    assert.ok(!JSON.stringify(await auditOf('carl.console')).includes(second));
  });

  test('asAdmin (the console): the acting admin must still be an enabled one when the change is written, and never changes their own account; the command line may leave no admin', async () => {
    const alma = await createOperator(store.db, { login: 'alma.admin', password: first, role: 'admin' }, now());
    const abe = await createOperator(store.db, { login: 'abe.admin', password: first, role: 'admin' }, now());
    await createOperator(store.db, { login: 'vic.viewer', password: first, role: 'viewer' }, now());
    assert.equal((await changeOperator(store.db, 'vic.viewer', { kind: 'role', role: 'agent' }, now(), alma, { asAdmin: true })).role, 'agent');
    for (const change of [{ kind: 'disable' }, { kind: 'role', role: 'agent' }, { kind: 'password', password: second }] as const) {
      await assert.rejects(changeOperator(store.db, ' ALMA.Admin ', change, now(), alma, { asAdmin: true }), NotYours, change.kind);
    }
    await changeOperator(store.db, 'alma.admin', { kind: 'disable' }, now(), abe, { asAdmin: true });
    // alma's request was on its way when abe disabled her: it changes nothing
    await assert.rejects(changeOperator(store.db, 'vic.viewer', { kind: 'role', role: 'admin' }, now(), alma, { asAdmin: true }), NoLongerAdmin);
    await assert.rejects(createOperator(store.db, { login: 'sock.puppet', password: first, role: 'admin' }, now(), alma, { asAdmin: true }), NoLongerAdmin);
    assert.equal(await store.db.selectFrom('operators').select('login').where('login', '=', 'sock.puppet').executeTakeFirst(), undefined);
    assert.equal((await store.db.selectFrom('operators').select('role').where('login', '=', 'vic.viewer').executeTakeFirstOrThrow()).role, 'agent');
    for (const a of await store.db.selectFrom('operators').select('login').where('role', '=', 'admin').where('disabled', '=', false).execute()) {
      await changeOperator(store.db, a.login, { kind: 'disable' }, now());
    }
    assert.equal((await store.db.selectFrom('operators').select('login').where('role', '=', 'admin').where('disabled', '=', false).execute()).length, 0, 'the command line may leave none');
  });

  test('an unknown login is refused and writes nothing', async () => {
    const before = (await store.db.selectFrom('audit_log').select('id').execute()).length;
    await assert.rejects(changeOperator(store.db, 'nobody.here', { kind: 'disable' }, now()), /no operator nobody\.here/);
    assert.equal((await store.db.selectFrom('audit_log').select('id').execute()).length, before);
  });
});
