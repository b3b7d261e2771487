// The measures of `npm run bench`, one entry each (docs/architecture.md "Performance targets"). Adding a measure = adding
// an object to MEASURES: a name (its row in BENCHMARKS.md), a target, and a run function.
import type { Service } from '../src/service.js';
import type { StoreKind } from '../src/store/store.js';
import { gunzipSync } from 'node:zlib';
import { fetchGzipOnce, fetchOnce, loadAbba, LoadFailure, startBareRoute, type LoadRequest, type LoadResult, type LoadSettings } from './harness.js';

export interface BenchContext {
  settings: LoadSettings;
  service: Service;
  storeKind: StoreKind;
  /** http://127.0.0.1:<port> of the running postbook. */
  baseUrl: string;
  /** Client credentials of the demo agency, under the configured header prefix. */
  authHeaders: Record<string, string>;
  /** The repository (to build and start postbook as a process of its own) and the world it runs. */
  root: string;
  worldFile: string;
  databaseUrl: string | null;
}

export interface Target {
  cmp: '>=' | '<=';
  value: number;
  /**
   * The one store the target is set for, when not both (docs/architecture.md "Performance targets": the memory target
   * is PostgreSQL mode's). On the other store the row gives the figure with no verdict.
   */
  store?: StoreKind;
}

export interface MeasureOutcome {
  /** The figure compared with the target. */
  value: number;
  /** The BENCHMARKS.md value cell after the figure: what it was computed from. */
  detail: string;
  /** Every load of the measure, for the printed table. */
  loads: LoadResult[];
}

export interface Measure {
  /** Short name to pick measures on the command line (`npm run bench -- extractPnr`). */
  id: string;
  /** Row key in BENCHMARKS.md: keep it stable, a renamed measure starts a new row. */
  name: string;
  target: Target;
  /**
   * For a measure whose answers are checked against a reference taken before its load and carry the service's
   * calendar day (a quote's and a refund's expected dates, spec 2.9; the engine's day is UTC's): the minutes it may
   * take from that reference to its last check. With fewer left before the day ends, the bench waits for the next
   * day before it starts the measure (calendarWaitMs); run across midnight, every answer after it would differ from
   * the reference and fail the measure.
   */
  sameDayMinutes?: number;
  run(ctx: BenchContext): Promise<MeasureOutcome>;
}

/** A wait after the day's end, so that the service's clock is past it whatever the skew between its reads. */
const PAST_MIDNIGHT_MS = 5_000;
const DAY_MS = 86_400_000;

/**
 * How long to wait before a measure that needs `minutes` within one UTC day (Measure.sameDayMinutes), the service's
 * clock reading `nowMs`: 0 when they fit before midnight, else until just past it.
 */
export function calendarWaitMs(nowMs: number, minutes: number): number {
  const untilMidnight = DAY_MS - (((nowMs % DAY_MS) + DAY_MS) % DAY_MS);
  return untilMidnight > minutes * 60_000 ? 0 : untilMidnight + PAST_MIDNIGHT_MS;
}

export function meetsTarget(value: number, target: Target): boolean {
  return target.cmp === '>=' ? value >= target.value : value <= target.value;
}

function targetApplies(target: Target, store: StoreKind): boolean {
  return target.store === undefined || target.store === store;
}

/** A measure's verdict on one store: `none` where its target is set for the other store only. */
export function verdictOf(value: number, target: Target, store: StoreKind): 'meets' | 'below' | 'none' {
  if (!targetApplies(target, store)) return 'none';
  return meetsTarget(value, target) ? 'meets' : 'below';
}

/**
 * A ratio as the tables show it: two decimals, or as many more as it takes for the figure shown to fall on the
 * same side of its target as the value (0.5996 against ≥ 0.6 is "0.5996", not a "0.60" marked below target).
 */
export function formatValue(value: number, target: Target): string {
  const meets = meetsTarget(value, target);
  for (let digits = 2; digits < 6; digits++) {
    const shown = value.toFixed(digits);
    if (meetsTarget(Number(shown), target) === meets) return shown;
  }
  return String(value);
}

export function formatTarget(target: Target, store: StoreKind): string {
  const shown = `${target.cmp === '>=' ? '≥' : '≤'} ${target.value}`;
  if (targetApplies(target, store)) return shown;
  return `none (${shown} is ${target.store === 'postgres' ? 'PostgreSQL' : 'PGlite'} mode's)`;
}

export const formatRps = (rps: number): string => Math.round(rps).toLocaleString('en-US');
/** A figure to two decimals: 0.5, not 0.4995014955134596 (a merged p50, a latency, a duration). */
export const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The usual shape of a measure: the rps of an endpoint divided by the rps of a yardstick measured in the
 * same run, for the same time in all, alternating A B B A (harness.ts `loadAbba`).
 */
export async function rpsRatio(ctx: BenchContext, yardstick: LoadRequest, subject: LoadRequest): Promise<MeasureOutcome> {
  const [base, measured] = await loadAbba(ctx.settings, yardstick, subject);
  const value = measured.rps / base.rps;
  return {
    value,
    detail: `${subject.label} ${formatRps(measured.rps)} req/s ÷ ${yardstick.label} ${formatRps(base.rps)} req/s, ${ctx.settings.seconds} s each in two halves (A B B A)`,
    loads: [base, measured],
  };
}

/**
 * The subject's rps ÷ a bare route serving the subject's own reference answer (same size, same bytes).
 * `measured` makes the subject's load from the answer (default: every answer must equal it).
 */
export async function ratioToBareRoute(
  ctx: BenchContext,
  subject: Omit<LoadRequest, 'expectBody'>,
  routePath: string,
  measured: (answer: string) => LoadRequest = (answer) => ({ ...subject, expectBody: answer }),
): Promise<MeasureOutcome> {
  const answer = await referenceAnswer(subject);
  const bare = await startBareRoute(subject.method, routePath, answer);
  try {
    return await rpsRatio(ctx, { ...subject, label: `bare route (${Buffer.byteLength(answer)} B JSON)`, url: bare.url, expectBody: answer }, measured(answer));
  } finally {
    await bare.close();
  }
}

/** A reference answer must be HTTP 200 with body status 0 before its bytes are used as the expectation. */
export async function referenceAnswer(req: Omit<LoadRequest, 'expectBody'>): Promise<string> {
  const { http, text } = await fetchOnce(req);
  checkSuccess(req.label, http, text);
  return text;
}

function checkSuccess(label: string, http: number, text: string): void {
  let status: unknown;
  try {
    status = (JSON.parse(text) as { status?: unknown }).status;
  } catch {
    status = undefined;
  }
  if (http !== 200 || status !== 0) throw new LoadFailure(`${label}: reference request answered HTTP ${http}: ${text.slice(0, 300)}`);
}

/** The answer as the spec's callers get it (`Accept-Encoding: gzip`): gzip bytes, HTTP 200 and status 0 once unzipped. */
export async function gzipAnswer(req: Omit<LoadRequest, 'expectBody'>): Promise<{ zipped: Buffer; text: string }> {
  const { http, encoding, bytes } = await fetchGzipOnce(req);
  if (encoding !== 'gzip') throw new LoadFailure(`${req.label}: asked for gzip, answered HTTP ${http} ${encoding ?? 'uncompressed'}: ${bytes.toString('utf8', 0, 300)}`);
  const text = gunzipSync(bytes).toString('utf8');
  checkSuccess(req.label, http, text);
  return { zipped: bytes, text };
}

/**
 * ratioToBareRoute as the spec's callers ask (`Accept-Encoding: gzip`, their default): the bare route sends the
 * subject's reference gzip bytes as they are (compressed once, like a cached answer), and every answer must be
 * those bytes — or, with `answersOf`, one of the answers it fetched and checked (a body per request in turn).
 */
export async function gzipRatioToBareRoute(
  ctx: BenchContext,
  subject: Omit<LoadRequest, 'expectBody'>,
  routePath: string,
  answersOf?: (reference: { zipped: Buffer; text: string }) => Promise<NonNullable<LoadRequest['gzip']>>,
): Promise<MeasureOutcome> {
  const asked = { ...subject, headers: { ...subject.headers, 'accept-encoding': 'gzip' } };
  const reference = await gzipAnswer(asked);
  const bare = await startBareRoute(subject.method, routePath, reference.zipped, 'gzip');
  try {
    const size = `${reference.zipped.length} B gzip of ${Buffer.byteLength(reference.text)} B JSON`;
    const yardstick = { ...asked, label: `bare route (${size})`, url: bare.url, gzip: { answers: [reference.zipped] } };
    return await rpsRatio(ctx, yardstick, { ...asked, gzip: answersOf ? await answersOf(reference) : { answers: [reference.zipped] } });
  } finally {
    await bare.close();
  }
}

// ---- extractPnr.do ----

/** The demo walk-through booking, as an agency would ask for it (spec 4.5). */
const EXTRACT_DEMO01 = {
  airlinePnr: 'DEMO01',
  carrier: 'XS',
  timeout: null,
  passengers: [{ firstName: 'ANA', lastName: 'TRAVELLER', passengerType: null }],
  contact: { email: 'ana.traveller@example.com' },
  routing: {
    fromSegments: [{ dptAirport: 'HND', arrAirport: 'SGN', flightNumber: 'XS101', depTime: null, arrTime: null }],
    retSegments: null,
  },
  requestSource: null,
  channel: null,
  mainChannel: null,
  subChannelID: null,
  requestOwner: null,
  requestId: 'bench-1',
  clientRequestId: null,
};

function extractRequest(ctx: BenchContext, label: string) {
  return {
    label,
    url: `${ctx.baseUrl}/extractPnr.do`,
    method: 'POST' as const,
    headers: { ...ctx.authHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(EXTRACT_DEMO01),
  };
}

const extractPnr: Measure = {
  id: 'extractPnr',
  name: 'extractPnr.do (sandbox) rps ÷ bare route with a same-size JSON',
  target: { cmp: '>=', value: 0.5 },
  async run(ctx) {
    return ratioToBareRoute(ctx, extractRequest(ctx, 'extractPnr.do'), '/extractPnr.do');
  },
};

const extractPnrGzip: Measure = {
  id: 'extractPnrGzip',
  name: 'extractPnr.do with Accept-Encoding: gzip, as callers send it, rps ÷ bare route sending the same gzip bytes',
  target: { cmp: '>=', value: 0.5 },
  async run(ctx) {
    return gzipRatioToBareRoute(ctx, extractRequest(ctx, 'extractPnr.do (gzip)'), '/extractPnr.do');
  },
};

import { refundQuotation } from './refund-measures.js';
import { refundBacklog, refundSubmit } from './submit-measures.js';
import { quoteScale } from './scale-measures.js';
import { seatAvailability, seatAvailabilityFresh, seatAvailabilityFreshGzip, seatAvailabilityGzip, seatMemory } from './seat-measures.js';

export const MEASURES: Measure[] = [
  extractPnr,
  refundQuotation,
  quoteScale,
  refundSubmit,
  refundBacklog,
  seatAvailability,
  seatAvailabilityFresh,
  seatMemory,
  extractPnrGzip,
  seatAvailabilityGzip,
  seatAvailabilityFreshGzip,
];
