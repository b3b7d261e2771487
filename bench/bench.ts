// `npm run bench`: compiled with the service by tsc (tsconfig.bench.json, into .bench-build/), then run by node, so
// that the service measured is the JavaScript `npm run build` deploys, not a transform made as modules load. Starts
// postbook in-process on loopback (embedded PGlite in a fresh temporary folder, or the PostgreSQL of DATABASE_URL),
// runs the measures of measures.ts, prints a table, and records each measure's row in BENCHMARKS.md. Exits non-zero
// when a measure could not run cleanly (errors, non-2xx or wrong answers), never because a ratio misses its target.
// first: the in-process service runs with the V8 settings of postbook's own processes (decision 0037)
import '../src/v8-flags.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import YAML from 'yaml';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createService } from '../src/service.js';
import { calendarWaitMs, formatRps, formatTarget, formatValue, MEASURES, round2, verdictOf, type BenchContext, type Measure, type MeasureOutcome } from './measures.js';
import { updateBenchmarksFile, type Row } from './report.js';
import { refundFlow } from './submit-measures.js';
import { loopbackRoundTripUs, postgresServes, type LoadSettings } from './harness.js';

/** The repository: the folder above this file's that holds package.json (bench/, or .bench-build/bench/ compiled). */
const ROOT = (() => {
  for (let dir = path.resolve(import.meta.dirname, '..'); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
  }
})();
const BENCHMARKS_FILE = path.join(ROOT, 'BENCHMARKS.md');
/** The printed table's verdicts (measures.ts `verdictOf`). */
const VERDICT_TEXT = { meets: 'meets target', below: 'BELOW TARGET', none: 'no target on this store' } as const;
const DEMO_CLIENT = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };

function settingsFromEnv(env: NodeJS.ProcessEnv): LoadSettings {
  const raw = env.BENCH_SECONDS?.trim();
  const seconds = raw ? Number(raw) : 10;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) {
    throw new Error(`BENCH_SECONDS must be a whole number of seconds between 1 and 3600, got ${JSON.stringify(raw)}`);
  }
  const profileDir = env.BENCH_CPU_PROFILE?.trim() ? path.resolve(env.BENCH_CPU_PROFILE.trim()) : null;
  return { seconds, warmupSeconds: 2, connections: 10, profileDir };
}

/**
 * The demo world with the demo agency's rate pools opened wide: the limiter still runs on every request
 * (its cost is part of the measure) but never refuses one.
 */
function benchWorld(dir: string): string {
  const world = YAML.parse(fs.readFileSync(path.join(ROOT, 'worlds/demo.yaml'), 'utf8')) as { clients: Array<{ id: string; settings?: Record<string, unknown> }> };
  for (const c of world.clients) {
    if (c.id === DEMO_CLIENT.id) c.settings = { ...c.settings, rateLimits: { ancillaryPerMinute: 1_000_000_000, verifyPerMinute: 1_000_000_000, pnrPerMinute: 1_000_000_000 } };
  }
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'bench-world.json');
  fs.writeFileSync(file, JSON.stringify(world));
  return file;
}

/** The machine as each row names it: the CPU, its cores, memory, Node, and a loopback round trip measured once at the start. */
function machine(roundTripUs: number): string {
  const cpus = os.cpus();
  const model = (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim();
  const memGiB = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${model}, ${cpus.length} cores, ${memGiB} GiB, Node ${process.version}, loopback round trip ${roundTripUs.toFixed(1)} µs`;
}

/**
 * The settings the rows are measured at: the service's as deployed (docs/production.md) and the targets' sizes (10⁶
 * orders, 10⁵ refunds). The service is started with the first three unless the environment says otherwise.
 */
const AS_DEPLOYED = { BENCH_LOG_LEVEL: 'info', PGLITE_SHARED_BUFFERS_MB: '16', PGLITE_AUTOVACUUM_SECONDS: '10', BENCH_SCALE_ORDERS: '1000000', BENCH_BACKLOG: '100000' } as const;

/** This run's setting of `name`, or the deployed one. */
function setting(name: keyof typeof AS_DEPLOYED): string {
  return process.env[name]?.trim() || AS_DEPLOYED[name];
}

/** Settings of this run that are not the deployed ones the rows are measured at (each one names itself). */
function notAsDeployed(): string[] {
  return (Object.keys(AS_DEPLOYED) as Array<keyof typeof AS_DEPLOYED>).filter((name) => setting(name) !== AS_DEPLOYED[name]).map((name) => `${name}=${setting(name)}`);
}

/**
 * The code measured: colleagues commit often and the working tree may hold their unfinished changes — in the service,
 * the bench, the world it loads or the locked dependencies (BENCHMARKS.md itself is what a run writes).
 */
function sourceRevision(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const changed = git('status', '--porcelain', '--', '.', ':(exclude)BENCHMARKS.md');
    return changed === '' ? head : `${head} + uncommitted changes`;
  } catch {
    return 'unknown revision';
  }
}

function selectMeasures(args: string[]): Measure[] {
  if (args.length === 0) return MEASURES;
  const unknown = args.filter((a) => !MEASURES.some((m) => m.id.toLowerCase() === a.toLowerCase()));
  if (unknown.length > 0) throw new Error(`unknown measure ${unknown.join(', ')}; known: ${MEASURES.map((m) => m.id).join(', ')}`);
  return MEASURES.filter((m) => args.some((a) => m.id.toLowerCase() === a.toLowerCase()));
}

function printTable(headers: string[], rows: string[][], alignRight: boolean[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (alignRight[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** Other processes using more than this share of the CPU during a counted run make its figure noisy. */
const NOISY_OTHERS_CPU = 0.1;

function noiseNote(outcome: MeasureOutcome): string {
  const worst = Math.max(0, ...outcome.loads.map((l) => l.othersCpu));
  return worst > NOISY_OTHERS_CPU ? `; noisy: other processes used up to ${Math.round(worst * 100)}% of the CPU` : '';
}

interface Done {
  measure: Measure;
  outcome: MeasureOutcome | null;
  error: string | null;
}

async function main(): Promise<number> {
  const settings = settingsFromEnv(process.env);
  const measures = selectMeasures(process.argv.slice(2));
  refundFlow(); // a wrong BENCH_REFUND_FLOW fails here, not after the measures before refund.do
  const databaseUrl = process.env.DATABASE_URL?.trim() || null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-'));
  const removeDataDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    removeDataDir();
    process.exit(130);
  });

  const revision = sourceRevision();
  // before the service starts, on a machine the bench does not load yet
  const machineName = machine(await loopbackRoundTripUs());
  const done: Done[] = [];
  let storeKind: BenchContext['storeKind'];
  try {
    const worldFile = benchWorld(dataDir);
    const config = loadConfig(
      {
        PORT: '0',
        HOST: '127.0.0.1',
        // As deployed (docs/production.md): info, one access line per answer (decision 0033), written to a
        // file of the data folder instead of the bench's output. BENCH_LOG_LEVEL=silent measures without it.
        LOG_LEVEL: setting('BENCH_LOG_LEVEL'),
        DATA_DIR: dataDir,
        WORLD: worldFile,
        // The production interval (the sandbox's 2 s makes demo refunds move visibly; under refund.do's load it
        // would have the workers look at every refund in flight twice a second).
        REFUND_POLL_SECONDS: '300',
        PGLITE_SHARED_BUFFERS_MB: setting('PGLITE_SHARED_BUFFERS_MB'),
        // The embedded store's autovacuum as deployed (decision 0032); 0 to compare without it.
        PGLITE_AUTOVACUUM_SECONDS: setting('PGLITE_AUTOVACUUM_SECONDS'),
        // As deployed (docs/production.md): on PostgreSQL the API process answers HTTP and writes jobs, and the
        // refund workers run in processes of their own (the backlog measure runs them); the embedded store has
        // one process, which carries them.
        WORKERS: databaseUrl ? 'false' : 'true',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      ROOT,
    );
    const logFile = path.join(dataDir, 'postbook.log');
    const service = await createService(config, createLogger(config.logLevel, logFile));
    try {
      await service.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = service.app.server.address() as AddressInfo;
      storeKind = service.store.kind;
      postgresServes(storeKind === 'postgres');
      const ctx: BenchContext = {
        settings,
        service,
        storeKind,
        baseUrl: `http://127.0.0.1:${port}`,
        authHeaders: {
          [`x-${config.headerPrefix}-client-id`]: DEMO_CLIENT.id,
          [`x-${config.headerPrefix}-client-secret`]: DEMO_CLIENT.secret,
        },
        root: ROOT,
        worldFile,
        databaseUrl,
      };
      console.log(
        `postbook on ${ctx.baseUrl}, store ${storeKind}; ${settings.connections} connections, ` +
          `${settings.warmupSeconds} s warm-up + ${settings.seconds} s per target\n${machineName}\ncode at ${revision}`,
      );
      console.log('');
      for (const measure of measures) {
        console.log(`• ${measure.name} …`);
        try {
          if (measure.sameDayMinutes !== undefined) {
            const waitMs = calendarWaitMs(service.clock.now().getTime(), measure.sameDayMinutes);
            if (waitMs > 0) {
              console.log(`  its answers carry the day and it may take ${measure.sameDayMinutes} min: waiting ${Math.ceil(waitMs / 60_000)} min for midnight UTC to pass`);
              await new Promise((resolve) => setTimeout(resolve, waitMs));
            }
          }
          done.push({ measure, outcome: await measure.run(ctx), error: null });
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          console.error(`  FAILED: ${message}`);
          done.push({ measure, outcome: null, error: message });
        }
      }
    } finally {
      await service.close();
      const size = fs.statSync(logFile, { throwIfNoEntry: false })?.size ?? 0;
      console.log(`\nthe service's log at LOG_LEVEL=${config.logLevel}: ${(size / 1e6).toFixed(1)} MB (${logFile}, removed with the data folder)`);
    }
  } finally {
    removeDataDir();
  }

  console.log('');
  printTable(
    ['target', 'req/s (mean)', 'p50 ms', 'p99 ms', '2xx answers', 'seconds', "others' CPU", 'CPU µs/answer: server thread / other threads / PostgreSQL'],
    done.flatMap((d) =>
      (d.outcome?.loads ?? []).map((l) => [
        l.label,
        formatRps(l.rps),
        String(round2(l.p50Ms)),
        String(round2(l.p99Ms)),
        String(l.requests),
        String(round2(l.seconds)),
        `${Math.round(l.othersCpu * 100)}%${l.othersCpu > NOISY_OTHERS_CPU ? ' (noisy)' : ''}`,
        l.cpuUsPerRequest ? `${Math.round(l.cpuUsPerRequest.server)} / ${Math.round(l.cpuUsPerRequest.otherThreads)} / ${Math.round(l.cpuUsPerRequest.postgres)}` : '—',
      ]),
    ),
    [false, true, true, true, true, true, true, true],
  );
  console.log('');
  printTable(
    ['measure', 'value', 'target', 'verdict'],
    done.map((d) => [
      d.measure.name,
      d.outcome ? formatValue(d.outcome.value, d.measure.target) : '—',
      formatTarget(d.measure.target, storeKind),
      d.outcome ? VERDICT_TEXT[verdictOf(d.outcome.value, d.measure.target, storeKind)] : 'FAILED',
    ]),
    [false, true, false, false],
  );

  const date = new Date().toISOString().slice(0, 10);
  const rows: Row[] = done.flatMap(({ measure, outcome }) =>
    outcome
      ? [
          {
            measure: measure.name,
            value: `${formatValue(outcome.value, measure.target)}${verdictOf(outcome.value, measure.target, storeKind) === 'below' ? ' **below target**' : ''} (${outcome.detail}; code at ${revision}${noiseNote(outcome)})`,
            target: formatTarget(measure.target, storeKind),
            date,
            machine: machineName,
          },
        ]
      : [],
  );
  if (rows.length > 0 && settings.profileDir) {
    console.log('\nprofiled run (BENCH_CPU_PROFILE): figures skewed by the profiler, BENCHMARKS.md left unchanged');
  } else if (rows.length > 0 && refundFlow() !== 'list') {
    console.log(`\nBENCH_REFUND_FLOW=${refundFlow()}: a diagnostic of refund.do by refundOfferId, BENCHMARKS.md left unchanged`);
  } else if (rows.length > 0 && process.env.BENCH_RECORD === '0') {
    console.log('\nBENCH_RECORD=0: BENCHMARKS.md left unchanged');
  } else if (rows.length > 0 && notAsDeployed().length > 0) {
    // the rows say "as deployed" (BENCHMARKS.md's header): other settings are diagnostics (a review of the bench)
    console.log(`\n${notAsDeployed().join(', ')}: not as deployed, BENCHMARKS.md left unchanged`);
  } else if (rows.length > 0) {
    updateBenchmarksFile(BENCHMARKS_FILE, storeKind, rows, MEASURES.map((m) => m.name));
    console.log(`\n${path.relative(process.cwd(), BENCHMARKS_FILE) || BENCHMARKS_FILE}: ${rows.length} row(s) of the ${storeKind} table updated`);
  }
  const failed = done.filter((d) => d.error !== null);
  if (failed.length > 0) {
    console.error(`\n${failed.length} measure(s) FAILED to run: ${failed.map((d) => d.measure.id).join(', ')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
