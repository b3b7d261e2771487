// `postbook operators add|list|disable|enable|role|password` (docs/console.md "Operators"): the password comes from standard input, never
// from a flag, and is never printed; bad logins, roles and short passwords are refused with the usage exit code.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migratedDataDir, nodeArgs, ROOT } from './support/processes.js';
import { PLANTED } from '../src/test-support/planted.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-operators-cli-'));
const dataDir = await migratedDataDir(path.join(dir, 'data'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], stdin: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgs(['src/cli.ts', ...args]), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, SANDBOX: 'true', LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

test('operators add reads the password from stdin and never prints it; list shows login, role and last login', { timeout: 300_000 }, async () => {
  const password = PLANTED.secrets[1];
  const added = await cli(['operators', 'add', 'Olga.Ops', '--role', 'admin'], `${password}\n`);
  assert.equal(added.code, 0, added.err);
  assert.match(added.out, /operator olga\.ops created \(admin\)/);
  assert.ok(!added.out.includes(password) && !added.err.includes(password), 'the password is never printed');

  const again = await cli(['operators', 'add', 'olga.ops', '--role', 'viewer'], `${password}\n`);
  assert.equal(again.code, 2);
  assert.match(again.err, /an operator olga\.ops exists already/);
  const short = await cli(['operators', 'add', 'sam.short', '--role', 'viewer'], 'short\n');
  assert.equal(short.code, 2);
  assert.match(short.err, /at least 12 characters/);
  const empty = await cli(['operators', 'add', 'eve.empty', '--role', 'viewer'], '');
  assert.equal(empty.code, 2);
  assert.match(empty.err, /no password on standard input/);
  const badRole = await cli(['operators', 'add', 'rob.role', '--role', 'root'], `${password}\n`);
  assert.equal(badRole.code, 2);
  assert.match(badRole.err, /Allowed choices are viewer, agent, admin/);
  const noRole = await cli(['operators', 'add', 'rob.role'], `${password}\n`);
  assert.equal(noRole.code, 2);
  const badLogin = await cli(['operators', 'add', 'x', '--role', 'viewer'], `${password}\n`);
  assert.equal(badLogin.code, 2);
  assert.match(badLogin.err, /login: 3 to 64/);

  const list = await cli(['operators', 'list'], '');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /^olga\.ops {2}admin {2}created \S+ {2}last login never$/m);
  assert.ok(!list.out.includes('sam.short') && !list.out.includes('scrypt'));
});

test('operators disable, enable, role and password change an account from the command line; an unknown login is refused', { timeout: 300_000 }, async () => {
  const [password, next] = [PLANTED.secrets[1], PLANTED.secrets[2]];
  assert.equal((await cli(['operators', 'add', 'carl.change', '--role', 'agent'], `${password}\n`)).code, 0);
  const disabled = await cli(['operators', 'disable', 'carl.change'], '');
  assert.equal(disabled.code, 0, disabled.err);
  assert.match(disabled.out, /operator carl\.change disabled; its console sessions ended/);
  assert.match((await cli(['operators', 'list'], '')).out, /^carl\.change {2}agent {2}disabled {2}created/m);
  assert.equal((await cli(['operators', 'enable', 'carl.change'], '')).code, 0);
  const role = await cli(['operators', 'role', 'carl.change', '--role', 'viewer'], '');
  assert.equal(role.code, 0, role.err);
  assert.match(role.out, /operator carl\.change is now viewer/);
  const reset = await cli(['operators', 'password', 'carl.change'], `${next}\n`);
  assert.equal(reset.code, 0, reset.err);
  assert.ok(!reset.out.includes(next) && !reset.err.includes(next), 'the password is never printed');
  assert.match((await cli(['operators', 'list'], '')).out, /^carl\.change {2}viewer {2}created/m);
  const unknown = await cli(['operators', 'disable', 'nobody.here'], '');
  assert.equal(unknown.code, 1, 'README: "not found" exits 1 (found by a review: 2)');
  // an unknown login is said before any password is read (found by a review: asked first); nothing on stdin here
  const noPassword = await cli(['operators', 'password', 'nobody.here'], '');
  assert.equal(noPassword.code, 1, noPassword.err);
  assert.match(noPassword.err, /no operator nobody\.here/);
  assert.match(unknown.err, /no operator nobody\.here/);
});
