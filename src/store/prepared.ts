// Named prepared statements for the hot paths: SQL text fixed at module load, parsed and planned once per
// connection instead of per request (planning was most of a refund quote's store time; docs/architecture.md "Performance targets").
import { CompiledQuery, type QueryResult } from 'kysely';
import { parse as pgliteParse, protocol, type PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

const wire = protocol.serialize;
type BackendMessage = Parameters<typeof pgliteParse.parseResults>[0][number];

/** statement text → its name; one name per text (a name must never be reused with another text). */
const NAMES = new Map<string, string>();

/**
 * A hot query: `text` is final SQL with $1…$n; the returned function makes the CompiledQuery for one call.
 * Run it with `db.executeQuery(...)`: no query building per request, and both stores run it as a named
 * prepared statement (PGlite: see `runPreparedOnPGlite`; PostgreSQL: `usePreparedStatements` on the pool).
 * Anything else that runs the same text (a transaction, EXPLAIN in a test) still works: it is plain SQL.
 */
export function preparedQuery<R>(name: string, text: string): (parameters: readonly unknown[]) => CompiledQuery<R> {
  const full = `pb_${name}`;
  const known = [...NAMES].find(([, n]) => n === full);
  if (known && known[0] !== text) throw new Error(`prepared statement ${name} declared twice with different SQL`);
  NAMES.set(text, full);
  return (parameters) => CompiledQuery.raw(text, [...parameters]);
}

/** Texts run once so far by a library that writes its own SQL (pg-boss), and how many were named. */
const SEEN_ONCE = new Set<string>();
let repeatedNamed = 0;
/** At most this many library texts are named (pg-boss 10 runs about a dozen distinct ones). */
const REPEATED_LIMIT = 64;

/**
 * For SQL a library builds itself (pg-boss's fetch, complete, insert…): a text that runs a second time becomes
 * a named prepared statement like ours, so its later runs skip parsing and planning (on PGlite an empty
 * queue's fetch took 3.3 ms re-planned at every poll, ~10 polls a second). Bounded: texts beyond the limit
 * run as plain SQL. Texts must be fixed templates with $n parameters (pg-boss's are).
 */
export function prepareIfRepeated(text: string): void {
  if (NAMES.has(text) || repeatedNamed >= REPEATED_LIMIT) return;
  if (!SEEN_ONCE.has(text)) {
    if (SEEN_ONCE.size < 4 * REPEATED_LIMIT) SEEN_ONCE.add(text);
    return;
  }
  SEEN_ONCE.delete(text);
  NAMES.set(text, `pb_repeated_${++repeatedNamed}`);
}

/** How many library texts have been named so far (at most REPEATED_LIMIT). */
export function repeatedNamedCount(): number {
  return repeatedNamed;
}

/** The statement name of a prepared text, or undefined for any other SQL. */
export function preparedNameOf(text: string): string | undefined {
  return NAMES.get(text);
}

/**
 * PostgreSQL: make a pooled client run registered texts as named statements (node-postgres parses a named
 * statement once per connection and reuses it). Wire it with `pool.on('connect', usePreparedStatements)`.
 */
export function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string' && args.length <= 2) {
      const name = NAMES.get(text);
      if (name) return query({ name, text, values: values ?? [] });
    }
    return query(...args);
  };
}

/** A statement parsed on a PGlite session: its parameter type oids and its result's row description. */
interface ParsedOnPGlite {
  types: number[];
  /** The RowDescription message of the statement's result (none for a statement without rows). */
  rows: BackendMessage | undefined;
}

/** Per PGlite instance (its one session): names already parsed there. */
const parsedOnPGlite = new WeakMap<PGlite, Map<string, ParsedOnPGlite>>();

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * PGlite: bind + execute + sync of a named statement in one protocol message (PGlite's own `query()`
 * re-parses and re-plans the text on every call, in six protocol steps). The statement is described once,
 * when it is parsed: its row description is kept and put in front of every result, so no call asks the
 * server to describe the same columns again. The caller holds the dialect's connection; PGlite's own query
 * lock is taken too, so nothing interleaves.
 */
export async function runPreparedOnPGlite<R>(db: PGlite, name: string, text: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
  return db.runExclusive(async () => {
    let parsed = parsedOnPGlite.get(db);
    if (!parsed) parsedOnPGlite.set(db, (parsed = new Map<string, ParsedOnPGlite>()));
    let statement = parsed.get(name);
    if (!statement) {
      const described = await db.execProtocol(concat([wire.parse({ name, text }), wire.describe({ type: 'S', name }), wire.sync()]), {
        syncToFs: false,
      });
      statement = {
        types: pgliteParse.parseDescribeStatementResults(described.messages),
        rows: described.messages.find((m) => m.name === 'rowDescription'),
      };
      parsed.set(name, statement);
    }
    const oids = statement.types;
    // Parameters serialised exactly as PGlite's query() does.
    const values = parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = db.serializers[oids[i]!];
      return serialize ? serialize(value) : (value as { toString(): string }).toString();
    });
    const result = await db.execProtocol(concat([wire.bind({ statement: name, values }), wire.execute({}), wire.sync()]));
    const messages = statement.rows ? [statement.rows, ...result.messages] : result.messages;
    const [res] = pgliteParse.parseResults(messages, db.parsers);
    return {
      rows: (res?.rows ?? []) as R[],
      numAffectedRows: res?.affectedRows !== undefined ? BigInt(res.affectedRows) : undefined,
    };
  });
}
