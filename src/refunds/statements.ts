// Runs the refund writes of fixed shape (submission, the 0 → 1 batch) as named prepared statements: parsed
// and planned once per connection. Their text depends on the job queue's schema, so it is registered when
// first seen rather than at module load (src/store/prepared.ts).
import { createHash } from 'node:crypto';
import type { Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from '../store/schema.js';
import { preparedQuery } from '../store/prepared.js';

const registered = new Set<string>();

export async function executePrepared<R>(db: Kysely<Database>, query: RawBuilder<R>): Promise<QueryResult<R>> {
  const compiled = query.compile(db);
  if (!registered.has(compiled.sql)) {
    preparedQuery(`refund_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 20)}`, compiled.sql);
    registered.add(compiled.sql);
  }
  return db.executeQuery(compiled);
}
