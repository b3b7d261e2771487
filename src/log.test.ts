// The access log (decision 0033): one line per answer, with the route's pattern, the method, the HTTP and body
// statuses, the time and the request id; nothing the caller sent. The destination's batches (decision 0041).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { batchedDestination, loggerOptions } from './log.js';
import { call, makeTestApp, type TestApp } from './test-support/app.js';
import { PLANTED } from './test-support/planted.js';
import { TEST_ADMIN_TOKEN } from './test-support/world.js';
import { waitFor } from './test-support/wait.js';

describe('access log', () => {
  let t: TestApp;
  const lines: Record<string, unknown>[] = [];
  /** Children made of the app's logger (its access logger at start, then request loggers when they write). */
  let childrenMade = 0;
  before(async () => {
    // The production logger's options at the production level, into memory.
    const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const child = logger.child.bind(logger);
    logger.child = ((bindings, options) => {
      childrenMade++;
      return child(bindings, options);
    });
    t = await makeTestApp({ logger });
  });
  after(() => t.close());

  /** The lines of one request, by the id the answer carries. */
  const linesOf = (requestId: string) => lines.filter((l) => l.reqId === requestId);

  test('one line per answer: route, method, HTTP status, body status, milliseconds, request id', async () => {
    const [lastName] = PLANTED.names;
    const [email] = PLANTED.emails;
    const body = {
      airlinePnr: 'TST001',
      carrier: 'XS',
      passengers: [{ firstName: 'ANNA', lastName, passengerType: null }],
      contact: { email },
      routing: null,
    };
    const res = await call(t.app, '/extractPnr.do', body);
    const id = res.headers['x-request-id'];
    assert.equal(typeof id, 'string');
    const mine = linesOf(id as string);
    assert.equal(mine.length, 1, JSON.stringify(mine));
    const [line] = mine as [Record<string, unknown>];
    assert.equal(line.msg, 'answered');
    assert.equal(line.level, 30);
    assert.equal(line.route, '/extractPnr.do');
    assert.equal(line.method, 'POST');
    assert.equal(line.http, res.http);
    assert.equal(line.status, (res.body as { status: number }).status);
    assert.equal(typeof line.ms, 'number');
    assert.ok((line.ms as number) >= 0);
    // Nothing of the request: no body, no header, no credential.
    const text = JSON.stringify(line);
    for (const value of [lastName, email, 'TST001', 'secret']) assert.ok(!text.toLowerCase().includes(value.toLowerCase()), value);
    assert.deepEqual(Object.keys(line).sort(), ['hostname', 'level', 'method', 'ms', 'msg', 'pid', 'reqId', 'route', 'http', 'status', 'time'].sort());
  });

  test('no "incoming request" line, and a failure answer has its line with its body status (spec 7.1: 810 for an invalid request)', async () => {
    const res = await call(t.app, '/refundQuotation.do', { orderNo: 123 });
    const mine = linesOf(res.headers['x-request-id'] as string);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.http, 200);
    assert.equal(mine[0]!.status, (res.body as { status: number }).status);
    assert.equal(mine[0]!.status, 810);
    assert.equal(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed').length, 0);
  });

  test('a path no route serves is not logged as typed (it may carry anything)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/orders/${PLANTED.names[0]}?email=${PLANTED.emails[0]}` });
    assert.equal(res.statusCode, 404);
    const mine = linesOf(res.headers['x-request-id'] as string);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.route, '(no route)');
    assert.equal(mine[0]!.http, 404);
    assert.ok(!JSON.stringify(mine[0]).includes(PLANTED.names[0]));
  });

  test('a request logger is built only when a line is written through it, and its lines carry the request id', async () => {
    const before = childrenMade;
    for (let i = 0; i < 5; i++) await call(t.app, '/refundQuotation.do', { orderNo: 123 });
    assert.equal(childrenMade, before, 'answers that log nothing of their own build no child logger');
    // POST /sandbox/clock writes a line of its own through request.log
    const res = await t.app.inject({ method: 'POST', url: '/sandbox/clock', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { advanceMinutes: 1 } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(childrenMade, before + 1);
    const mine = linesOf(res.headers['x-request-id'] as string);
    assert.deepEqual(mine.map((l) => l.msg).sort(), ['answered', 'sandbox clock moved']);
  });
});

describe('log destination: lines written in batches (decision 0041)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-log-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const fileOf = () => path.join(dir, `${++n}.log`);
  const linesIn = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  /** Polls every 10 ms until `check` holds, for at most `ms`. */
  const until = (what: string, check: () => boolean, ms = 3_000) => waitFor(what, async () => check(), ms, 10);

  test('lines of answers apart in time go out together, not one write each', async (t) => {
    const file = fileOf();
    const logger = pino(loggerOptions('info'), batchedDestination(file, { maxDelayMs: 200 }));
    await sleep(50); // the file opened
    const writes = t.mock.method(fs, 'write');
    // twenty answers 2 ms apart: each line's write would be over before the next line
    for (let i = 0; i < 20; i++) {
      logger.info({ i }, 'answered');
      await sleep(2);
    }
    await until('the twenty lines', () => linesIn(file).length === 20);
    assert.ok(writes.mock.callCount() <= 5, `${writes.mock.callCount()} writes for 20 lines`);
    assert.deepEqual(linesIn(file).map((l) => (JSON.parse(l) as { i: number }).i), [...Array(20).keys()]);
  });

  test('a payment card never reaches a line, under any of its names, whatever logs it', () => {
    const out: string[] = [];
    const logger = pino(loggerOptions('info'), { write: (line: string) => void out.push(line) });
    const card = { number: '4111111111111111', cvv: '737' };
    logger.info({ card }, 'top level');
    logger.info({ payment: { method: 'virtualCard', card } }, 'one level down');
    logger.info({ creditCard: { cardNumber: card.number, cardCVV: card.cvv } }, 'as pay.do received it');
    logger.info({ req: { creditCard: { cardNumber: card.number } } }, 'inside another object');
    assert.equal(out.length, 4);
    for (const line of out) {
      // read without the numbers the logger writes itself: a line's time held the CVV's three digits by chance in a CI
      // run ("time":1796610727737), which failed this test though nothing was logged that should not be
      const fields = JSON.parse(line) as Record<string, unknown>;
      delete fields.time;
      delete fields.pid;
      const text = JSON.stringify(fields);
      assert.ok(!text.includes(card.number) && !text.includes(card.cvv), line);
    }
  });

  test('a line below the batch size is written once it has waited the delay', async () => {
    const file = fileOf();
    const logger = pino(loggerOptions('info'), batchedDestination(file, { maxDelayMs: 50 }));
    logger.info('one line');
    await until('the line', () => linesIn(file).length === 1);
    // and again after a quiet time (the timer stopped, and starts with the next line)
    await sleep(300);
    logger.info('another');
    await until('the second line', () => linesIn(file).length === 2);
  });

  test('a line gathered while a write outlasts the delay is written once that write ends (found when a start seemed to hang: its last line unwritten)', async (t) => {
    const file = fileOf();
    const logger = pino(loggerOptions('info'), batchedDestination(file, { maxDelayMs: 20 }));
    await sleep(100); // the file opened
    // every write takes 300 ms, as on a machine whose thread pool is busy: both of the timer's ticks find it under way
    const write = fs.write;
    t.mock.method(fs, 'write', (...args: unknown[]) => {
      const cb = args.at(-1) as (...r: unknown[]) => void;
      (write as (...a: unknown[]) => void)(...args.slice(0, -1), (...r: unknown[]) => setTimeout(() => cb(...r), 300));
    });
    logger.warn('a warning, written at once');
    await sleep(5);
    logger.info('postbook is ready');
    await until('the line after the slow write', () => linesIn(file).length === 2, 3_000);
    assert.deepEqual(linesIn(file).map((l) => (JSON.parse(l) as { msg: string }).msg), ['a warning, written at once', 'postbook is ready']);
  });

  test('a warning is written at once, with the lines before it', async () => {
    const file = fileOf();
    const logger = pino(loggerOptions('info'), batchedDestination(file, { maxDelayMs: 60_000 }));
    await sleep(100); // the file opened (stdout, the service's destination, is open from the start)
    logger.info('before');
    logger.warn('a warning');
    await until('both lines', () => linesIn(file).length === 2, 2_000);
    assert.deepEqual(linesIn(file).map((l) => (JSON.parse(l) as { msg: string }).msg), ['before', 'a warning']);
  });

  test('at exit the lines still gathered are written', () => {
    const file = fileOf();
    const script = path.join(dir, 'exit.ts');
    const logModule = path.join(import.meta.dirname, 'log.ts');
    fs.writeFileSync(script, `import { createLogger } from ${JSON.stringify(logModule)};
const logger = createLogger('info', ${JSON.stringify(file)});
setTimeout(() => { logger.info('last words'); process.exit(0); }, 100);
`);
    execFileSync(process.execPath, ['--import', 'tsx', script], { stdio: 'pipe', timeout: 30_000 });
    assert.deepEqual(linesIn(file).map((l) => (JSON.parse(l) as { msg: string }).msg), ['last words']);
  });
});

test('a database error is logged without the values it quotes; a request line without its query string (found by a review)', () => {
  const out: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void out.push(line) });
  const [doc] = PLANTED.documents;
  // as PostgreSQL words an invalid input (SQLSTATE 22P02): the value in the message itself
  const dbError = Object.assign(new Error(`invalid input syntax for type integer: "${doc}"`), { code: '22P02' });
  logger.error({ err: dbError }, 'store failed');
  const logged = JSON.parse(out[0]!) as { err: { message: string; code: string; stack: string } };
  assert.ok(!out[0]!.includes(doc), out[0]);
  assert.equal(logged.err.message, 'invalid input syntax for type integer: "…"');
  assert.equal(logged.err.code, '22P02');
  // an error of ours keeps its message whole
  logger.error({ err: Object.assign(new Error('airline said "no"'), { code: 'ECONNRESET' }) }, 'other');
  assert.match(out[1]!, /airline said \\"no\\"/);
  logger.info({ req: { method: 'POST', url: `/pay.do?cardNumber=${PLANTED.cards[0]}&x=1`, ip: '127.0.0.1' } }, 'request');
  assert.ok(!out[2]!.includes(PLANTED.cards[0]), out[2]);
  assert.equal((JSON.parse(out[2]!) as { req: { url: string } }).req.url, '/pay.do');
});

test("an error given as { message } is logged with its message (a review: '[object Object]')", () => {
  const out: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void out.push(line) });
  logger.warn({ err: { message: 'connect ECONNREFUSED 127.0.0.1:6379' } }, 'redis connection error');
  logger.warn({ err: 'plain text' }, 'a string');
  logger.warn({ err: new Error('an error') }, 'an Error');
  assert.deepEqual(out.map((l) => (JSON.parse(l) as { err: { message: string } }).err.message), ['connect ECONNREFUSED 127.0.0.1:6379', 'plain text', 'an error']);
});
