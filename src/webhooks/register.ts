// Registering a client's webhook URL: POST /updateWebhookURL.do, `postbook clients webhook`, and the
// world file's clients (docs/webhooks.md "Registering"). The signing secret is made with the first URL and
// shown then only; a rotation makes a new one. Events are written only for status changes after the
// registration: a client registering later does not receive the past.
import { inTransaction } from '../store/transaction.js';
import type { Kysely, Transaction } from 'kysely';
import { ApiError } from '../errors.js';
import type { Database } from '../store/schema.js';
import { newWebhookSecret, type WebhookKeyring } from './secret.js';
import { webhookUrlProblem } from './url.js';

/** updateWebhookURL.do statuses (docs/webhooks.md). */
export const WEBHOOK_STATUS = {
  OK: 0,
  /** Request shape, or a URL the rules refuse (msg names the rule). */
  INVALID: 100,
  /** Outside sandbox mode without WEBHOOK_SECRET_KEY: webhooks are off. */
  NOT_ENABLED: 101,
} as const;

export interface WebhookRegistry {
  db: Kysely<Database>;
  /** null: webhooks are off (production without WEBHOOK_SECRET_KEY). */
  keyring: WebhookKeyring | null;
  sandbox: boolean;
  now(): Date;
}

export interface Registered {
  url: string | null;
  /** The new signing secret: given only when one was made now (first URL, or a rotation). */
  secret: string | null;
}

export class WebhookRegistrationError extends Error {}

/**
 * Sets (or with null, removes) a client's URL; makes the signing secret when the client has none, or when
 * `rotate`; `secret` sets a given one (world files). Returns null for an unknown client.
 */
export async function setWebhook(
  reg: WebhookRegistry,
  clientId: string,
  url: string | null,
  opts: {
    rotate?: boolean;
    secret?: string;
    /** leave the URL as it is (a rotation alone) */
    keepUrl?: boolean;
    /** Runs in the change's transaction, with the row as it was (the console's audit row: both commit or neither). */
    within?: (trx: Transaction<Database>, before: { webhookUrl: string | null; hasSecret: boolean }, made: Registered) => Promise<void>;
  } = {},
): Promise<Registered | null> {
  if (!reg.keyring) throw new WebhookRegistrationError('webhooks are off: set WEBHOOK_SECRET_KEY (32 characters or more) outside sandbox mode');
  if (url !== null) {
    const problem = webhookUrlProblem(url, { sandbox: reg.sandbox });
    if (problem) throw new WebhookRegistrationError(problem);
  }
  const keyring = reg.keyring;
  // in the registry's transaction when it holds one (a world reload)
  return inTransaction(reg.db, async (trx) => {
    const client = await trx.selectFrom('clients').select(['client_id', 'webhook_url', 'webhook_secret']).where('client_id', '=', clientId).forUpdate().executeTakeFirst();
    if (!client) return null;
    let secret: string | null = null;
    if (opts.secret !== undefined) secret = opts.secret;
    else if (opts.rotate || (url !== null && client.webhook_secret === null)) secret = newWebhookSecret();
    await trx
      .updateTable('clients')
      .set({ updated_at: reg.now(), ...(opts.keepUrl ? {} : { webhook_url: url }), ...(secret !== null ? { webhook_secret: keyring.seal(secret) } : {}) })
      .where('client_id', '=', clientId)
      .execute();
    const made = { url: opts.keepUrl ? null : url, secret: opts.secret !== undefined ? null : secret };
    await opts.within?.(trx, { webhookUrl: client.webhook_url, hasSecret: client.webhook_secret !== null }, made);
    return made;
  });
}

/**
 * Why a world's webhooks cannot be written under this configuration — webhooks off, a URL refused — or null: the
 * server's start, `postbook world check` and `world load` ask before they write anything (a review: the server
 * seeded the clients and orders and then stopped with a stack trace).
 */
export function worldWebhooksProblem(clients: ReadonlyArray<{ id: string; webhook?: { url: string } | undefined }>, opts: { enabled: boolean; sandbox: boolean }): string | null {
  const withWebhook = clients.filter((c) => c.webhook);
  if (withWebhook.length === 0) return null;
  if (!opts.enabled) return 'the world gives clients webhooks, but webhooks are off: set WEBHOOK_SECRET_KEY (32 characters or more)';
  for (const c of withWebhook) {
    const problem = webhookUrlProblem(c.webhook!.url, { sandbox: opts.sandbox });
    if (problem) return `world client ${c.id}: webhook: ${problem}`;
  }
  return null;
}

/** The world's webhook settings: each listed client's URL and secret (sandbox only: written in the world file). */
export async function seedWebhooks(reg: WebhookRegistry, clients: Array<{ id: string; webhook?: { url: string; secret: string } | undefined }>): Promise<void> {
  for (const c of clients) {
    if (!c.webhook) continue;
    try {
      await setWebhook(reg, c.id, c.webhook.url, { secret: c.webhook.secret });
    } catch (err) {
      if (err instanceof WebhookRegistrationError) throw new WebhookRegistrationError(`world client ${c.id}: webhook: ${err.message}`);
      throw err;
    }
  }
}

/**
 * POST /updateWebhookURL.do: `{url, rotateSecret?}` → `{status, msg, webhookSecret}` (the secret only when made now:
 * the first URL, or `rotateSecret` — a review: a client whose first answer was lost could never learn its secret).
 */
export async function updateWebhookUrl(reg: WebhookRegistry, clientId: string, body: { url: string; rotateSecret?: boolean | null | undefined }) {
  if (!reg.keyring) throw new ApiError(WEBHOOK_STATUS.NOT_ENABLED, 'webhooks are not enabled on this service');
  let done: Registered | null;
  try {
    done = await setWebhook(reg, clientId, body.url.trim(), { rotate: body.rotateSecret === true });
  } catch (err) {
    if (err instanceof WebhookRegistrationError) throw new ApiError(WEBHOOK_STATUS.INVALID, `invalid request: ${err.message}`);
    throw err;
  }
  if (!done) throw new ApiError(WEBHOOK_STATUS.INVALID, 'invalid request: unknown client');
  return { status: WEBHOOK_STATUS.OK, msg: 'success', webhookSecret: done.secret };
}
