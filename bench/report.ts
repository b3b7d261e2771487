// BENCHMARKS.md: one table per store kind, one row per measure. A run replaces the rows of the measures
// it ran and keeps every other row as it was.
import fs from 'node:fs';
import type { StoreKind } from '../src/store/store.js';

export interface Row {
  measure: string;
  value: string;
  target: string;
  date: string;
  machine: string;
}

export type Tables = Record<StoreKind, Row[]>;

const SECTIONS: Array<{ kind: StoreKind; heading: string }> = [
  { kind: 'pglite', heading: 'PGlite (embedded, the default)' },
  { kind: 'postgres', heading: 'PostgreSQL (DATABASE_URL)' },
];

const COLUMNS = ['measure', 'value', 'target', 'date', 'machine'] as const;

const INTRO = `# Benchmarks

Run \`npm run bench\` (embedded PGlite in a fresh temporary data folder) or
\`DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench\` (PostgreSQL, the database used as it
is; the migrations are idempotent). \`BENCH_SECONDS=30\` changes the counted seconds per target (default
10, after a 2 s warm-up that is not counted; refund.do's measure warms each target up 15 s, while V8
settles its code); \`npm run bench -- extractPnr\` runs only the named measures;
\`BENCH_CPU_PROFILE=/tmp/prof\` writes a CPU profile of the server thread for each counted run (open it
in Chrome DevTools) and leaves this file unchanged, and with \`BENCH_HEAP_PROFILE=1\` a sampling allocation profile
beside it (\`.heapprofile\`, the garbage included); \`npm run bench:profile -- <file>\` prints the top entries of
either (self time, or bytes, by package and by function). \`BENCH_RECORD=0\` runs without touching this file;
\`BENCH_LOG_LEVEL=silent\` runs without the service's log; \`BENCH_REFUND_FLOW=offer\` has refund.do's callers
quote and then submit by the quote's refundOfferId, \`offer-pnr\` naming the order by PNR (the reading path):
diagnostics of those paths, this file unchanged — as it is under any setting other than the deployed ones
(\`BENCH_LOG_LEVEL\`, \`PGLITE_SHARED_BUFFERS_MB\`, \`PGLITE_AUTOVACUUM_SECONDS\`, \`BENCH_SCALE_ORDERS\`,
\`BENCH_BACKLOG\`; since 2026-12-02).

The harness (\`bench/bench.ts\`, compiled with the service by tsc and run by node: the JavaScript \`npm run build\`
deploys, since 2026-12-03, evening — before, each module was transformed by tsx as it loaded) starts postbook
in-process on loopback with \`worlds/demo.yaml\` and LOG_LEVEL=info as deployed, one access line per answer into a file of its data folder (since 2026-11-27:
rows before were measured at silent; decision 0033), and loads each target in turn with autocannon (10
connections, fired from a worker thread) using the real request and the demo agency's credentials. Every answer must be 2xx and identical
to a reference answer checked once to carry status 0 (a quote: but for its new refundOfferId, since 2026-12-02 —
before, the quotes were counted unread; refund.do's answers and the quotes at 10³ and 10⁶: the reference but for
their own order, tickets, offer and refund, refund.do's reference checked in full against its order's quote, since
2026-12-05, late morning — before, their status alone); otherwise the measure fails, the command exits
non-zero and its row is left unchanged. The quotes' and refund.do's answers carry the service's day (their expected
dates, spec 2.9): a measure of them started too close to midnight UTC to end before it waits for it to pass first,
and says so (since 2026-12-05, afternoon; before, such a run failed). A measure that fills the store analyzes it before it counts (what a
deployment's autovacuum does; this machine's PostgreSQL runs without one), and one that leaves bulk writes
behind vacuums, checkpoints and syncs them before the next measure starts; none of that is timed.
refund.do and its yardstick are driven by callers in the bench's own process, 40 each since
2026-12-04, late night (decision 0054: more than one of its statements carries, so the row reads the service's
capacity; 10 before), and at 10 each after them, the rate of ten callers in lockstep, given in the row's value.
refund.do's callers reach the service's HTTP port over keep-alive connections (undici, one a caller; their own work
counted in the service's thread) since 2026-12-05 (decision 0057; through \`inject\` before, which passes by the
server's sockets, its HTTP parser and the answer lane); the yardstick's run single-row INSERT transactions on the
service's own pool.
The loads send no \`Accept-Encoding\` and get plain JSON, except the rows that say \`gzip\` (since 2026-11-30):
those ask as the spec's callers do by default (\`Accept-Encoding: gzip\`), their bare route sends the subject's
gzip bytes as they are, and every answer must be the reference's gzip (compared as the UTF-8 text autocannon
makes of it). The fresh-session seat maps, plain and gzip, check each answer against its own request's session
(since 2026-11-30): the reference's map with that session's binding in every productCode (the gzip answers of the
3,000 sessions fetched once and checked so before the load).

The figures are **ratios of two targets measured in the same run**, because absolute numbers drift 2× on
these machines. A yardstick and its subject run in the order A B B A, half the counted seconds each time
(the warm-up before the first half of each only; the backlog: half the no-op jobs and half the refunds each
time, since 2026-11-28), so a machine that slows down or speeds up during a measure shifts both alike (since
2026-11-26, late night: the bare route's rate fell by a third within that evening). The quote at 10⁶ compares one
target in two stores, minutes of bulk load apart (since 2026-11-28, afternoon): its 10³ figure is taken before the
load and again once the load is taken away, the two pooled (A B A), every quote is followed by a request to a
primary-key SELECT route and each figure's median divided by that route's, and both figures quote 10³ distinct
orders (the orders of the 10⁶ store drawn at random once), the number of refund contexts the process keeps.
The req/s in the value column are context, not results, and so is the code revision
measured (commit, and whether the tree had uncommitted changes: \`src/\` only before 2026-12-02). Targets are those of docs/architecture.md
"Performance targets". A ratio that misses its target is marked **below target** — a benchmark is not a
test and never fails on it. A target set for one store only (the memory target, PostgreSQL mode's) leaves the
other store's row its figure with no verdict (since 2026-12-05). A value noted *noisy* had other processes (say, a colleague's test suite)
using more than 10% of the machine's CPU during one of its counted runs: run it again on a quiet machine. On
PostgreSQL every PostgreSQL process counts as the bench's own (the machine's one cluster): others' load on it is
not seen; on the embedded store it is other load (since 2026-12-02).
The machine column names the CPU, its cores, memory and Node, and since 2026-12-08 what a round trip over loopback TCP
cost at the run's start (a byte echoed between two sockets of the bench's process, the median of five rounds of
5,000): the yardsticks' answers are mostly the kernel's work (each request's socket reads and writes, each
statement's), the subjects' more their own JavaScript, so the ratios move with it from one machine to another.
Each run replaces only the rows of the measures it ran.
`;

function escapeCell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function splitRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** The rows of each store's table in an existing BENCHMARKS.md (missing file or section: no rows). */
export function parseTables(text: string): Tables {
  const tables: Tables = { pglite: [], postgres: [] };
  let current: StoreKind | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('## ')) {
      const title = line.slice(3).trim();
      current = SECTIONS.find((s) => title.startsWith(s.heading.split(' ')[0]!))?.kind ?? null;
      continue;
    }
    if (!current || !line.trim().startsWith('|')) continue;
    const cells = splitRow(line);
    if (cells.length < COLUMNS.length) continue;
    if (cells[0] === 'measure' || cells.every((c) => /^:?-+:?$/.test(c))) continue;
    const [measure, value, target, date, machine] = cells as [string, string, string, string, string];
    tables[current].push({ measure, value, target, date, machine });
  }
  return tables;
}

/** Put `row` in the table of `kind`: replaces the row of the same measure, else appends it. */
export function upsertRow(tables: Tables, kind: StoreKind, row: Row): void {
  const rows = tables[kind];
  const at = rows.findIndex((r) => r.measure === row.measure);
  if (at >= 0) rows[at] = row;
  else rows.push(row);
}

/** Rows in the order of the known measures, then any other rows in the order they had. */
function ordered(rows: Row[], order: string[]): Row[] {
  const rank = (r: Row) => {
    const i = order.indexOf(r.measure);
    return i < 0 ? order.length : i;
  };
  return rows.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i).map(({ r }) => r);
}

/** Hand-written sections after the tables (they start at this heading) are kept as they are. */
export const NOTES_HEADING = '## Where the time goes';

/** The hand-written part of an existing file: from NOTES_HEADING to the end, or ''. */
export function notesOf(text: string): string {
  const at = text.indexOf(`\n${NOTES_HEADING}`);
  return at < 0 ? '' : text.slice(at + 1);
}

export function renderTables(tables: Tables, order: string[], notes = ''): string {
  const parts = [INTRO];
  for (const { kind, heading } of SECTIONS) {
    parts.push(`## ${heading}\n`);
    const rows = ordered(tables[kind], order);
    if (rows.length === 0) {
      parts.push('Not measured yet.\n');
      continue;
    }
    const lines = [`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
    for (const r of rows) lines.push(`| ${[r.measure, r.value, r.target, r.date, r.machine].map(escapeCell).join(' | ')} |`);
    parts.push(`${lines.join('\n')}\n`);
  }
  if (notes) parts.push(notes.endsWith('\n') ? notes : `${notes}\n`);
  return parts.join('\n');
}

export function updateBenchmarksFile(file: string, kind: StoreKind, rows: Row[], order: string[]): void {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const tables = parseTables(text.slice(0, text.length - notesOf(text).length));
  for (const row of rows) upsertRow(tables, kind, row);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, renderTables(tables, order, notesOf(text)));
  fs.renameSync(tmp, file);
}
