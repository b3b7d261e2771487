// The operator console over HTTP (docs/console.md): the built React app under /console (its assets from
// console/dist, every other /console path answering index.html for the app's own routes) and its JSON API
// under /console/api/*, kept out of the public OpenAPI document. Operators log in with a password and get a
// server-side session (HttpOnly, SameSite=Strict cookie); every state-changing call carries the session's
// CSRF token in the x-csrf-token header; roles gate the actions; the actions write the audit log.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Type from 'typebox';
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { PAYMENT_METHOD_NAMES, type Database, type OperatorRole } from '../store/schema.js';
import type { RefundDeps } from '../refunds/deps.js';
import { REFUND_ORDER_STATUS } from '../refunds/statuses.js';
import { loadContextForCaller } from '../refunds/context.js';
import { ActionRefused, approveCase, CANCEL_REASONS, estimateCase, type CaseEstimate, rejectCase, redeliverWebhook, retryRefund, withdrawRefund } from './actions.js';
import { audit, auditOf, auditPage } from './audit.js';
import { refundDetail, voidDetail, orderView } from './detail.js';
import { changeOwnPassword, LoginBusy, OperatorError, roleAllows, seedDemoOperators, verifyLogin, WrongPassword, type Operator } from './operators.js';
import { addOperator, changeOperatorFromConsole, operatorsView, resetOperatorPassword } from './operator-admin.js';
import { refundQueue, queueFacets, QueueCursorInvalid, type QueueFilter } from './queue.js';
import { createSessionIfPasswordIs, csrfMatches, endSession, findSession, sessionCookie, type Session } from './sessions.js';
import { FailedLogins } from './throttle.js';
import { ApiError } from '../errors.js';
import { clockState, type SharedSandboxClock } from '../sandbox-clock.js';
import { charts } from './charts.js';
import { flightSeatMap, seatSources, sessionSeatMap } from './seatmaps.js';
import type { BookingDeps } from '../booking/airline-calls.js';
import type { World } from '../airline/sandbox/world.js';
import { reloadWorld, worldSummary } from './world.js';
import { clientsUsage, type UsageSources } from './usage.js';
import type { WebhookRegistry } from '../webhooks/register.js';
import { addClient, setClientWebhook, editClientSettings, listClients, rotateClient, setClientState, type EditableSettings } from './clients.js';

export interface ConsoleDeps {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  refunds: RefundDeps;
  /** Forget this process's cached verifications of a client (after a rotation or a status change). */
  invalidateClient: (clientId: string) => void;
  /** The shared sandbox clock (sandbox mode): the sandbox panel shows and moves it. */
  sandboxClock: SharedSandboxClock | null;
  /** The seat map viewer: the booking chain's reads, and the sandbox world's flights. */
  booking: BookingDeps;
  world: World | null;
  /** The service's rate pools and look-to-book counter: the clients page reads their live counts. */
  usage?: UsageSources;
  /** Webhook registration (src/webhooks/register.ts): the clients page sets a client's URL with it. */
  webhooks?: WebhookRegistry;
}

/** Where `npm run build` puts the console app (vite, console/vite.config.ts): the same path from src/ and dist/. */
export const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/dist');

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console API: the least role a route needs (viewer when absent). */
    consoleRole?: OperatorRole;
  }
  interface FastifyRequest {
    consoleSession: Session | null;
  }
}

const LOGIN_FAILED = 'login or password is wrong';
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const API_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const hidden = { hide: true };
const CodeParams = Type.Object({ code: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const IdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });
const EventParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) });
const LoginBody = Type.Object({ login: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
const RejectBody = Type.Object({ cancelReason: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const QueueQuery = Type.Object(
  {
    kind: Type.Optional(Type.Union([Type.Literal('refund'), Type.Literal('void')])),
    status: Type.Optional(Type.String({ pattern: '^[0-6]$' })),
    airline: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{2,3}$' })),
    client: Type.Optional(Type.String({ maxLength: 64 })),
    payment: Type.Optional(Type.Union(PAYMENT_METHOD_NAMES.map((m) => Type.Literal(m)))),
    reason: Type.Optional(Type.Union(['0', '1', '4'].map((m) => Type.Literal(m)))),
    minAgeHours: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
    late: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')])),
    sort: Type.Optional(Type.Union(['created', 'updated', 'amount', 'status'].map((m) => Type.Literal(m)))),
    dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$' })),
    /** The page after / before this row: the `next` / `prev` of the page shown (a keyset cursor, not an offset). */
    after: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,400}$' })),
    before: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,400}$' })),
  },
  { additionalProperties: false },
);
const ClientParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
const NewClientBody = Type.Object({ clientId: Type.String({ maxLength: 64 }), name: Type.String({ maxLength: 200 }) }, { additionalProperties: false });
const RotateBody = Type.Object({ graceHours: Type.Number({ minimum: 0, maximum: 720 }) }, { additionalProperties: false });
const WebhookBody = Type.Object({ url: Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]), rotateSecret: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
const MoveClockBody = Type.Object({ advanceMinutes: Type.Integer({ minimum: 1, maximum: 5_256_000 }), fromOffsetMs: Type.Optional(Type.Integer()) }, { additionalProperties: false });
const SeatMapQuery = Type.Object(
  {
    session: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' })),
    segment: Type.Optional(Type.String({ pattern: '^[0-9]{1,2}$' })),
    flight: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' })),
    cabinClass: Type.Optional(Type.String({ pattern: '^[0-9]$' })),
  },
  { additionalProperties: false },
);
const OwnPasswordBody = Type.Object({ currentPassword: Type.String({ minLength: 1, maxLength: 256 }), newPassword: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
const LoginParams = Type.Object({ login: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{2,63}$' }) });
const RoleValue = Type.Union(['viewer', 'agent', 'admin'].map((r) => Type.Literal(r)));
const NewOperatorBody = Type.Object({ login: Type.String({ maxLength: 64 }), role: RoleValue }, { additionalProperties: false });
const OperatorRoleBody = Type.Object({ role: RoleValue }, { additionalProperties: false });
const PerMinute = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()]);
const SettingsBody = Type.Object(
  {
    refundServiceFee: Type.Union([Type.String({ maxLength: 30 }), Type.Null()]),
    minMinutesBeforeDeparture: Type.Union([Type.Integer({ minimum: 0, maximum: 525_600 }), Type.Null()]),
    ancillaryPerMinute: PerMinute,
    verifyPerMinute: PerMinute,
    pnrPerMinute: PerMinute,
    searchPerSecond: Type.Optional(PerMinute),
    settingsVersion: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    lookToBook: Type.Union([Type.Object({ maxRatio: Type.Number({ minimum: 1, maximum: 1_000_000 }), minRequests: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }) }, { additionalProperties: false }), Type.Null()]),
  },
  { additionalProperties: false },
);
const CasesQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(['pending', 'approved', 'rejected'].map((m) => Type.Literal(m)))),
    /** The page after this case (the `next` of the page before). */
    after: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' })),
  },
  { additionalProperties: false },
);
const AuditQuery = Type.Object(
  {
    target: Type.Optional(Type.String({ maxLength: 100 })),
    /** Entries older than this id (the `next` of the page before). */
    before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
  },
  { additionalProperties: false },
);
/** Rows per page of the cases and the audit log. */
const LIST_PAGE = 200;

export function consolePlugin(deps: ConsoleDeps): FastifyPluginAsync {
  return async (app) => {
    if (deps.config.sandbox && deps.config.consoleDemoPassword) await seedDemoOperators(deps.db, deps.config.consoleDemoPassword, new Date());
    await app.register(cookie);
    app.decorateRequest('consoleSession', null);
    registerPages(app);
    await app.register(async (api) => registerApi(api, deps), { prefix: '/console/api' });
  };
}

/** The app's files: hashed assets (cached for long), index.html for /console and every client route. */
function registerPages(app: FastifyInstance): void {
  void app.register(fastifyStatic, {
    root: path.join(CONSOLE_DIST, 'assets'),
    prefix: '/console/assets/',
    decorateReply: false,
    immutable: true,
    maxAge: '365d',
    // The build writes .br and .gz beside each asset (console/vite.config.ts): sent as they are.
    preCompressed: true,
    setHeaders: (res: { setHeader: (name: string, value: string) => unknown }) => {
      res.setHeader('x-content-type-options', 'nosniff');
    },
    // A missing build leaves the folder absent: the page route says how to build it.
    ...(fs.existsSync(path.join(CONSOLE_DIST, 'assets')) ? {} : { root: CONSOLE_DIST }),
  });
  let index: Buffer | null = null;
  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    index ??= readIndex();
    reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-cache' });
    if (!index) return reply.code(503).type('text/plain; charset=utf-8').send('The operator console is not built: run `npm run build` (docs/console.md).\n');
    return reply.type('text/html; charset=utf-8').send(index);
  };
  app.get('/console', { schema: hidden, config: { auth: 'none' } }, page);
  app.get('/console/*', { schema: hidden, config: { auth: 'none' } }, async (request, reply) => {
    // Only client routes fall back to the page: an API path or asset that does not exist is a 404.
    const rest = (request.params as { '*': string })['*'];
    if (rest.startsWith('api/')) return reply.code(404).headers(API_HEADERS).send({ error: 'not found' });
    if (rest.startsWith('assets/')) return reply.code(404).send({ error: 'not found' });
    return page(request, reply);
  });
}

function readIndex(): Buffer | null {
  try {
    return fs.readFileSync(path.join(CONSOLE_DIST, 'index.html'));
  } catch {
    return null;
  }
}

function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof ActionRefused) return reply.code(err.httpStatus).send({ error: err.message });
  if (err instanceof QueueCursorInvalid) return reply.code(400).send({ error: err.message });
  // logins and password changes being checked past the lane's queue (decision 0059): not counted as a failure
  if (err instanceof LoginBusy) return reply.code(429).header('retry-after', '1').send({ error: err.message });
  if (err instanceof ApiError) return reply.code(err.httpStatus === 200 ? 409 : err.httpStatus).send({ error: err.msg });
  if (err.validation) return reply.code(400).send({ error: `invalid request: ${err.validation[0]?.instancePath || err.validationContext || 'body'} ${err.validation[0]?.message ?? 'is invalid'}` });
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.code(415).send({ error: 'Content-Type must be application/json' });
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) return reply.code(err.statusCode).send({ error: err.message });
  request.log.error({ err }, 'console request failed');
  return reply.code(500).send({ error: `internal error; quote request id ${request.id}` });
}

function registerApi(api: FastifyInstance, deps: ConsoleDeps): void {
  const { db } = deps;
  const throttle = new FailedLogins(db);
  const sessionMs = deps.config.consoleSessionHours * 3_600_000;
  api.setErrorHandler(errorHandler);
  // an API path that does not exist, asked with another method than GET (GET is the pages' route's)
  api.setNotFoundHandler((_request, reply) => reply.code(404).headers(API_HEADERS).send({ error: 'not found' }));
  // JSON for the console's own script only: never cached, never sniffed as another type, never framed or
  // rendered as a document (a review found the API's answers without these, unlike the pages).
  api.addHook('onSend', async (_request, reply) => {
    reply.headers(API_HEADERS);
  });

  const secure = (request: FastifyRequest) => deps.config.consoleCookieSecure === 'always' || (deps.config.consoleCookieSecure === 'auto' && request.protocol === 'https');
  /** The session cookie of this request's kind (decision 0062): its name, path and flags. */
  const cookieOf = (request: FastifyRequest) => {
    const isSecure = secure(request);
    const { name, path } = sessionCookie(isSecure);
    return { name, options: { path, httpOnly: true, sameSite: 'strict' as const, secure: isSecure } };
  };

  // ---- no session needed ----
  // Login CSRF: the body must be JSON (the app refuses other content types), which a cross-site form cannot send.
  api.post('/login', { schema: { ...hidden, body: LoginBody }, config: { auth: 'none' } }, async (request, reply) => {
    const { login, password } = request.body as { login: string; password: string };
    const keys = [`login:${login.trim().toLowerCase()}`, `ip:${request.ip}`];
    // the attempt counted before its password is checked (./throttle.ts): of attempts sent at once, at most the limit go on
    const { wait, attempt } = await throttle.reserve(keys);
    if (!attempt) return reply.code(429).header('retry-after', String(Math.ceil(wait / 1000))).send({ error: `too many failed logins; try again in ${Math.ceil(wait / 60_000)} minute(s)` });
    let operator: Awaited<ReturnType<typeof verifyLogin>>;
    try {
      operator = await verifyLogin(db, login, password, new Date());
    } catch (err) {
      await throttle.withdrawn(attempt).catch(() => undefined);
      throw err;
    }
    if (!operator) {
      await throttle.failed(attempt);
      request.log.warn('console login failed');
      return reply.code(401).send({ error: LOGIN_FAILED });
    }
    // The session and its audit row in one transaction, only while the password is still the one just checked
    const verified = operator;
    const s = await db.transaction().execute(async (trx) => {
      const made = await createSessionIfPasswordIs(trx, verified.operatorId, verified.passwordHash, sessionMs);
      if (made) await audit(trx, verified, 'login', `operator:${verified.login}`, null, null);
      return made;
    });
    if (!s) {
      await throttle.failed(attempt);
      request.log.warn('console login failed: the password changed meanwhile');
      return reply.code(401).send({ error: LOGIN_FAILED });
    }
    await throttle.succeeded(`login:${operator.login}`, attempt);
    const cookie = cookieOf(request);
    reply.setCookie(cookie.name, s.token, { ...cookie.options, expires: s.expiresAt });
    return { operator: publicOperator(operator), csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString(), sandbox: deps.config.sandbox, now: deps.clock.now().toISOString() };
  });

  // ---- everything else: a live session; a state-changing call also its CSRF token; the route's role ----
  void api.register(async (authed) => {
    authed.addHook('onRequest', async (request, reply) => {
      const session = await findSession(db, request.cookies[cookieOf(request).name]);
      if (!session) return reply.code(401).send({ error: 'not logged in (or the session expired): log in again' });
      if (request.method !== 'GET' && request.method !== 'HEAD' && !csrfMatches(session, request.headers['x-csrf-token'])) {
        return reply.code(403).send({ error: 'CSRF token missing or wrong: reload the console and try again' });
      }
      const needed = request.routeOptions.config?.consoleRole ?? 'viewer';
      if (!roleAllows(session.operator.role, needed)) {
        return reply.code(403).send({ error: `your role (${session.operator.role}) may not do this: it needs ${needed}` });
      }
      request.consoleSession = session;
    });
    const operatorOf = (request: FastifyRequest): Operator => request.consoleSession!.operator;
    const agent = { consoleRole: 'agent' as const };

    authed.get('/session', { schema: hidden }, async (request) => {
      const s = request.consoleSession!;
      return { operator: publicOperator(s.operator), csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString(), sandbox: deps.config.sandbox, now: deps.clock.now().toISOString() };
    });
    authed.post('/logout', { schema: hidden }, async (request, reply) => {
      const s = request.consoleSession!;
      await db.transaction().execute(async (trx) => {
        await endSession(trx, s.tokenHash);
        await audit(trx, s.operator, 'logout', `operator:${s.operator.login}`, null, null);
      });
      const cookie = cookieOf(request);
      reply.clearCookie(cookie.name, cookie.options);
      return reply.code(204).send();
    });
    // Your own password (any role): the current one checked and counted as a login attempt (a stolen session
    // cookie must not become a password oracle); every session of the account ends and this one is replaced.
    authed.post('/me/password', { schema: { ...hidden, body: OwnPasswordBody } }, async (request, reply) => {
      const s = request.consoleSession!;
      const { currentPassword, newPassword } = request.body as { currentPassword: string; newPassword: string };
      const { wait, attempt } = await throttle.reserve([`login:${s.operator.login}`, `ip:${request.ip}`]);
      if (!attempt) return reply.code(429).header('retry-after', String(Math.ceil(wait / 1000))).send({ error: `too many wrong passwords; try again in ${Math.ceil(wait / 60_000)} minute(s)` });
      let changed: Awaited<ReturnType<typeof changeOwnPassword>>;
      try {
        changed = await changeOwnPassword(db, s.operator, currentPassword, newPassword, new Date());
      } catch (err) {
        if (err instanceof WrongPassword) {
          await throttle.failed(attempt);
          return reply.code(403).send({ error: err.message });
        }
        await throttle.withdrawn(attempt).catch(() => undefined);
        if (err instanceof OperatorError) return reply.code(400).send({ error: err.message });
        throw err;
      }
      await throttle.succeeded(`login:${s.operator.login}`, attempt);
      // none when an admin reset the password right after this change: the reset wins
      const fresh = await createSessionIfPasswordIs(db, s.operator.operatorId, changed.passwordHash, sessionMs);
      if (!fresh) return reply.code(401).send({ error: 'not logged in (or the session expired): log in again' });
      const cookie = cookieOf(request);
      reply.setCookie(cookie.name, fresh.token, { ...cookie.options, expires: fresh.expiresAt });
      return { operator: publicOperator(s.operator), csrfToken: fresh.csrfToken, expiresAt: fresh.expiresAt.toISOString(), sandbox: deps.config.sandbox, now: deps.clock.now().toISOString() };
    });
    authed.get('/meta', { schema: hidden }, async () => ({
      cancelReasons: CANCEL_REASONS,
      refundStatuses: REFUND_ORDER_STATUS,
      facets: await queueFacets(db),
    }));

    authed.get('/queue', { schema: { ...hidden, querystring: QueueQuery } }, async (request) => {
      const q = request.query as Record<string, string | undefined>;
      const filter: QueueFilter = {
        ...(q.kind ? { kind: q.kind as 'refund' | 'void' } : {}),
        ...(q.status !== undefined ? { status: Number(q.status) } : {}),
        ...(q.airline ? { airline: q.airline } : {}),
        ...(q.client ? { client: q.client } : {}),
        ...(q.payment ? { payment: q.payment } : {}),
        ...(q.reason ? { reason: q.reason } : {}),
        ...(q.minAgeHours !== undefined ? { minAgeHours: Number(q.minAgeHours) } : {}),
        ...(q.late === '1' ? { late: true } : {}),
        ...(q.sort ? { sort: q.sort as QueueFilter['sort'] } : {}),
        ...(q.dir ? { dir: q.dir as 'asc' | 'desc' } : {}),
        ...(q.limit !== undefined ? { limit: Number(q.limit) } : {}),
        ...(q.after !== undefined ? { after: q.after } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
      };
      return refundQueue(db, filter, { now: deps.clock.now(), submitTargetMinutes: deps.config.consoleSubmitTargetMinutes });
    });

    authed.get('/refunds/:code', { schema: { ...hidden, params: CodeParams } }, async (request, reply) => {
      const d = await refundDetail(db, (request.params as { code: string }).code, { airlines: deps.refunds.airlines, rates: deps.refunds.rates, scheduler: deps.refunds.scheduler, clock: deps.refunds.clock });
      if (!d) return reply.code(404).send({ error: 'no such refund' });
      return { refund: d };
    });
    authed.get('/voids/:code', { schema: { ...hidden, params: CodeParams } }, async (request, reply) => {
      const d = await voidDetail(db, (request.params as { code: string }).code);
      if (!d) return reply.code(404).send({ error: 'no such void' });
      return { void: d };
    });

    // Pending cases oldest first (the next to decide), decided ones newest first; paged by the last case shown,
    // its (created_at, case_id) read in the database, so a page costs the same however deep.
    authed.get('/cases', { schema: { ...hidden, querystring: CasesQuery } }, async (request) => {
      const q = request.query as { status?: 'pending' | 'approved' | 'rejected'; after?: string };
      const status = q.status ?? 'pending';
      const dir = status === 'pending' ? 'asc' : 'desc';
      let query = db
        .selectFrom('console_cases as c')
        .innerJoin('orders as o', 'o.order_no', 'c.order_no')
        .select(['c.case_id', 'c.client_id', 'c.order_no', 'o.carrier', 'o.airline_pnr', 'c.status', 'c.refund_code', 'c.cancel_reason', 'c.decided_by', 'c.decided_at', 'c.created_at'])
        .where('c.status', '=', status)
        .orderBy('c.created_at', dir)
        .orderBy('c.case_id', dir)
        .limit(LIST_PAGE + 1);
      if (q.after !== undefined) {
        const from = await db.selectFrom('console_cases').select('case_id').where('case_id', '=', q.after).executeTakeFirst();
        if (!from) throw new ActionRefused(400, `after: no case ${q.after} (give the next of the page before)`);
        // its created_at read in the statement: through a JS Date it would lose its microseconds (review)
        const cmp = dir === 'asc' ? sql`>` : sql`<`;
        query = query.where(sql<boolean>`(c.created_at, c.case_id) ${cmp} (select k.created_at, k.case_id from console_cases k where k.case_id = ${from.case_id})`);
      }
      const rows = await query.execute();
      const page = rows.slice(0, LIST_PAGE);
      return {
        cases: page.map((c) => ({
          caseId: c.case_id,
          clientId: c.client_id,
          orderNo: c.order_no,
          carrier: c.carrier,
          airlinePnr: c.airline_pnr,
          status: c.status,
          refundCode: c.refund_code,
          cancelReason: c.cancel_reason,
          decidedBy: c.decided_by,
          decidedAt: c.decided_at ? new Date(c.decided_at).toISOString() : null,
          createdAt: new Date(c.created_at).toISOString(),
        })),
        next: rows.length > LIST_PAGE ? page[page.length - 1]!.case_id : null,
      };
    });
    const actionDeps = { db, refunds: deps.refunds };
    authed.get('/cases/:id', { schema: { ...hidden, params: IdParams } }, async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const c = await db.selectFrom('console_cases').selectAll().where('case_id', '=', id).executeTakeFirst();
      if (!c) return reply.code(404).send({ error: 'no such case' });
      const found = await loadContextForCaller(db, c.client_id, { orderNo: c.order_no });
      // A pending case's request priced as its approval would price it, nothing written (an estimate: the approval prices again).
      let estimate: CaseEstimate | null = null;
      if (c.status === 'pending') {
        try {
          estimate = await estimateCase(actionDeps, c);
        } catch (err) {
          request.log.error({ err }, 'console case estimate failed');
          estimate = { unavailable: 'the refund cannot be priced now (an internal error); the approval prices it again' };
        }
      }
      return {
        case: {
          caseId: c.case_id,
          clientId: c.client_id,
          caseStatus: c.status,
          request: c.request,
          refundCode: c.refund_code,
          cancelReason: c.cancel_reason,
          decidedBy: c.decided_by,
          decidedAt: c.decided_at ? new Date(c.decided_at).toISOString() : null,
          createdAt: new Date(c.created_at).toISOString(),
          order: found.kind === 'order' ? orderView(found.ctx) : null,
          estimate,
          audit: await auditOf(db, { target: `case:${id}`, limit: 50 }),
        },
      };
    });

    authed.post('/cases/:id/approve', { schema: { ...hidden, params: IdParams }, config: agent }, async (request) =>
      approveCase(actionDeps, operatorOf(request), (request.params as { id: string }).id),
    );
    authed.post('/cases/:id/reject', { schema: { ...hidden, params: IdParams, body: RejectBody }, config: agent }, async (request) => {
      await rejectCase(actionDeps, operatorOf(request), (request.params as { id: string }).id, (request.body as { cancelReason: string }).cancelReason);
      return { ok: true };
    });
    authed.post('/refunds/:code/withdraw', { schema: { ...hidden, params: CodeParams }, config: agent }, async (request) => {
      const { atAirline } = await withdrawRefund(actionDeps, operatorOf(request), (request.params as { code: string }).code);
      return { ok: true, atAirline };
    });
    authed.post('/refunds/:code/retry', { schema: { ...hidden, params: CodeParams }, config: agent }, async (request) =>
      retryRefund(actionDeps, operatorOf(request), (request.params as { code: string }).code),
    );
    authed.post('/webhooks/:id/redeliver', { schema: { ...hidden, params: EventParams }, config: agent }, async (request) => {
      await redeliverWebhook(actionDeps, operatorOf(request), Number((request.params as { id: string }).id));
      return { ok: true };
    });
    // A window of 1 to 90 days (the page offers 7, 30, 90); another is refused, not quietly changed.
    authed.get('/charts', { schema: { ...hidden, querystring: Type.Object({ days: Type.Optional(Type.String({ pattern: '^([1-9]|[1-8][0-9]|90)$' })) }, { additionalProperties: false }) } }, async (request) => {
      return charts(db, deps.clock.now(), Number((request.query as { days?: string }).days ?? 30));
    });

    // ---- the seat map viewer ----
    authed.get('/seatmaps/sources', { schema: hidden }, async () => seatSources(db, deps.world, deps.clock.now()));
    authed.get('/seatmaps', { schema: { ...hidden, querystring: SeatMapQuery } }, async (request) => {
      const q = request.query as { session?: string; segment?: string; flight?: string; cabinClass?: string };
      const cabinClass = q.cabinClass === undefined ? null : Number(q.cabinClass);
      if (q.session && q.segment !== undefined && !q.flight) return sessionSeatMap(deps.booking, q.session, Number(q.segment), cabinClass);
      if (q.flight && !q.session) {
        if (!deps.world) throw new ActionRefused(404, 'flights are listed from the sandbox world only; pick a session');
        return flightSeatMap(deps.booking, deps.world, q.flight, cabinClass ?? 1);
      }
      throw new ActionRefused(409, 'give session and segment, or flight');
    });

    // ---- clients (admin) ----
    const admin = { consoleRole: 'admin' as const };
    const clientDeps = { db, now: () => deps.clock.now(), invalidate: deps.invalidateClient };
    authed.get('/clients', { schema: hidden, config: admin }, async () => ({ clients: await listClients(db, deps.clock.now()) }));
    authed.get('/clients/usage', { schema: hidden, config: admin }, async (request) => {
      if (!deps.usage) throw new ActionRefused(404, 'live usage is not available in this process');
      return { clients: await clientsUsage(db, deps.usage, request.log) };
    });
    authed.post('/clients', { schema: { ...hidden, body: NewClientBody }, config: admin }, async (request) => {
      const b = request.body as { clientId: string; name: string };
      return addClient(clientDeps, operatorOf(request), b.clientId, b.name);
    });
    authed.post('/clients/:id/rotate', { schema: { ...hidden, params: ClientParams, body: RotateBody }, config: admin }, async (request) =>
      rotateClient(clientDeps, operatorOf(request), (request.params as { id: string }).id, (request.body as { graceHours: number }).graceHours),
    );
    authed.post('/clients/:id/settings', { schema: { ...hidden, params: ClientParams, body: SettingsBody }, config: admin }, async (request) => ({
      settings: await editClientSettings(clientDeps, operatorOf(request), (request.params as { id: string }).id, request.body as EditableSettings),
    }));
    authed.post('/clients/:id/webhook', { schema: { ...hidden, params: ClientParams, body: WebhookBody }, config: admin }, async (request) => {
      if (!deps.webhooks) throw new ActionRefused(409, 'webhooks are not available in this process');
      const b = request.body as { url: string | null; rotateSecret?: boolean };
      return setClientWebhook(deps.webhooks, operatorOf(request), (request.params as { id: string }).id, b.url, b.rotateSecret ?? false);
    });
    for (const [verb, status] of [['disable', 'disabled'], ['enable', 'active']] as const) {
      authed.post(`/clients/:id/${verb}`, { schema: { ...hidden, params: ClientParams }, config: admin }, async (request) => {
        await setClientState(clientDeps, operatorOf(request), (request.params as { id: string }).id, status);
        return { ok: true };
      });
    }
    // ---- operators (admin): accounts of this console; a password made here is answered once ----
    const operatorDeps = { db, now: () => deps.clock.now() };
    authed.get('/operators', { schema: hidden, config: admin }, async (request) => ({ operators: await operatorsView(operatorDeps, operatorOf(request)) }));
    authed.post('/operators', { schema: { ...hidden, body: NewOperatorBody }, config: admin }, async (request) => {
      const b = request.body as { login: string; role: OperatorRole };
      return addOperator(operatorDeps, operatorOf(request), b.login, b.role);
    });
    authed.post('/operators/:login/role', { schema: { ...hidden, params: LoginParams, body: OperatorRoleBody }, config: admin }, async (request) =>
      changeOperatorFromConsole(operatorDeps, operatorOf(request), (request.params as { login: string }).login, { kind: 'role', role: (request.body as { role: OperatorRole }).role }),
    );
    for (const kind of ['disable', 'enable'] as const) {
      authed.post(`/operators/:login/${kind}`, { schema: { ...hidden, params: LoginParams }, config: admin }, async (request) =>
        changeOperatorFromConsole(operatorDeps, operatorOf(request), (request.params as { login: string }).login, { kind }),
      );
    }
    authed.post('/operators/:login/password', { schema: { ...hidden, params: LoginParams }, config: admin }, async (request) =>
      resetOperatorPassword(operatorDeps, operatorOf(request), (request.params as { login: string }).login),
    );

    // ---- sandbox panel (sandbox mode only): the shared sandbox clock ----
    const shared = deps.config.sandbox ? deps.sandboxClock : null;
    if (shared) {
      authed.get('/sandbox/clock', { schema: hidden }, async () => {
        await shared.load(); // a move made through another process shows at once (a move sent from it carries fromOffsetMs)
        return clockState(shared.clock);
      });
      authed.post('/sandbox/clock', { schema: { ...hidden, body: MoveClockBody }, config: admin }, async (request) => {
        const body = request.body as { advanceMinutes: number; fromOffsetMs?: number };
        const before = clockState(shared.clock);
        const moved = await shared.move(body);
        await audit(db, operatorOf(request), 'sandbox.clock', 'sandbox:clock', { now: before.now }, { now: moved.now, advanceMinutes: body.advanceMinutes });
        request.log.info({ now: moved.now }, 'sandbox clock moved from the console');
        return moved;
      });
    }
    // ---- sandbox panel: the world (sandbox mode only) ----
    const world = deps.config.sandbox ? deps.world : null;
    if (world) {
      const reloadDeps = { db, worldPath: deps.config.worldPath, now: () => deps.clock.now(), world, webhooks: deps.webhooks ?? null, invalidateClient: deps.invalidateClient };
      authed.get('/sandbox/world', { schema: hidden }, async () => worldSummary(world));
      authed.post('/sandbox/world/reload', { schema: hidden, config: admin }, async (request) => {
        const done = await reloadWorld(reloadDeps, operatorOf(request));
        request.log.info({ world: done.name, flights: done.flights, ordersCreated: done.ordersCreated }, 'sandbox world reloaded from the console');
        return done;
      });
    }
    authed.get('/audit', { schema: { ...hidden, querystring: AuditQuery }, config: { consoleRole: 'admin' } }, async (request) => {
      const q = request.query as { target?: string; before?: string };
      return auditPage(db, { ...(q.target ? { target: q.target } : {}), ...(q.before !== undefined ? { before: Number(q.before) } : {}), limit: LIST_PAGE });
    });
  });
}

function publicOperator(o: Operator) {
  return { login: o.login, role: o.role };
}
