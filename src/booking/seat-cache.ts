// Seat maps as final bytes (docs/architecture.md "Performance targets": seatAvailability.do ≥ 0.6 of a bare route).
//
// Two levels, both in this process's memory:
// - maps: the airline's map of a (flight, cabin class, fare family), kept with the inventory version it was
//   read at. It is used only while the airline's connector still reports that version: every seat sale,
//   release or price change makes a new version in its own transaction (the sandbox knows it in memory
//   with the embedded store, and reads it from the store with PostgreSQL, where other API processes sell
//   too), so a cached map never shows a sold seat as free. A map read while the airline cannot tell its
//   version (version null) is not kept. Each map holds its answer pre-serialized
//   per segment as fragments around the session binding of the productCodes (product-code.ts), so a new
//   session costs one join, not a serialization. Bounded by count and by bytes (estimated, fragments included).
// - answers: the whole response body for a (session binding, segments, versions), and its gzip, so the same
//   session asking again costs a lookup. A gzip answer is made from a gzip template of its segments and
//   versions (decision 0043, src/gzip-template.ts): compressed once, each session's binding then written into
//   its bytes, so a new session costs ~1 µs instead of compressing 58 KB again. Bounded by bytes, least
//   recently used out first. An answer is kept from its second request on (if it comes soon): most sessions
//   ask once, and keeping their answers only churned the store and the garbage collector. An answer not kept is written into a spare buffer that
//   comes back once the response is out (no allocation, no page faults, no garbage per answer).
import { gzipSync, constants as zlib } from 'node:zlib';
import type { SeatMapAnswer, SeatMapCabin } from '../airline/connector.js';
import { BoundedMap } from '../bounded-map.js';
import { GzipTemplate } from '../gzip-template.js';

export interface CachedSeatMap {
  key: string;
  version: string | null;
  cabins: SeatMapCabin[];
  /** Per segment signature: the serialized cabins, and where in them the session binding goes. */
  fragments: Map<string, Fragment>;
  /** What it holds, estimated (cabinsBytes, then each fragment's bytes): the maps' store is bounded by it. */
  bytes: number;
  /** The order its load started in (SeatMapCache's count): a map read by an earlier load never replaces it. */
  loadedAt: number;
}

/** One segment of an answer: its map, and how its productCodes are written. */
export interface SeatAnswerPart {
  map: CachedSeatMap;
  /** What the fragments depend on besides the map: segment index, carrier, airports. */
  signature: string;
  /** The session binding written into every productCode of the part. */
  binding: string;
  /** The wire cabins of this part with `binding` as the productCodes' binding (called on a fragment miss). */
  wireCabins(binding: string): object[];
}

/** Serializes a whole success body `{status, msg, cabins}` as the route's response schema does. */
export type Serialize = (body: { status: number; msg: string; cabins: object[] }) => string;

export interface SeatAnswerBytes {
  /** The response body to send: the JSON, or its gzip when asked for with gzip. */
  bytes: Buffer;
  gzip: boolean;
  /**
   * Present when `bytes` is a reused buffer (an answer asked for the first time, not kept): call it once the
   * response has been written out (the response's 'finish'), never before. Not calling it is safe.
   */
  release?: () => void;
}

/** A part's cabins as bytes with a placeholder binding, and the byte offsets of the placeholders. */
interface Fragment {
  template: Buffer;
  offsets: number[];
}

const MAX_MAPS = 5_000;
/**
 * The maps' store holds at most this many bytes (estimated): a wide-body map is ~47 KB of objects and ~58 KB per
 * segment signature of serialized fragments, so 5,000 maps could hold half a gigabyte. Past the bound the store
 * is emptied (as a BoundedMap is: the maps asked for again are read again, each once).
 */
const MAX_MAP_BYTES = 128 * 1024 * 1024;
/** Measured on a 777 map (2026-12-01, V8 heap): ~148 bytes of objects a seat; a row's object and array besides. */
const SEAT_OBJECT_BYTES = 160;
const ROW_OBJECT_BYTES = 64;
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** Stands for the binding while fragments are made: 10 characters that no seat map contains otherwise. */
const PLACEHOLDER = 'Qz7Bnd0Qz7';
const PLACEHOLDER_BYTES = Buffer.from(PLACEHOLDER, 'latin1');
/**
 * Stand for the bindings of an answer's segments in its gzip template: control characters, which the JSON of a
 * map never holds raw, ten different ones per segment. An answer of more segments is compressed as it is.
 */
const GZIP_SENTINELS = [0, 10, 20].map((first) => Uint8Array.from({ length: 10 }, (_, i) => first + i));
const GZIP_SENTINEL_TEXT = GZIP_SENTINELS.map((s) => Buffer.from(s).toString('latin1'));
/**
 * gzip templates kept (~2.5 KB each for a wide-body map): one per answer shape (its maps and segments), at the
 * maps' current versions (a newer version's template replaces the older's), not per session.
 */
const MAX_GZIP_TEMPLATES = 1_000;
/**
 * Answer keys asked once (not yet kept), the most recent first-asks only: a second request soon after the
 * first keeps the answer; one that comes after this many other first-asks is treated as a first again (its
 * answer would have left the answer store by then anyway).
 */
const MAX_ASKED_ONCE = 1_024;
/**
 * Spare buffers, by answer length, at most this many bytes in all (about 140 answers of a wide-body map): a
 * fresh 58 KB buffer per answer cost its page faults and the GC's work.
 */
const MAX_SPARE_BYTES = 8 * 1024 * 1024;

interface StoredAnswer {
  body: Buffer;
  gzip?: Buffer;
  size: number;
}

/** Counts since start, read by /metrics: answers served from kept bytes or built, maps reused or read. */
export interface SeatMapCacheStats {
  answerHits: number;
  answerMisses: number;
  mapHits: number;
  mapMisses: number;
  /** gzip answers written from a template, templates made, and answers compressed one by one (no template). */
  gzipSpliced: number;
  gzipTemplatesMade: number;
  gzipCompressed: number;
}

export class SeatMapCache {
  readonly stats: SeatMapCacheStats = { answerHits: 0, answerMisses: 0, mapHits: 0, mapMisses: 0, gzipSpliced: 0, gzipTemplatesMade: 0, gzipCompressed: 0 };
  private readonly maps = new Map<string, CachedSeatMap>();
  /** Loads in flight, by key and version (`key@version`): concurrent misses share one. */
  private readonly loading = new Map<string, Promise<CachedSeatMap | Exclude<SeatMapAnswer, { ok: true }>>>();
  private loadsStarted = 0;
  private mapBytes = 0;
  private readonly answers = new Map<string, StoredAnswer>();
  private answerBytes = 0;
  private readonly askedOnce = new Set<string>();
  private readonly spare = new Map<number, Buffer[]>();
  private spareBytes = 0;
  private frame: { head: Buffer; tail: Buffer } | null = null;
  /** By the answer's maps and signatures, with the maps' versions it was made at; null: cannot be spliced. */
  private readonly gzipTemplates = new BoundedMap<string, { versions: string; template: GzipTemplate | null }>(MAX_GZIP_TEMPLATES);

  /** `maxAnswerBytes`, `maxMapBytes`: the answer and map stores' bounds (tests lower them). */
  constructor(
    private readonly maxAnswerBytes = MAX_ANSWER_BYTES,
    private readonly maxMapBytes = MAX_MAP_BYTES,
  ) {}

  /** A map's key: the flight's leg (its airports: legs of a through flight share a number and a date), class, family. */
  static key(carrier: string, flightNumber: string, depDate: string, depAirport: string, arrAirport: string, cabinClass: number, fareFamily: string | null): string {
    return `${carrier}|${flightNumber}/${depDate}|${depAirport}-${arrAirport}|${cabinClass}|${fareFamily ?? ''}`;
  }

  /**
   * The map of `key` at the airline's current version, read through `load` when the cached one is stale or
   * missing. `version()` is the airline's current version (null: cannot tell, so nothing cached is used).
   * Concurrent misses of one key at one version share one load (a review: 20 concurrent requests made 20 loads);
   * a load's map replaces the kept one only if the kept one was not read by a load started later (a slower
   * load overwrote a newer map). A failed load is forgotten with its promise: the next request loads again.
   */
  async map(
    key: string,
    version: () => string | null | Promise<string | null>,
    load: () => Promise<SeatMapAnswer>,
  ): Promise<CachedSeatMap | Exclude<SeatMapAnswer, { ok: true }>> {
    const hit = this.maps.get(key);
    if (hit && hit.version !== null) {
      const v = version();
      const current = typeof v === 'string' || v === null ? v : await v;
      if (hit.version === current) {
        this.stats.mapHits++;
        return hit;
      }
      return this.miss(key, current, load);
    }
    const v = version();
    return this.miss(key, typeof v === 'string' || v === null ? v : await v, load);
  }

  /**
   * A miss: the load in flight for (key, version) joined, or one started. A version the airline cannot tell (null)
   * is not shared: a load in flight may have read the map before a sale the caller's request came after.
   */
  private async miss(key: string, version: string | null, load: () => Promise<SeatMapAnswer>): Promise<CachedSeatMap | Exclude<SeatMapAnswer, { ok: true }>> {
    this.stats.mapMisses++;
    if (version === null) return this.load(key, load);
    const flight = `${key}@${version}`;
    let pending = this.loading.get(flight);
    if (!pending) {
      pending = this.load(key, load);
      this.loading.set(flight, pending);
      const done = () => {
        if (this.loading.get(flight) === pending) this.loading.delete(flight);
      };
      pending.then(done, done);
    }
    return pending;
  }

  private async load(key: string, load: () => Promise<SeatMapAnswer>): Promise<CachedSeatMap | Exclude<SeatMapAnswer, { ok: true }>> {
    const started = ++this.loadsStarted;
    const answer = await load();
    // Only real maps are kept: a refusal may be a passing failure.
    if (!answer.ok) return answer;
    const entry: CachedSeatMap = { key, version: answer.version, cabins: answer.cabins, fragments: new Map(), bytes: cabinsBytes(answer.cabins), loadedAt: started };
    const kept = this.maps.get(key);
    // A map read by a load started later is at the same version or a newer one: it stays.
    if (kept && kept.loadedAt > started) return kept.version === entry.version ? kept : entry;
    this.forgetMap(key);
    if (entry.version !== null) {
      if (this.maps.size >= MAX_MAPS) this.clearMaps();
      this.maps.set(key, entry);
      this.grewMap(entry, entry.bytes);
    }
    return entry;
  }

  /** Bytes held by kept maps, their fragments included (estimated; bounded by maxMapBytes; a test reads it). */
  get mapStoreBytes(): number {
    return this.mapBytes;
  }

  /** Maps kept (bounded by MAX_MAPS and maxMapBytes; a test reads it). */
  get mapCount(): number {
    return this.maps.size;
  }

  private forgetMap(key: string): void {
    const old = this.maps.get(key);
    if (!old) return;
    this.maps.delete(key);
    this.mapBytes -= old.bytes;
  }

  private clearMaps(): void {
    this.maps.clear();
    this.mapBytes = 0;
  }

  /** `map` (kept or not) holds `bytes` more: counted if it is the one kept, and the store emptied past its bound. */
  private grewMap(map: CachedSeatMap, bytes: number): void {
    if (this.maps.get(map.key) !== map) return;
    this.mapBytes += bytes;
    if (this.mapBytes > this.maxMapBytes) this.clearMaps();
  }

  /** The response body of these parts (and its gzip when asked), from the answer cache or joined from fragments. */
  bytes(parts: SeatAnswerPart[], gzip: boolean, serialize: Serialize): SeatAnswerBytes {
    let key = '';
    for (const p of parts) key += `${p.map.key}@${p.map.version ?? '-'}#${p.signature}#${p.binding}|`;
    const cacheable = parts.every((p) => p.map.version !== null);
    let stored = cacheable ? this.answers.get(key) : undefined;
    if (stored) this.stats.answerHits++;
    else this.stats.answerMisses++;
    if (stored) {
      // least recently used goes first: move to the end
      this.answers.delete(key);
      this.answers.set(key, stored);
    } else if (cacheable && this.askedOnce.delete(key)) {
      // asked a second time: kept from now on
      const body = this.join(parts, serialize, false);
      stored = { body, size: body.length };
      this.remember(key, stored);
    } else {
      if (cacheable) {
        if (this.askedOnce.size >= MAX_ASKED_ONCE) this.askedOnce.delete(this.askedOnce.values().next().value!);
        this.askedOnce.add(key);
      }
      if (gzip) return { bytes: this.gzipOf(parts, serialize, null), gzip: true };
      // not kept: written into a spare buffer, given back once the response is out
      const body = this.join(parts, serialize, true);
      let given = false;
      const release = () => {
        if (given) return;
        given = true;
        this.giveBack(body);
      };
      return { bytes: body, gzip: false, release };
    }
    if (gzip && !stored.gzip) {
      stored.gzip = this.gzipOf(parts, serialize, stored.body);
      if (cacheable && this.answers.has(key)) {
        stored.size += stored.gzip.length;
        this.answerBytes += stored.gzip.length;
        // the store grew: back under its bound, least recently used first (this answer, just used, goes last)
        this.evictOverBound();
      }
    }
    return gzip ? { bytes: stored.gzip!, gzip: true } : { bytes: stored.body, gzip: false };
  }

  /**
   * The gzip of these parts' answer: from the template of their maps and signatures when one can be made (the
   * same bytes whichever request makes them, kept answer or not), otherwise `body` (or the answer joined for
   * it) compressed.
   */
  private gzipOf(parts: SeatAnswerPart[], serialize: Serialize, body: Buffer | null): Buffer {
    const template = this.gzipTemplate(parts, serialize);
    if (template) {
      this.stats.gzipSpliced++;
      return template.render(parts.map((p) => Buffer.from(p.binding, 'latin1')));
    }
    this.stats.gzipCompressed++;
    if (body) return gzipSync(body, { level: zlib.Z_BEST_SPEED });
    const joined = this.join(parts, serialize, true);
    const zipped = gzipSync(joined, { level: zlib.Z_BEST_SPEED });
    this.giveBack(joined);
    return zipped;
  }

  /**
   * The gzip template of these parts (their maps at their versions, their signatures), made on first use; null
   * for a map of no version (made again for every answer, it would cost more than it saves), more segments than
   * sentinels, or a template that cannot be spliced exactly.
   */
  private gzipTemplate(parts: SeatAnswerPart[], serialize: Serialize): GzipTemplate | null {
    if (parts.length > GZIP_SENTINELS.length) return null;
    let shape = '';
    let versions = '';
    for (const p of parts) {
      if (p.map.version === null) return null;
      shape += `${p.map.key}#${p.signature}|`;
      versions += `${p.map.version}|`;
    }
    const kept = this.gzipTemplates.get(shape);
    if (kept !== undefined && kept.versions === versions) return kept.template;
    const bindings = parts.map((_, n) => GZIP_SENTINEL_TEXT[n]!);
    const template = GzipTemplate.build(this.join(parts, serialize, false, bindings), GZIP_SENTINELS.slice(0, parts.length));
    this.stats.gzipTemplatesMade++;
    this.gzipTemplates.set(shape, { versions, template });
    return template;
  }

  /**
   * head, each part's template with its binding (or `bindings[n]` for part n: the gzip template's sentinels)
   * written over the placeholders (comma separated), tail.
   */
  private join(parts: SeatAnswerPart[], serialize: Serialize, spare: boolean, bindings?: string[]): Buffer {
    const frame = this.frameOf(serialize);
    const pieces = parts.map((p, n) => ({ p, n, f: this.fragmentsOf(p, serialize) })).filter((x) => x.f.template.length > 0);
    let length = frame.head.length + frame.tail.length + Math.max(0, pieces.length - 1);
    for (const { f } of pieces) length += f.template.length;
    const reused = spare ? this.spare.get(length)?.pop() : undefined;
    if (reused) this.spareBytes -= reused.length;
    const out = reused ?? Buffer.allocUnsafeSlow(length);
    let at = frame.head.copy(out, 0);
    pieces.forEach(({ p, n, f }, i) => {
      if (i > 0) at += out.write(',', at, 'latin1');
      f.template.copy(out, at);
      const binding = Buffer.from(bindings?.[n] ?? p.binding, 'latin1');
      const size = binding.length;
      if (size !== PLACEHOLDER_BYTES.length) throw new Error('seat answer: a session binding is not 10 characters');
      // byte by byte: hundreds of 10-byte Buffer.copy calls cost more in their argument checks than in copying
      for (const off of f.offsets) {
        const to = at + off;
        for (let k = 0; k < size; k++) out[to + k] = binding[k]!;
      }
      at += f.template.length;
    });
    frame.tail.copy(out, at);
    return out;
  }

  private giveBack(buffer: Buffer): void {
    if (this.spareBytes + buffer.length > MAX_SPARE_BYTES) return; // left to the garbage collector
    let list = this.spare.get(buffer.length);
    if (!list) this.spare.set(buffer.length, (list = []));
    list.push(buffer);
    this.spareBytes += buffer.length;
  }

  /** Bytes held in spare buffers (bounded by MAX_SPARE_BYTES; a test reads it). */
  get spareBufferBytes(): number {
    return this.spareBytes;
  }

  private remember(key: string, stored: StoredAnswer): void {
    this.answers.set(key, stored);
    this.answerBytes += stored.size;
    this.evictOverBound();
  }

  /** gzip templates kept: one per answer shape, whatever its versions so far (a test reads it). */
  get gzipTemplateCount(): number {
    return this.gzipTemplates.size;
  }

  /** Bytes held by kept answers, their gzip included (bounded by maxAnswerBytes; a test reads it). */
  get answerStoreBytes(): number {
    return this.answerBytes;
  }

  /** Answers out, least recently used first, until the store holds maxAnswerBytes or less. */
  private evictOverBound(): void {
    for (const [k, v] of this.answers) {
      if (this.answerBytes <= this.maxAnswerBytes) break;
      this.answers.delete(k);
      this.answerBytes -= v.size;
    }
  }

  /** `{"status":0,"msg":"success","cabins":[` and `]}` as the route's serializer writes them. */
  private frameOf(serialize: Serialize): { head: Buffer; tail: Buffer } {
    if (this.frame) return this.frame;
    const empty = serialize({ status: 0, msg: 'success', cabins: [] });
    const at = empty.lastIndexOf('[]');
    if (at < 0) throw new Error('seat answer frame: the serializer wrote no empty cabins array');
    return (this.frame = { head: Buffer.from(empty.slice(0, at + 1)), tail: Buffer.from(empty.slice(at + 1)) });
  }

  private fragmentsOf(p: SeatAnswerPart, serialize: Serialize): Fragment {
    const hit = p.map.fragments.get(p.signature);
    if (hit) return hit;
    const frame = this.frameOf(serialize);
    const text = Buffer.from(serialize({ status: 0, msg: 'success', cabins: p.wireCabins(PLACEHOLDER) }));
    if (text.subarray(0, frame.head.length).compare(frame.head) !== 0 || text.subarray(text.length - frame.tail.length).compare(frame.tail) !== 0) {
      throw new Error('seat answer fragments: unexpected serializer output');
    }
    const template = Buffer.from(text.subarray(frame.head.length, text.length - frame.tail.length));
    const offsets: number[] = [];
    for (let at = template.indexOf(PLACEHOLDER_BYTES); at >= 0; at = template.indexOf(PLACEHOLDER_BYTES, at + PLACEHOLDER_BYTES.length)) offsets.push(at);
    const fragment = { template, offsets };
    p.map.fragments.set(p.signature, fragment);
    const bytes = template.length + 8 * offsets.length;
    p.map.bytes += bytes;
    this.grewMap(p.map, bytes);
    return fragment;
  }
}

/** The objects of a map's cabins, estimated from its seats and rows. */
function cabinsBytes(cabins: SeatMapCabin[]): number {
  let bytes = 0;
  for (const c of cabins) {
    bytes += ROW_OBJECT_BYTES * c.seatRows.length;
    for (const r of c.seatRows) bytes += SEAT_OBJECT_BYTES * r.seats.length;
  }
  return bytes;
}
