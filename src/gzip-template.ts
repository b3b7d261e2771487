// A gzip answer made once for many callers whose bytes differ only in a few known places (decision 0043): the
// seat maps, whose productCodes carry the session's binding (10 characters, the same in every productCode of a
// segment). Compressing 58 KB again for every new session cost ~40 µs of the event loop per answer; a template
// is compressed once and each answer is then its bytes with a few codes overwritten and its CRC adjusted.
//
// How it stays exact:
// - The template holds, where each value goes, a sentinel: bytes that occur nowhere else in the template (the
//   seat maps' JSON never holds a raw control character), all different within a sentinel. zlib compresses it
//   with fixed Huffman codes (`Z_FIXED`), where every byte below 144 is written as a literal of 8 bits.
// - The compressed stream is decoded here once, to find every literal that writes a sentinel byte (its bit
//   position). A back-reference copies bytes from earlier in the output: as a sentinel byte stands at one
//   offset of one sentinel only, a copy that takes a sentinel's byte puts it where the same value goes. So
//   writing a value's byte as each of its sentinel byte's literals (8 bits for 8 bits: nothing after them moves)
//   makes a stream that decompresses to the template with the values in place. The decoded output is compared
//   with the template byte for byte, and a stream that is not all fixed or stored blocks is refused.
// - The CRC-32 of the answer is the template's XOR a part that is linear in the differences (value XOR
//   sentinel) at the sentinels: kept as 8 vectors per sentinel byte, worked out once with zlib's crc32.
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** A sentinel's bytes: different from one another, each below 144, none elsewhere in the template. */
export type Sentinel = Uint8Array;

/** gzip's header as zlib writes it at its best level (XFL 2: "maximum compression"), no name, no time, Unix. */
const HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3);

/** The fixed Huffman code of each literal below 144 (0x30 + value, 8 bits), in the stream's bit order. */
const LITERAL_BITS = new Uint8Array(144);
for (let v = 0; v < 144; v++) {
  const code = 0x30 + v;
  let reversed = 0;
  for (let i = 0; i < 8; i++) reversed |= ((code >> i) & 1) << (7 - i);
  LITERAL_BITS[v] = reversed;
}

/** Zero bytes to run CRC-32's register over (a sentinel is at most this long). */
const ZEROS = Buffer.alloc(256);

/** CRC-32's register after `count` more zero bytes (zlib's crc32 works on the register inverted). */
function zeroBytes(register: number, count: number): number {
  return ~crc32(ZEROS.subarray(0, count), ~register >>> 0);
}

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/** Where a value's byte is written: a literal's bit position (fixed block) or a byte of a stored block. */
interface Patch {
  /** Bit position in the deflate stream (a stored block's byte: its position × 8). */
  bit: number;
  stored: boolean;
  /** Which sentinel, and which of its bytes. */
  sentinel: number;
  index: number;
}

export class GzipTemplate {
  private constructor(
    private readonly deflated: Buffer,
    private readonly patches: Patch[],
    private readonly sentinels: readonly Sentinel[],
    /** CRC-32 of the template as it is (sentinels in place). */
    private readonly crc: number,
    /** The CRC's change for each of the 8 bits of (value XOR sentinel), 8 per sentinel byte, in order. */
    private readonly crcBasis: Int32Array,
    private readonly size: number,
  ) {}

  /** The compressed stream's length (the answers are 18 bytes longer: gzip's header and trailer). */
  get deflatedLength(): number {
    return this.deflated.length;
  }

  /**
   * A template for `template`, in which every byte of a sentinel of `sentinels` stands for a value given to
   * `render`; null when it cannot be made exact (a sentinel byte outside a whole sentinel, or zlib's stream in a
   * form this reader does not take): the caller then compresses each answer itself.
   */
  static build(template: Uint8Array, sentinels: readonly Sentinel[]): GzipTemplate | null {
    const slotOf = new Int32Array(256).fill(-1);
    sentinels.forEach((s, n) => {
      s.forEach((byte, i) => {
        if (byte >= 144 || slotOf[byte] !== -1 || s.length > ZEROS.length) throw new Error('gzip template: sentinel bytes are below 144 and all different');
        slotOf[byte] = n * 256 + i;
      });
    });
    // every sentinel byte stands inside a whole sentinel, at its own offset; where each sentinel's last byte stands
    const lastPlaces: number[][] = sentinels.map(() => []);
    for (let at = 0; at < template.length; at++) {
      const slot = slotOf[template[at]!]!;
      if (slot < 0) continue;
      const s = sentinels[slot >> 8]!;
      const start = at - (slot & 255);
      if (start < 0 || start + s.length > template.length) return null;
      for (let i = 0; i < s.length; i++) if (template[start + i] !== s[i]) return null;
      if ((slot & 255) === s.length - 1) lastPlaces[slot >> 8]!.push(at);
    }
    // a copy: zlib's answer is a slice of its 16 KB output buffer, which a kept template would hold whole
    const deflated = Buffer.from(deflateRawSync(template, { level: constants.Z_BEST_COMPRESSION, strategy: constants.Z_FIXED }));
    const patches = locateLiterals(deflated, template, slotOf);
    if (!patches) return null;
    // CRC-32 is affine in the message: crc(m ^ d) = crc(m) ^ crc(d) ^ crc(zeros), and crc(d) ^ crc(zeros) is
    // CRC's register run from 0 over d. For each sentinel's last byte and each bit, d holds that bit at every
    // place the byte stands; a byte k places before it changes the register as that one followed by k zeros.
    const zerosCrc = crc32(Buffer.alloc(template.length));
    const d = Buffer.alloc(template.length);
    const crcBasis = new Int32Array(8 * sentinels.reduce((sum, s) => sum + s.length, 0));
    let at = 0;
    sentinels.forEach((s, n) => {
      const last = new Int32Array(8);
      for (let bit = 0; bit < 8; bit++) {
        for (const p of lastPlaces[n]!) d[p] = 1 << bit;
        last[bit] = crc32(d) ^ zerosCrc;
        for (const p of lastPlaces[n]!) d[p] = 0;
      }
      for (let i = 0; i < s.length; i++) for (let bit = 0; bit < 8; bit++) crcBasis[at++] = zeroBytes(last[bit]!, s.length - 1 - i);
    });
    return new GzipTemplate(deflated, patches, sentinels, crc32(template), crcBasis, template.length);
  }

  /**
   * The gzip of the template with `values[n]` in place of every occurrence of sentinel n (each value as long as
   * its sentinel, every byte below 144: the seat bindings are letters and digits).
   */
  render(values: readonly Uint8Array[]): Buffer {
    if (values.length !== this.sentinels.length) throw new Error('gzip template: one value per sentinel');
    let crc = this.crc;
    let basis = 0;
    for (let n = 0; n < values.length; n++) {
      const value = values[n]!;
      const sentinel = this.sentinels[n]!;
      if (value.length !== sentinel.length) throw new Error('gzip template: a value is as long as its sentinel');
      for (let i = 0; i < value.length; i++, basis += 8) {
        if (value[i]! >= 144) throw new Error('gzip template: value bytes are below 144');
        const diff = value[i]! ^ sentinel[i]!;
        for (let bit = 0; bit < 8; bit++) if (diff & (1 << bit)) crc ^= this.crcBasis[basis + bit]!;
      }
    }
    const out = Buffer.allocUnsafe(HEADER.length + this.deflated.length + 8);
    out.set(HEADER, 0);
    this.deflated.copy(out, HEADER.length);
    for (const p of this.patches) {
      const byte = values[p.sentinel]![p.index]!;
      if (p.stored) {
        out[HEADER.length + (p.bit >> 3)] = byte;
        continue;
      }
      const at = HEADER.length + (p.bit >> 3);
      const shift = p.bit & 7;
      const bits = LITERAL_BITS[byte]! << shift;
      const mask = 0xff << shift;
      out[at] = (out[at]! & ~mask) | (bits & 0xff);
      if (shift > 0) out[at + 1] = (out[at + 1]! & ~(mask >> 8)) | (bits >> 8);
    }
    const end = HEADER.length + this.deflated.length;
    out.writeInt32LE(crc | 0, end);
    out.writeUInt32LE(this.size >>> 0, end + 4);
    return out;
  }
}

/**
 * Decodes a raw deflate stream of fixed and stored blocks, checks that it writes `expected`, and returns where
 * it writes a sentinel byte as a literal; null for a dynamic block or any difference.
 */
function locateLiterals(stream: Buffer, expected: Uint8Array, slotOf: Int32Array): Patch[] | null {
  let bitPos = 0;
  const totalBits = stream.length * 8;
  const bit = (): number => {
    if (bitPos >= totalBits) throw new RangeError('gzip template: stream ends early');
    const b = (stream[bitPos >> 3]! >> (bitPos & 7)) & 1;
    bitPos++;
    return b;
  };
  const bits = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++) v |= bit() << i;
    return v;
  };
  const out = new Uint8Array(expected.length);
  let written = 0;
  const patches: Patch[] = [];
  const put = (byte: number, at: number, stored: boolean): boolean => {
    if (written >= out.length || byte !== expected[written]) return false;
    const slot = slotOf[byte]!;
    if (slot >= 0) patches.push({ bit: at, stored, sentinel: slot >> 8, index: slot & 255 });
    out[written++] = byte;
    return true;
  };
  try {
    for (let last = 0; !last; ) {
      last = bit();
      const type = bits(2);
      if (type === 0) {
        bitPos = (bitPos + 7) & ~7;
        const len = bits(16);
        if ((bits(16) ^ 0xffff) !== len) return null;
        for (let i = 0; i < len; i++) {
          const at = bitPos;
          if (!put(bits(8), at, true)) return null;
        }
        continue;
      }
      if (type !== 1) return null; // dynamic Huffman (Z_FIXED never writes one) or reserved
      for (;;) {
        const at = bitPos;
        let code = 0;
        for (let i = 0; i < 7; i++) code = (code << 1) | bit();
        let symbol: number;
        if (code <= 0b0010111) symbol = 256 + code;
        else {
          code = (code << 1) | bit();
          if (code >= 0x30 && code <= 0xbf) symbol = code - 0x30;
          else if (code >= 0xc0 && code <= 0xc7) symbol = 280 + code - 0xc0;
          else symbol = 144 + (((code << 1) | bit()) - 0x190);
        }
        if (symbol < 256) {
          if (!put(symbol, at, false)) return null;
          continue;
        }
        if (symbol === 256) break;
        if (symbol > 285) return null;
        const length = LENGTH_BASE[symbol - 257]! + bits(LENGTH_EXTRA[symbol - 257]!);
        let dcode = 0;
        for (let i = 0; i < 5; i++) dcode = (dcode << 1) | bit();
        if (dcode > 29) return null;
        const distance = DISTANCE_BASE[dcode]! + bits(DISTANCE_EXTRA[dcode]!);
        if (distance > written) return null;
        for (let i = 0; i < length; i++) {
          // a copied sentinel byte is not a patch: it takes the value written where it is copied from
          const byte = out[written - distance]!;
          if (written >= out.length || byte !== expected[written]) return null;
          out[written++] = byte;
        }
      }
    }
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
  return written === expected.length ? patches : null;
}
