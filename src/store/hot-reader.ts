// A connection of its own for one tiny read that runs thousands of times a second: the sandbox airline's seat
// inventory versions, read before every cached seat map is trusted on PostgreSQL (decision 0014). Through
// the pool and Kysely each read took the pool's acquire and release and Kysely's query wrapper as well as the
// statement; on node-postgres's client directly the seat map served 12,700–12,800 answers/s against
// 11,100–11,200 and its event-loop thread spent 74 µs per answer against 86 (BENCHMARKS.md "2026-11-26, night").
// PostgreSQL only: the embedded store has one connection, and there the versions are known in memory.
//
// Each read is a `HotRead` (node-postgres's Submittable, the extension point its cursor and stream packages use):
// bind, execute and sync of the named statement in one write, its columns described once per connection. A
// query config handed to node-postgres is normalized and cloned, a result object built, and the statement's
// columns asked for and parsed again at every execution (its Describe of the portal): ~5 % of the seat map's
// event-loop thread for a read that answers two small columns (decision 0056).
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { preparedNameOf } from './prepared.js';

export interface HotReader {
  /**
   * Runs a query of `preparedQuery` (./prepared.ts) as the same named statement the pool's connections run,
   * parsed and described once on this connection; answers its rows. Its parameters are strings, numbers,
   * booleans, dates or arrays of them (sent as text).
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
      // before the connection: a parameter it cannot send is the caller's error, not the connection's
      const values = query.parameters.map(wireValue);
      const ready = (current ??= connect());
      const client = await ready;
      try {
        return await new Promise<R[]>((resolve, reject) => {
          client.query(new HotRead<R>(client, name, query.sql, values, resolve, reject));
        });
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

/** A statement's result columns on one connection (its Describe, once): their names and text parsers. */
interface Columns {
  names: string[];
  parsers: Array<(text: string) => unknown>;
}

/** Per connection: the statements parsed and described there by HotRead. */
const describedOn = new WeakMap<pg.Connection, Map<string, Columns>>();

/**
 * One read of a named statement (node-postgres's Submittable; its client calls `submit` when the connection is
 * free and the `handle…` methods with the server's messages). Until a run on the connection has ended well, a run
 * closes the statement (no error if it is not there), parses and describes it: a first run that failed after its
 * parse (a parameter the server refused) leaves the statement there, undescribed here. Every run binds, executes
 * and syncs. Rows are built with the client's own type parsers, as its results are. An error settles the read
 * once; the server's ReadyForQuery that follows is the client's.
 */
class HotRead<R> implements pg.Submittable {
  private columns: Columns | undefined;
  private describing = false;
  private readonly rows: R[] = [];
  private failed = false;

  constructor(
    private readonly client: pg.Client,
    /** Read by the client: it records the statement as parsed on the connection. */
    readonly name: string,
    readonly text: string,
    private readonly values: Array<string | null>,
    private readonly resolve: (rows: R[]) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  submit(connection: pg.Connection): void {
    let statements = describedOn.get(connection);
    if (!statements) describedOn.set(connection, (statements = new Map<string, Columns>()));
    this.columns = statements.get(this.name);
    const stream = connection.stream as pg.Connection['stream'] & { cork?: () => void; uncork?: () => void };
    stream.cork?.();
    try {
      if (!this.columns) {
        this.describing = true;
        connection.close({ type: 'S', name: this.name }, true);
        connection.parse({ name: this.name, text: this.text, types: [] }, true);
        connection.describe({ type: 'S', name: this.name }, true);
      }
      connection.bind({ statement: this.name, values: this.values }, true);
      connection.execute({}, true);
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  /** The statement's Describe (first run on the connection only). */
  handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    this.columns = {
      names: msg.fields.map((f) => f.name),
      parsers: msg.fields.map((f) => this.client.getTypeParser(f.dataTypeID, 'text') as (text: string) => unknown),
    };
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    const { names, parsers } = this.columns!;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const text = msg.fields[i];
      row[names[i]!] = text === null || text === undefined ? null : parsers[i]!(text);
    }
    this.rows.push(row as R);
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: pg.Connection & { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('a hot read copies nothing');
  }
  handleCopyData(): void {}

  handleError(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.reject(err);
  }

  handleReadyForQuery(connection: pg.Connection): void {
    if (this.failed) return;
    // Described now (a statement without rows has no row description: no columns).
    if (this.describing) describedOn.get(connection)!.set(this.name, (this.columns ??= { names: [], parsers: [] }));
    this.resolve(this.rows);
  }
}

/** A parameter as the statement's text input: strings, numbers and booleans as they are, arrays as a literal. */
function wireValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return `{${value.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError('hot reader: a parameter must be a string, number, boolean, date or array of them');
}
