// Client management from the console (admin only): list with settings and webhook URL, create (the secret is
// answered once and never stored in clear or audited), rotate with a grace period for the old secret,
// disable and enable. Each change is audited in its transaction; this process's authenticator forgets the
// client at once (other processes within its 30 s cache).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canonicalJson } from '../canonical-json.js';
import { createClient, MAX_GRACE_HOURS, RotationInGrace, rotateSecret, setClientStatus } from '../clients/clients.js';
import { isUniqueViolation } from '../store/errors.js';
import { MoneyError, parseMoney } from '../money/money.js';
import type { Database } from '../store/schema.js';
import { ActionRefused } from './actions.js';
import { audit } from './audit.js';
import type { Operator } from './operators.js';
import { setWebhook, WebhookRegistrationError, type WebhookRegistry } from '../webhooks/register.js';

export interface ClientView {
  clientId: string;
  name: string;
  status: 'active' | 'disabled';
  settings: Record<string, unknown>;
  /** The settings' version as listed (a digest of their content): the settings form sends it back with its edit. */
  settingsVersion: string;
  webhookUrl: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const CLIENT_ID = /^[A-Za-z0-9._-]{3,64}$/;

/**
 * A client's settings' version: a digest of their content (key order aside), so that only a change of the settings
 * themselves — another admin's edit, a world reload — makes an open form's edit stale, not a rotation or a webhook.
 */
export function settingsVersionOf(settings: unknown): string {
  return createHash('sha256').update(canonicalJson(settings ?? {})).digest('base64url').slice(0, 22);
}

export async function listClients(db: Kysely<Database>, now: Date): Promise<ClientView[]> {
  const rows = await db
    .selectFrom('clients')
    .select(['client_id', 'name', 'status', 'settings', 'webhook_url', 'previous_secret_expires_at', 'created_at', 'updated_at'])
    .orderBy('client_id')
    .execute();
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    status: r.status,
    settings: r.settings,
    settingsVersion: settingsVersionOf(r.settings),
    webhookUrl: r.webhook_url,
    // A grace period that ended is no grace period.
    previousSecretExpiresAt: r.previous_secret_expires_at && new Date(r.previous_secret_expires_at) > now ? new Date(r.previous_secret_expires_at).toISOString() : null,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  }));
}

export interface ClientAdminDeps {
  db: Kysely<Database>;
  /** The service clock (grace periods run on it, as the authenticator reads them). */
  now: () => Date;
  /** Forget this process's cached verifications of a client. */
  invalidate: (clientId: string) => void;
}

export async function addClient(deps: ClientAdminDeps, operator: Operator, clientId: string, name: string): Promise<{ secret: string }> {
  if (!CLIENT_ID.test(clientId)) throw new ActionRefused(409, 'client id: 3 to 64 letters, digits, dot, dash or underscore');
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200) throw new ActionRefused(409, 'name: 1 to 200 characters');
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const secret = await createClient(trx, clientId, trimmed, deps.now());
      await audit(trx, operator, 'client.create', `client:${clientId}`, null, { clientId, name: trimmed, status: 'active' });
      return { secret };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ActionRefused(409, `a client ${clientId} exists already`);
    throw err;
  }
}

export async function rotateClient(deps: ClientAdminDeps, operator: Operator, clientId: string, graceHours: number): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  if (!Number.isFinite(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) throw new ActionRefused(409, `grace period: 0 to ${MAX_GRACE_HOURS} hours`);
  const now = deps.now();
  const result = await deps.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('clients').select(['previous_secret_expires_at']).where('client_id', '=', clientId).forUpdate().executeTakeFirst();
    if (!before) throw new ActionRefused(404, `no client ${clientId}`);
    let secret: string | null;
    try {
      secret = await rotateSecret(trx, clientId, now, graceHours * 3_600_000);
    } catch (err) {
      if (err instanceof RotationInGrace) throw new ActionRefused(409, err.message);
      throw err;
    }
    const expires = new Date(now.getTime() + graceHours * 3_600_000).toISOString();
    await audit(
      trx,
      operator,
      'client.rotate',
      `client:${clientId}`,
      { previousSecretExpiresAt: before.previous_secret_expires_at ? new Date(before.previous_secret_expires_at).toISOString() : null },
      { previousSecretExpiresAt: expires, graceHours },
    );
    return { secret: secret!, previousSecretExpiresAt: expires };
  });
  deps.invalidate(clientId);
  return result;
}

export async function setClientState(deps: ClientAdminDeps, operator: Operator, clientId: string, status: 'active' | 'disabled'): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('clients').select(['status']).where('client_id', '=', clientId).forUpdate().executeTakeFirst();
    if (!before) throw new ActionRefused(404, `no client ${clientId}`);
    if (before.status === status) throw new ActionRefused(409, `the client is ${status} already`);
    await setClientStatus(trx, clientId, status, deps.now());
    await audit(trx, operator, status === 'disabled' ? 'client.disable' : 'client.enable', `client:${clientId}`, { status: before.status }, { status });
  });
  deps.invalidate(clientId);
}

/** The settings the console edits; every other key of a client's settings is kept as it is. null removes one. */
export interface EditableSettings {
  refundServiceFee: string | null;
  minMinutesBeforeDeparture: number | null;
  ancillaryPerMinute: number | null;
  verifyPerMinute: number | null;
  pnrPerMinute: number | null;
  /** Absent: unchanged (a caller written before the search pool). */
  searchPerSecond?: number | null;
  lookToBook: { maxRatio: number; minRequests: number } | null;
  /**
   * The settingsVersion of the settings the edit was made on (the console's form always sends it): the edit is
   * refused (409) when the settings changed since. Absent: written over whatever the settings are now (callers
   * written before it; docs/console.md).
   */
  settingsVersion?: string;
}

/** The client's settings with the edited keys replaced (docs/world.md "clients": the same keys a world file sets). */
export function applySettings(current: Record<string, unknown>, edit: EditableSettings): Record<string, unknown> {
  const next: Record<string, unknown> = { ...current };
  const set = (key: string, value: unknown) => (value === null || value === undefined ? delete next[key] : (next[key] = value));
  if (edit.refundServiceFee !== null) {
    try {
      const m = parseMoney(edit.refundServiceFee);
      if (m.minor < 0) throw new MoneyError('negative');
    } catch (err) {
      if (err instanceof MoneyError) throw new ActionRefused(409, 'refund service fee: an amount like "EUR 5.00" (currency code, then a non-negative amount)');
      throw err;
    }
  }
  set('refundServiceFee', edit.refundServiceFee?.trim() ?? null);
  const criteria = { ...((current.refundCriteria as Record<string, unknown> | undefined) ?? {}) };
  if (edit.minMinutesBeforeDeparture === null) delete criteria.minMinutesBeforeDeparture;
  else criteria.minMinutesBeforeDeparture = edit.minMinutesBeforeDeparture;
  set('refundCriteria', Object.keys(criteria).length ? criteria : null);
  const limits = { ...((current.rateLimits as Record<string, unknown> | undefined) ?? {}) };
  for (const k of ['ancillaryPerMinute', 'verifyPerMinute', 'pnrPerMinute', 'searchPerSecond'] as const) {
    if (edit[k] === undefined) continue;
    if (edit[k] === null) delete limits[k];
    else limits[k] = edit[k];
  }
  set('rateLimits', Object.keys(limits).length ? limits : null);
  set('lookToBook', edit.lookToBook);
  return next;
}

export async function editClientSettings(deps: ClientAdminDeps, operator: Operator, clientId: string, edit: EditableSettings): Promise<Record<string, unknown>> {
  const after = await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('clients').select(['settings']).where('client_id', '=', clientId).forUpdate().executeTakeFirst();
    if (!row) throw new ActionRefused(404, `no client ${clientId}`);
    const before = row.settings as Record<string, unknown>;
    // Read under the row's lock: an edit made on older settings would silently undo the change made since.
    if (edit.settingsVersion !== undefined && edit.settingsVersion !== settingsVersionOf(before)) {
      throw new ActionRefused(409, `the settings of ${clientId} changed since the form was opened (another admin, or a world reload); nothing was saved: reload them and make the change again`);
    }
    const next = applySettings(before, edit);
    await trx.updateTable('clients').set({ settings: JSON.stringify(next), updated_at: deps.now() }).where('client_id', '=', clientId).execute();
    await audit(trx, operator, 'client.settings', `client:${clientId}`, before, next);
    return next;
  });
  deps.invalidate(clientId);
  return after;
}

/**
 * Sets (or with null, removes) a client's webhook URL, as updateWebhookURL.do and `postbook clients webhook`
 * do (src/webhooks/register.ts: the same URL rules). The signing secret is made with the first URL, or anew
 * when `rotateSecret`, and answered then only; the audit log records the URL before and after and whether a
 * secret was made, never the secret.
 */
export async function setClientWebhook(
  reg: WebhookRegistry,
  operator: Operator,
  clientId: string,
  url: string | null,
  rotateSecret: boolean,
): Promise<{ webhookUrl: string | null; secret: string | null }> {
  const trimmed = url === null ? null : url.trim();
  if (trimmed === '') throw new ActionRefused(409, 'webhook URL: give one (https://…), or remove it');
  if (rotateSecret && trimmed === null) throw new ActionRefused(409, 'a new signing secret needs a webhook URL');
  let done;
  try {
    // the audit row in the change's transaction, with the row as it was under its lock
    done = await setWebhook(reg, clientId, trimmed, {
      rotate: rotateSecret,
      within: (trx, before, made) =>
        audit(trx, operator, 'client.webhook', `client:${clientId}`, before, { webhookUrl: trimmed, hasSecret: before.hasSecret || made.secret !== null, secretMade: made.secret !== null }),
    });
  } catch (err) {
    if (err instanceof WebhookRegistrationError) throw new ActionRefused(409, `webhook URL: ${err.message}`);
    throw err;
  }
  if (!done) throw new ActionRefused(404, `no client ${clientId}`);
  return { webhookUrl: trimmed, secret: done.secret };
}
