// Optional Idempotency-Key: the same key with the same body replays the first answer; with another body it
// is refused. Only final answers are kept: a system error or an airline time-out may be retried for real.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { ApiError } from './errors.js';

export interface StoredAnswer {
  httpStatus: number;
  body: unknown;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Canonical JSON (sorted keys) so field order does not change the hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class Idempotency {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Runs `work` once per (client, endpoint, key). `isFinal` says whether an answer may be replayed.
   * `validationStatus` is the family's code for a key reused with another body.
   */
  async run(
    args: { clientId: string; endpoint: string; key: string | undefined; body: unknown; validationStatus: number },
    work: () => Promise<StoredAnswer>,
    isFinal: (answer: StoredAnswer) => boolean,
  ): Promise<StoredAnswer> {
    const { clientId, endpoint, key } = args;
    if (key === undefined) return work();
    if (!KEY_PATTERN.test(key)) throw new ApiError(args.validationStatus, 'invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters');
    const requestHash = createHash('sha256').update(canonical(args.body)).digest('hex');
    const replay = await this.find(clientId, endpoint, key, requestHash, args.validationStatus);
    if (replay) return replay;
    const answer = await work();
    if (!isFinal(answer)) return answer;
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({ client_id: clientId, endpoint, idem_key: key, request_hash: requestHash, http_status: answer.httpStatus, response: JSON.stringify(answer.body) })
      .onConflict((oc) => oc.columns(['client_id', 'endpoint', 'idem_key']).doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 0n) {
      // A concurrent request with the same key finished first: its answer is the one to give.
      return (await this.find(clientId, endpoint, key, requestHash, args.validationStatus)) ?? answer;
    }
    return answer;
  }

  private async find(clientId: string, endpoint: string, key: string, requestHash: string, validationStatus: number): Promise<StoredAnswer | null> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'http_status', 'response'])
      .where('client_id', '=', clientId)
      .where('endpoint', '=', endpoint)
      .where('idem_key', '=', key)
      .executeTakeFirst();
    if (!row) return null;
    if (row.request_hash !== requestHash) {
      throw new ApiError(validationStatus, 'invalid request: this Idempotency-Key was already used with a different request body');
    }
    return { httpStatus: row.http_status, body: row.response };
  }
}
