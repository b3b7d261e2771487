// Prometheus metrics of one app instance (its own registry, so tests and several apps do not collide).
// Counted as requests pass: requests by route, HTTP status and body status (the `status` of the answer,
// which says more than HTTP: a refusal is HTTP 200 with status 805), latency, rate-pool refusals, the
// seat-map cache and the refunds' kept contexts and pricings. Read from the store by a scrape, at most once in
// METRICS_STORE_SECONDS: refunds by status and airline, the oldest refund still waiting in each open status, job
// queue depth, undelivered webhook events (README "Operating it"). The process's own figures (memory, heap, CPU)
// read at each scrape; the event loop's delay measured by a timer of its own (decision 0047). A scrape changes nothing.
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { JobQueue } from '../jobs/queue.js';
import type { SeatMapCacheStats } from '../booking/seat-cache.js';
import { contextCacheFor } from '../refunds/context-cache.js';
import { oldestOpenRefunds, refundCallsGivenUp, refundsByStatus } from '../refunds/metrics.js';
import { undeliveredEvents } from '../webhooks/metrics.js';
import type { Database } from '../store/schema.js';
import type { AutovacuumStats } from '../store/pglite-autovacuum.js';
import { STORE_PROBE_TIMEOUT_MS, withTimeout } from './probe-timeout.js';

/** Where the scrape-time figures come from; without it /metrics has only the request figures. */
export interface MetricSources {
  db: Kysely<Database>;
  clock: Clock;
  jobQueue: Pick<JobQueue, 'stats' | 'running'>;
  seatMaps: { stats: SeatMapCacheStats };
  /** The embedded store's own vacuum and analyze (decision 0032); absent on PostgreSQL, which runs its own. */
  storeMaintenance?: { readonly stats: Readonly<AutovacuumStats> } | undefined;
  /**
   * The store-wide figures (refunds, jobs, webhooks; the same from every process): shown or not, and how long
   * (ms) one read of them is shown before a scrape reads again.
   */
  storeFigures: { enabled: boolean; maxAgeMs: number; /** a read's longest wait (default STORE_PROBE_TIMEOUT_MS) */ timeoutMs?: number };
}

export class Metrics {
  readonly registry = new Registry();
  private readonly duration = new Histogram({
    name: 'postbook_http_request_duration_seconds',
    help: 'HTTP request duration by route and HTTP status',
    labelNames: ['route', 'http_status'] as const,
    // up to extractPnr.do's longest airline wait (120 s) and order.do's (a 10 s twin wait and a 15 s airline call)
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: 'postbook_requests_total',
    help: 'Answered requests by route, HTTP status and body status (the answer\'s `status` field; "none" when the answer has none)',
    labelNames: ['route', 'http_status', 'body_status'] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'postbook_rate_pool_refusals_total',
    help: 'Requests refused by a rate pool (spec 8: HTTP 429)',
    labelNames: ['pool'] as const,
    registers: [this.registry],
  });
  private readonly collectErrors = new Counter({
    name: 'postbook_metrics_collect_errors_total',
    help: 'Scrapes whose figures from the store could not be read (those gauges keep their last values)',
    labelNames: ['source'] as const,
    registers: [this.registry],
  });

  /** The event loop's delay, sampled every 20 ms by a timer of its own while the app runs (stopped by `close`). */
  private readonly loopDelay: LoopDelay;

  constructor(opts: { sources?: MetricSources; loopDelay?: { windowMs: number; tickMs: number } } = {}) {
    this.loopDelay = new LoopDelay(opts.loopDelay ?? { windowMs: 60_000, tickMs: 1000 });
    this.addProcessFigures();
    if (opts.sources) {
      this.addProcessCounters(opts.sources);
      if (opts.sources.storeFigures.enabled) this.addStoreFigures(opts.sources);
    }
  }

  close(): void {
    this.loopDelay.stop();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observe(route: string, httpStatus: number, bodyStatus: number | null, seconds: number): void {
    const http = String(httpStatus);
    this.duration.observe({ route, http_status: http }, seconds);
    this.requests.inc({ route, http_status: http, body_status: bodyStatus === null ? 'none' : String(bodyStatus) });
  }

  poolRefused(pool: string): void {
    this.refusals.inc({ pool });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * The process's own figures under prom-client's standard names, all read at scrape time: resident memory,
   * heap (total, used, by V8 space), external memory, CPU, event-loop delay. Not prom-client's
   * collectDefaultMetrics: its GC histogram observes every collection, which took ~13 % of a bare route's rate
   * at 20–28k requests/s on this project's bench machine (BENCHMARKS.md, 2026-11-26 evening).
   */
  private addProcessFigures(): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers, collect() { this.set(read()); } });
    // One memory reading per scrape: the first of these gauges (collected first, in registration order) takes it.
    let memory = process.memoryUsage();
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes', () => (memory = process.memoryUsage()).rss);
    gauge('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes', () => memory.heapTotal);
    gauge('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes', () => memory.heapUsed);
    gauge('nodejs_external_memory_bytes', 'Node.js external memory size in bytes (buffers outside the heap)', () => memory.external);
    new Gauge({
      name: 'nodejs_heap_space_size_used_bytes',
      help: 'Process heap space size used from Node.js in bytes, by V8 space (new: follows the request rate; old: long-lived)',
      labelNames: ['space'] as const,
      registers,
      collect() {
        for (const s of getHeapSpaceStatistics()) this.set({ space: s.space_name.replace(/_space$/, '') }, s.space_used_size);
      },
    });
    new Counter({
      name: 'process_cpu_seconds_total',
      help: 'Total user and system CPU time spent in seconds',
      registers,
      collect() {
        const { user, system } = process.cpuUsage();
        this.reset();
        this.inc((user + system) / 1e6);
      },
    });
    // The event loop's delay (decision 0047): the gauges show the last completed window (a minute; 0 until the
    // first completes), the same to every scraper and never started afresh by a scrape; the histogram counts
    // each second by its longest delay (a longer stall ends one second), so no stall is lost whatever the
    // scrape interval.
    const loop = this.loopDelay;
    gauge('nodejs_eventloop_lag_p50_seconds', 'The 50th percentile of the event loop delay over the last completed minute', () => loop.lastWindow.p50);
    gauge('nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the event loop delay over the last completed minute', () => loop.lastWindow.p99);
    gauge('nodejs_eventloop_lag_max_seconds', 'The maximum event loop delay over the last completed minute', () => loop.lastWindow.max);
    const seconds = new Histogram({
      name: 'postbook_eventloop_delay_max_seconds',
      help: 'Seconds of this process by their longest event loop delay, a stall longer than a second counted once (rate of the count above 0.1 s: stalls per second)',
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    loop.start((max) => seconds.observe(max));
  }

  private addStoreFigures(src: MetricSources): void {
    const registers = [this.registry];
    const { maxAgeMs, timeoutMs = STORE_PROBE_TIMEOUT_MS } = src.storeFigures;
    /**
     * A store read shared by every collection while it runs and for `maxAgeMs` after it (several scrapers, or
     * one scraping every second, cost the store one read each few seconds; the two given-up gauges share one).
     * A failed read is not kept: the next collection reads again.
     */
    const cached = <T>(read: () => Promise<T>): (() => Promise<T>) => {
      let inFlight: Promise<T> | null = null;
      let kept: { at: number; value: T } | null = null;
      return () => {
        if (kept && performance.now() - kept.at < maxAgeMs) return Promise.resolve(kept.value);
        return (inFlight ??= read()
          .then((value) => {
            kept = { at: performance.now(), value };
            return value;
          })
          .finally(() => {
            inFlight = null;
          }));
      };
    };
    /**
     * A gauge of store figures: `samples` gives them at a collection, replacing the previous ones. A read that fails
     * keeps the last samples and counts in postbook_metrics_collect_errors_total{source}.
     */
    const errors = this.collectErrors;
    const fromStore = <L extends string>(name: string, help: string, labelNames: readonly L[], source: string, samples: () => Promise<Array<[Record<L, string>, number]>>) => {
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          try {
            // A stalled store costs a scrape at most the readiness probe's wait, the last samples shown and the
            // failure counted (a review: the scrape waited with the store, the process figures with it, so the
            // target read as down through a database incident). The read goes on, shared by the next scrapes.
            const got = await withTimeout(samples(), timeoutMs, 'the store');
            this.reset();
            for (const [labels, value] of got) this.set(labels, value);
          } catch {
            errors.inc({ source });
          }
        },
      });
    };
    const refunds = cached(() => refundsByStatus(src.db));
    fromStore('postbook_refunds', 'Refund orders by refundStatus (spec 3.1) and airline', ['status', 'carrier'], 'refunds', async () =>
      (await refunds()).map((r) => [{ status: String(r.status), carrier: r.carrier }, r.count]),
    );
    const oldest = cached(() => oldestOpenRefunds(src.db));
    fromStore(
      'postbook_refund_oldest_waiting_seconds',
      'Age of the oldest refund in each open status (0 with postbook, 1 and 3 with the airline); absent when none waits',
      ['status'],
      'refunds',
      async () => {
        // the ages at this collection, from the kept read's instants
        const rows = await oldest();
        const now = src.clock.now().getTime();
        return rows.map((r) => [{ status: String(r.status) }, Math.max(0, (now - r.since.getTime()) / 1000)]);
      },
    );
    const givenUp = cached(() => refundCallsGivenUp(src.db));
    fromStore(
      'postbook_refund_polls_given_up',
      'Refunds at 1 or 3 nobody looks at any more: their looks at the airline failed past the retries; retry them in the console',
      [],
      'refunds',
      async () => [[{}, (await givenUp()).polls]],
    );
    fromStore(
      'postbook_refund_submissions_given_up',
      'Refunds at 0 nobody submits any more: their submissions to the airline failed past the retries; retry them in the console',
      [],
      'refunds',
      async () => [[{}, (await givenUp()).submissions]],
    );
    const jobs = cached(() => src.jobQueue.stats());
    fromStore('postbook_jobs', 'Jobs of the job queue by queue and state (created = waiting)', ['queue', 'state'], 'jobs', async () => {
      // A queue that does not run (stopped at shutdown) shows no depth rather than its last one.
      if (!src.jobQueue.running) return [];
      const stats = await jobs();
      return Object.entries(stats.queues).flatMap(([queue, counts]) => Object.entries(counts).map(([state, n]): [Record<'queue' | 'state', string>, number] => [{ queue, state }, n]));
    });
    const webhooks = cached(() => undeliveredEvents(src.db));
    fromStore('postbook_webhook_events_undelivered', 'Webhook events not delivered: pending (still retried) or failed (retries over)', ['type', 'state'], 'webhooks', async () =>
      (await webhooks()).map((r) => [{ type: r.type, state: r.state }, r.count]),
    );
    // A stalled deliverer (or a receiver down) shows as an age that grows, which a count of a busy outbox does not
    // (found by a review: the age was read and not shown).
    fromStore(
      'postbook_webhook_oldest_pending_seconds',
      'Age of the oldest webhook event still to be delivered, per event type (since its status change); absent when none is pending',
      ['type'],
      'webhooks',
      async () => {
        const now = src.clock.now().getTime();
        return (await webhooks()).filter((r) => r.state === 'pending').map((r) => [{ type: r.type }, Math.max(0, (now - r.oldest.getTime()) / 1000)]);
      },
    );
  }

  /** This process's own counters kept in plain fields: the seat-map cache's, the refunds' kept contexts and pricings, the embedded store's autovacuum's. */
  private addProcessCounters(src: MetricSources): void {
    const registers = [this.registry];
    /**
     * A counter kept elsewhere in plain fields (no prom-client call where it counts): `read` gives its totals
     * by the value of one label (or, without a label, under ''); each scrape adds what changed since the last.
     */
    const fromTotals = (name: string, help: string, label: string | null, read: () => Record<string, number>) => {
      let seen: Record<string, number> = {};
      new Counter({
        name,
        help,
        labelNames: label ? [label] : [],
        registers,
        collect() {
          const now = read();
          for (const [value, total] of Object.entries(now)) {
            const added = total - (seen[value] ?? 0);
            if (label) this.inc({ [label]: value }, added);
            else this.inc(added);
          }
          seen = now;
        },
      });
    };
    // The seat-map cache counts in plain fields (nothing on the hot path).
    const cache = src.seatMaps.stats;
    fromTotals(
      'postbook_seat_map_answers_total',
      'seatAvailability.do answers by whether their bytes came from the answer cache (hit) or were built (miss); hit ratio = hit / (hit + miss)',
      'cache',
      () => ({ hit: cache.answerHits, miss: cache.answerMisses }),
    );
    fromTotals(
      'postbook_seat_map_loads_total',
      "Seat maps an answer needed: kept at the airline's current version (hit) or read from the airline (miss)",
      'cache',
      () => ({ hit: cache.mapHits, miss: cache.mapMisses }),
    );
    fromTotals(
      'postbook_seat_map_gzip_total',
      'seatAvailability.do gzip answers written from a gzip template of their map (spliced) or compressed on their own (compressed); templates made (template) (decision 0043)',
      'how',
      () => ({ spliced: cache.gzipSpliced, compressed: cache.gzipCompressed, template: cache.gzipTemplatesMade }),
    );
    // The refunds' kept contexts and kept pricings count in plain fields too (decisions 0030 and 0067).
    const contexts = contextCacheFor(src.db);
    fromTotals(
      'postbook_refund_contexts_total',
      "Refund contexts (an order's tickets, segments and services) that quotes and refund.do looked for in this process: found kept from an earlier quote (hit, decision 0030) or not found (miss)",
      'cache',
      () => ({ hit: contexts.hits, miss: contexts.misses }),
    );
    fromTotals(
      'postbook_refund_pricings_total',
      "refundQuotation.do pricings: answered again from an earlier pricing of the same request kept with the order's context (hit, decision 0067) or priced (miss, refusals included)",
      'cache',
      () => ({ hit: contexts.pricingsKept, miss: contexts.pricingsMade }),
    );
    const maintenance = src.storeMaintenance;
    if (maintenance) {
      fromTotals(
        'postbook_store_maintenance_total',
        'Embedded store: tables vacuumed (with analyze) and analyzed only by its autovacuum, and rounds that failed (decision 0032)',
        'op',
        () => ({ vacuum: maintenance.stats.vacuums, analyze: maintenance.stats.analyzes, error: maintenance.stats.errors }),
      );
      fromTotals('postbook_store_maintenance_seconds_total', 'Embedded store: time its autovacuum held the store (requests wait meanwhile)', null, () => ({ '': maintenance.stats.seconds }));
    }
  }
}

/** How often the event loop's delay is sampled (ms): a timer's lateness past this is the delay. */
const LOOP_SAMPLE_MS = 20;

/**
 * The event loop's delay, sampled by one timer of its own (never by a scrape): each firing's lateness goes into
 * the window's histogram and the tick's maximum before the tick or the window is closed, so a stall is counted in
 * the tick it ends in, whenever it falls. (Node's monitorEventLoopDelay, reset at each tick, forgot when it last
 * fired: a stall begun just after a reset was lost — about 2 % of them at a 1 s tick, a review found.)
 */
class LoopDelay {
  /** p50, p99 and max in seconds of the last completed window; zeros until one completes. */
  lastWindow = { p50: 0, p99: 0, max: 0 };
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly every: { windowMs: number; tickMs: number }) {}

  /** Starts sampling; `onTick` gets each tick's longest delay in seconds (a stall longer than a tick ends one tick). */
  start(onTick: (maxSeconds: number) => void): void {
    // microseconds (a recordable histogram takes integers ≥ 1)
    const window: RecordableHistogram = createHistogram();
    let prev = performance.now();
    let tickStart = prev;
    let windowStart = prev;
    let tickMax = 0;
    this.timer = setInterval(() => {
      const now = performance.now();
      const delay = Math.max(0, now - prev - LOOP_SAMPLE_MS);
      prev = now;
      window.record(Math.max(1, Math.round(delay * 1000)));
      if (delay > tickMax) tickMax = delay;
      if (now - tickStart >= this.every.tickMs) {
        onTick(tickMax / 1000);
        tickMax = 0;
        tickStart = now;
      }
      if (now - windowStart >= this.every.windowMs) {
        this.lastWindow = { p50: window.percentile(50) / 1e6, p99: window.percentile(99) / 1e6, max: window.max / 1e6 };
        window.reset();
        windowStart = now;
      }
    }, LOOP_SAMPLE_MS).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
