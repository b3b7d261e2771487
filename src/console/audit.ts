// The audit log: every console action with its operator, time, target and the state before and after, written
// in the transaction of the change it records (a rolled-back action leaves no audit row, and no change goes unaudited).
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export async function audit(
  db: Kysely<Database>,
  operator: { operatorId: string; login: string },
  action: string,
  target: string,
  before: unknown,
  after: unknown,
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      operator_id: operator.operatorId,
      operator_login: operator.login,
      at: new Date(),
      action,
      target,
      before: before === undefined || before === null ? null : JSON.stringify(before),
      after: after === undefined || after === null ? null : JSON.stringify(after),
    })
    .execute();
}

export interface AuditEntry {
  id: number;
  operator: string;
  at: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export async function auditOf(db: Kysely<Database>, opts: { target?: string; limit: number; before?: number }): Promise<AuditEntry[]> {
  let q = db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(opts.limit);
  if (opts.target) q = q.where('target', '=', opts.target);
  if (opts.before !== undefined) q = q.where('id', '<', opts.before);
  const rows = await q.execute();
  return rows.map((r) => ({ id: Number(r.id), operator: r.operator_login, at: new Date(r.at).toISOString(), action: r.action, target: r.target, before: r.before, after: r.after }));
}

/**
 * A page of the audit log, newest first, and where the next (older) page starts: the id to pass as `before`,
 * null on the last page. Paged by id (the primary key, or the target's index), so every page costs the same.
 */
export async function auditPage(db: Kysely<Database>, opts: { target?: string; limit: number; before?: number }): Promise<{ entries: AuditEntry[]; next: number | null }> {
  const rows = await auditOf(db, { ...opts, limit: opts.limit + 1 });
  const entries = rows.slice(0, opts.limit);
  return { entries, next: rows.length > opts.limit ? entries[entries.length - 1]!.id : null };
}
