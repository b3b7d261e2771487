// A connection of its own for one tiny read that runs thousands of times a second: the sandbox airline's seat
// inventory versions, read before every cached seat map is trusted on PostgreSQL (decision 0014). Through
// the pool and Kysely each read took the pool's acquire and release and Kysely's query wrapper as well as the
// statement; on node-postgres's client directly the seat map served 12,700–12,800 answers/s against
// 11,100–11,200 and its event-loop thread spent 74 µs per answer against 86 (BENCHMARKS.md "2026-11-26, night").
// PostgreSQL only: the embedded store has one connection, and there the versions are known in memory.
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { preparedNameOf } from './prepared.js';

export interface HotReader {
  /**
   * Runs a query of `preparedQuery` (./prepared.ts) as the same named statement the pool's connections run,
   * parsed once on this connection; answers its rows.
   */
  query<R>(query: CompiledQuery<R>): Promise<R[]>;
  /** Ends the connection; later queries fail. */
  close(): Promise<void>;
}

/**
 * The connection is opened at the first query and opened again at the next query after it was lost (the
 * server restarted, an idle connection was cut): a read in flight when it breaks fails, as it would on the
 * pool; none is retried here (the callers' requests fail and their clients retry).
 */
export function hotReader(config: pg.ClientConfig): HotReader {
  let current: Promise<pg.Client> | null = null;
  let closed = false;

  const forget = (which: Promise<pg.Client>) => {
    if (current === which) current = null;
  };
  const connect = (): Promise<pg.Client> => {
    const client = new pg.Client(config);
    const ready = client.connect().then(() => client);
    // A lost connection emits 'error' (without a listener it would end the process) or 'end': the next query reconnects.
    client.on('error', () => forget(ready));
    client.on('end', () => forget(ready));
    ready.catch(() => forget(ready));
    return ready;
  };

  return {
    async query<R>(query: CompiledQuery<R>): Promise<R[]> {
      if (closed) throw new Error('the store is closed');
      const name = preparedNameOf(query.sql);
      if (!name) throw new Error('hot reader: only statements declared with preparedQuery run here');
      const ready = (current ??= connect());
      const client = await ready;
      try {
        const result = await client.query<R & pg.QueryResultRow>({ name, text: query.sql, values: [...query.parameters] });
        return result.rows;
      } catch (err) {
        // Anything but a statement's own error (a cut or closed connection, the server's FATAL) leaves the
        // connection unusable, whether or not its 'error' event came first: the next query opens another.
        const severity = err instanceof pg.DatabaseError ? err.severity : undefined;
        if (severity !== 'ERROR') {
          forget(ready);
          client.end().catch(() => undefined);
        }
        throw err;
      }
    },
    async close() {
      closed = true;
      const ready = current;
      current = null;
      if (ready) await ready.then((client) => client.end()).catch(() => undefined);
    },
  };
}
