// Optional Idempotency-Key: the same key with the same body replays the first answer; with another body it
// is refused. Only final answers are kept: a system error or an airline time-out may be retried for real.
// Concurrent twins wait for the first answer instead of running the work twice. `idempotent(…)` wraps a
// route's command with it, so the route table holds no replay policy.
// A key lives IDEMPOTENCY_TTL_HOURS (default 24 h) of service time from its first request (decision 0028): past
// that it is new again, here at once and in the store when the cleanup job (src/jobs/idempotency-expiry.ts)
// deletes the row. Times are the service clock's, so moving the sandbox clock expires keys too.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { AuthenticatedClient } from '../clients/auth.js';
import type { Database } from '../store/schema.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { canonicalJson } from '../canonical-json.js';
import { callerOf } from './auth.js';
import { sendError } from './errors.js';

export interface StoredAnswer {
  httpStatus: number;
  body: unknown;
}

/**
 * What a command under a key may keep on the key while it runs, and find again if it died before answering: a
 * retry that takes the abandoned key over is handed what the dead request noted (order.do notes its order number
 * before it books, so a retry answers the order the dead request recorded instead of booking again).
 */
export interface KeyProgress {
  /** What the request that held this key before noted (it died before answering); null for a first request. */
  previous: unknown;
  /** Keeps `note` on the key while this request runs (no key: nothing is kept). */
  note(note: unknown): Promise<void>;
  /**
   * When this request took the key over from an identical one that died or failed without answering: no later than
   * that one took it (its work, done or not, is from then on). Null for a first request.
   */
  resumedFrom: Date | null;
}

const NO_KEY: KeyProgress = { previous: null, note: async () => undefined, resumedFrom: null };

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** http_status of a row whose first request is still running. */
const PENDING = 0;
/**
 * http_status of a row whose request failed without answering (HTTP 500) after it noted its progress or may have
 * acted (`mayHaveActed`): a retry of the same request takes it over at once, with its note and its claim time. It
 * kept its created_at (it was backdated past ABANDONED_MS before, and a retry then looked for the refund the failed
 * request made from five minutes before it began: it could answer another request's; a review).
 */
const ABANDONED = -1;
/** A pending row older than this belongs to a request that died (crash): the next one takes over. */
const ABANDONED_MS = 5 * 60_000;

/** A request's own pending row of its key: the one with the `created_at` it claimed the key with (not one a retry took over). */
function ownRow(eb: ExpressionBuilder<Database, 'idempotency_keys'>, w: { clientId: string; endpoint: string; key: string }, claimed: Date) {
  return eb.and([eb('client_id', '=', w.clientId), eb('endpoint', '=', w.endpoint), eb('idem_key', '=', w.key), eb('http_status', '=', PENDING), eb('created_at', '=', claimed)]);
}

export class Idempotency {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** How long a key replays its first answer (IDEMPOTENCY_TTL_HOURS). */
    private readonly ttlMs: number,
    private readonly waitMs = 10_000,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('Idempotency: ttlMs must be a positive number of milliseconds');
  }

  /** Rows created before this instant are expired: their key is new again. */
  private expiredBefore(now: Date): Date {
    return new Date(now.getTime() - this.ttlMs);
  }

  /**
   * Runs `work` once per (client, endpoint, key): the first request claims the key with a pending row,
   * concurrent ones wait for its answer and replay it. `isFinal` says whether an answer may be replayed
   * (otherwise the key is released for a real retry). `busy` answers a request whose twin is still
   * running after the wait (or null: run it anyway — for endpoints idempotent by themselves).
   */
  async run(
    args: { clientId: string; endpoint: string; key: string | undefined; body: unknown; validationStatus: number; busy: StoredAnswer | null; mayHaveActed?: boolean },
    work: (progress: KeyProgress) => Promise<StoredAnswer>,
    isFinal: (answer: StoredAnswer) => boolean,
  ): Promise<StoredAnswer> {
    const { clientId, endpoint, key } = args;
    if (key === undefined) return work(NO_KEY);
    if (!KEY_PATTERN.test(key)) throw new ApiError(args.validationStatus, 'invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters');
    const requestHash = createHash('sha256').update(canonicalJson(args.body)).digest('hex');
    const where = { clientId, endpoint, key, requestHash, validationStatus: args.validationStatus };

    const deadline = Date.now() + this.waitMs;
    /** When this request took the key: its pending row is the one with this created_at (another may take over an abandoned one). */
    let taken: { at: Date; previous: unknown; resumedFrom: Date | null } | null;
    for (;;) {
      if ((taken = await this.claim(where))) break;
      const row = await this.find(where);
      if (row && row.httpStatus > 0) return row;
      if (Date.now() > deadline) {
        if (args.busy) return args.busy;
        return work(NO_KEY);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const claimed = taken.at;
    // A note taken over from an abandoned request counts as this request's own: should it fail too, the row is
    // abandoned again with the note, not released (a review: released, the next retry booked a second order).
    let noted = taken.previous !== null && taken.previous !== undefined;
    const progress: KeyProgress = {
      previous: taken.previous,
      resumedFrom: taken.resumedFrom,
      note: async (note) => {
        await this.writeOwn(where, claimed, { response: JSON.stringify(note) });
        noted = true;
      },
    };
    let answer: StoredAnswer;
    try {
      answer = await work(progress);
    } catch (err) {
      // A request that noted its progress and then failed unexpectedly (HTTP 500) may have done its work (order.do:
      // the order written, its answer's read failed): its row is left as an abandoned one, for a retry of the same
      // request to take over at once with the note, as after a crash (found by a review: released, the note went
      // with it and the retry booked a second order). Without a note the key is free again — but for an endpoint
      // whose work may have been done before the failure (refund.do, void.do: `mayHaveActed`), whose retry then
      // looks for what it made (`resumedFrom`; a review: its retry was refused 813 and that was replayed for good).
      if (noted || args.mayHaveActed) await this.abandon(where, claimed);
      else await this.release(where, claimed);
      throw err;
    }
    if (!isFinal(answer)) {
      await this.release(where, claimed);
      return answer;
    }
    // Only into this request's own pending row: one that ran past ABANDONED_MS may have been taken over by a retry,
    // whose answer is then the key's (this one is still answered to its caller).
    await this.writeOwn(where, claimed, { http_status: answer.httpStatus, response: JSON.stringify(answer.body) });
    return answer;
  }

  /** Writes into this request's own pending row only (the one with the `created_at` it claimed the key with). */
  private async writeOwn(w: Where, claimed: Date, set: { http_status?: number; response?: string }): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set(set)
      .where((eb) => ownRow(eb, w, claimed))
      .execute();
  }

  /**
   * Takes the key: a new pending row, an abandoned pending one, or an expired one (past the TTL, whether or
   * not the cleanup job has deleted it yet); false when another request holds it. The take-over is one
   * conditional UPDATE, so of two requests racing for an expired key only one wins.
   */
  private async claim(w: Where): Promise<{ at: Date; previous: unknown; resumedFrom: Date | null } | null> {
    const now = this.clock.now();
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({ client_id: w.clientId, endpoint: w.endpoint, idem_key: w.key, request_hash: w.requestHash, http_status: PENDING, response: 'null', created_at: now })
      .onConflict((oc) => oc.columns(['client_id', 'endpoint', 'idem_key']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { at: now, previous: null, resumedFrom: null };
    // The row as it is, then taken over only if it is still that row (its created_at): what an abandoned request
    // noted on it is handed to the one taking it over.
    const held = await this.db
      .selectFrom('idempotency_keys')
      .select(['http_status', 'created_at'])
      .where('client_id', '=', w.clientId)
      .where('endpoint', '=', w.endpoint)
      .where('idem_key', '=', w.key)
      .executeTakeFirst();
    if (!held) return null;
    // An abandoned request's row (pending or abandoned, not expired) keeps its note and its first claim time through
    // the take-over, in the statement itself; an expired key is new again: nothing of its earlier life is handed on
    // (a review: the take-over wiped both, so a retry that failed in turn left the next one nothing — a second order,
    // or refund.do's 813 kept for 24 h where it had made the refund).
    const earlierLife = sql<boolean>`http_status in (${sql.lit(PENDING)}, ${sql.lit(ABANDONED)}) and created_at > ${this.expiredBefore(now)}`;
    const takenOver = await this.db
      .updateTable('idempotency_keys')
      .set({
        request_hash: w.requestHash,
        http_status: PENDING,
        response: sql`case when ${earlierLife} then response else 'null'::jsonb end`,
        resumed_from: sql`case when ${earlierLife} then coalesce(resumed_from, created_at) end`,
        created_at: now,
      } as never)
      .where('client_id', '=', w.clientId)
      .where('endpoint', '=', w.endpoint)
      .where('idem_key', '=', w.key)
      .where((eb) =>
        eb.or([
          // an abandoned request's key, by the same request only (another body under it is refused, as while it runs)
          eb.and([eb('http_status', '=', PENDING), eb('created_at', '<', new Date(now.getTime() - ABANDONED_MS)), eb('request_hash', '=', w.requestHash)]),
          eb.and([eb('http_status', '=', ABANDONED), eb('request_hash', '=', w.requestHash)]),
          eb('created_at', '<=', this.expiredBefore(now)),
        ]),
      )
      .where('created_at', '=', held.created_at)
      .returning(['response', 'resumed_from'])
      .executeTakeFirst();
    if (!takenOver) return null;
    return { at: now, previous: takenOver.resumed_from === null ? null : takenOver.response, resumedFrom: takenOver.resumed_from };
  }

  /** This request's own pending row, with its note, made one a retry of the same request takes over at once. */
  private async abandon(w: Where, claimed: Date): Promise<void> {
    await this.writeOwn(w, claimed, { http_status: ABANDONED });
  }

  /** This request's own pending row goes (the key free for a real retry); one taken over by another stays. */
  private async release(w: Where, claimed: Date): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where((eb) => ownRow(eb, w, claimed))
      .execute();
  }

  private async find(w: Where): Promise<StoredAnswer | null> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'http_status', 'response', 'created_at'])
      .where('client_id', '=', w.clientId)
      .where('endpoint', '=', w.endpoint)
      .where('idem_key', '=', w.key)
      .executeTakeFirst();
    // Expired: never replayed nor compared; the next claim takes the key over.
    if (!row || row.created_at <= this.expiredBefore(this.clock.now())) return null;
    if (row.request_hash !== w.requestHash) {
      throw new ApiError(w.validationStatus, 'invalid request: this Idempotency-Key was already used with a different request body');
    }
    return { httpStatus: row.http_status, body: row.response };
  }
}

interface Where {
  clientId: string;
  endpoint: string;
  key: string;
  requestHash: string;
  validationStatus: number;
}

/** How an endpoint replays: its name in the key store, its validation status, what a busy twin answers. */
export interface IdempotentEndpoint {
  endpoint: string;
  validationStatus: number;
  /** The answer to a request whose twin is still running after the wait; null: run it anyway. */
  busy: StoredAnswer | null;
  /** Whether an answer may be replayed (otherwise the key is released for a real retry). */
  isFinal(answer: StoredAnswer): boolean;
  /** A request that failed (HTTP 500) may have done its work: its key is left for the retry to resume (KeyProgress.resumedFrom). */
  mayHaveActed?: boolean;
  /** What the key's request hash is taken of, when not the whole body (pay.do: a card's number and CVV are never kept, not even hashed). */
  fingerprint?(body: unknown): unknown;
}

/** Business failures become stored answers so Idempotency-Key can replay them. */
async function answerOf(work: () => Promise<object>): Promise<StoredAnswer> {
  try {
    return { httpStatus: 200, body: await work() };
  } catch (err) {
    if (err instanceof ApiError && err.httpStatus === 200) return { httpStatus: 200, body: { status: err.status, msg: err.msg } };
    throw err;
  }
}

/** A failure body with more than status and msg, as one text whatever its keys' order. */
function failureJson(body: unknown): string {
  const { status, msg, ...rest } = body as { status: number; msg: string } & Record<string, unknown>;
  const more = canonicalJson(rest).slice(1, -1);
  return `{"status":${JSON.stringify(status)},"msg":${JSON.stringify(msg)}${more === '' ? '' : `,${more}`}}`;
}

function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: StoredAnswer) {
  const body = answer.body as { status: number; msg: string };
  if (body.status !== 0) {
    // A failure that carries more than its status and msg (order.do's 308/322: a re-priced session) goes as it is,
    // past the route's success serializer, like any failure body.
    // Written in one order of its own (status, msg, then the rest with sorted keys), the same whether the answer is
    // the first or a replay from the store's jsonb, which gives keys back in an order of its own (a review: the
    // replay of a 308 was not the first answer byte for byte).
    if (Object.keys(body).length > 2) return reply.code(answer.httpStatus).type('application/json; charset=utf-8').serializer(failureJson).send(body);
    return sendError(request, reply, body.status, body.msg, answer.httpStatus);
  }
  return reply.code(answer.httpStatus).send(body);
}

/**
 * A route handler that runs `command` for the authenticated client once per Idempotency-Key (no key: every
 * time) and replays its final answer. The route's schema must declare the optional `idempotency-key` header.
 */
export function idempotent<Body>(keys: Idempotency, endpoint: IdempotentEndpoint, command: (client: AuthenticatedClient, body: Body, progress: KeyProgress) => Promise<object>) {
  // Returns the reply once sent (Fastify's way of saying "answered"), typed `never` so any route's
  // response type accepts it.
  return async (request: FastifyRequest, reply: FastifyReply): Promise<never> => {
    const client = callerOf(request);
    const body = request.body as Body;
    const answer = await keys.run(
      {
        clientId: client.clientId,
        endpoint: endpoint.endpoint,
        key: request.headers['idempotency-key'] as string | undefined,
        body: endpoint.fingerprint ? endpoint.fingerprint(body) : body,
        validationStatus: endpoint.validationStatus,
        busy: endpoint.busy,
        mayHaveActed: endpoint.mayHaveActed === true,
      },
      (progress) => answerOf(() => command(client, body, progress)),
      (a) => endpoint.isFinal(a),
    );
    return sendAnswer(request, reply, answer) as never;
  };
}
