// What a webhook URL may be (docs/webhooks.md "Registering"): http or https, no user or password, no
// fragment, at most 2048 characters. Outside sandbox mode also https only and no loopback, private,
// link-local or unspecified address literal. Names are not resolved here (a name can resolve elsewhere later):
// the deliverer checks the addresses a name resolves to when it connects (egress.ts, decision 0022).
import { BlockList, isIP } from 'node:net';

export const WEBHOOK_URL_MAX = 2048;

/**
 * Address literals a webhook may not name outside sandbox mode: this host, private networks, link-local, shared
 * (CGN), multicast, reserved and unspecified. Node's BlockList matches an IPv4-mapped IPv6 address (`::ffff:…`,
 * which the URL parser writes in hex: `[::ffff:7f00:1]`) against the IPv4 ranges (found by a review: a regex for
 * the dotted form let `[::ffff:127.0.0.1]` through). IPv4-compatible (`::a.b.c.d`) and NAT64 (`64:ff9b::/96`)
 * forms are read as the IPv4 address they carry.
 */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
}
// loopback, unspecified, unique-local, link-local, site-local (deprecated, still routed by some), multicast, and
// the local-use NAT64 prefix (RFC 8215)
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b:1::', 48]] as const) {
  FORBIDDEN.addSubnet(net, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address, or null: the URL parser writes it canonically first (hex, `::`). */
function groupsOf(address: string): number[] | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(tail === null ? 0 : 8 - h.length - t.length).fill('0'), ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const v4Of = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * The IPv4 address an IPv6 address carries, in any spelling (hex or dotted, found by a review: a resolver answers
 * `::127.0.0.1` dotted): IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`), 6to4 (`2002:aabb:ccdd::/48`).
 * IPv4-mapped addresses BlockList matches itself.
 */
function embeddedV4(address: string): string | null {
  const g = groupsOf(address);
  if (!g) return null;
  if (g.slice(0, 6).every((x) => x === 0)) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4Of(g[1]!, g[2]!);
  return null;
}

/** Whether an address (IPv4 or IPv6, as written in a URL's host or answered by a resolver) is one a webhook may not reach. */
export function forbiddenAddress(host: string, ip: 4 | 6): boolean {
  if (ip === 4) return FORBIDDEN.check(host, 'ipv4');
  const v4 = embeddedV4(host);
  return FORBIDDEN.check(host, 'ipv6') || (v4 !== null && FORBIDDEN.check(v4, 'ipv4'));
}

/** Why the URL cannot be a webhook URL, or null when it can. */
export function webhookUrlProblem(raw: string, opts: { sandbox: boolean }): string | null {
  if (raw.length === 0) return 'url is empty';
  if (raw.length > WEBHOOK_URL_MAX) return `url is longer than ${WEBHOOK_URL_MAX} characters`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'url must be http or https';
  if (u.username !== '' || u.password !== '') return 'url must not carry a user name or password';
  if (raw.includes('#')) return 'url must not have a fragment';
  if (u.hostname === '') return 'url has no host';
  if (opts.sandbox) return null;
  if (u.protocol !== 'https:') return 'url must be https';
  // a name's trailing dot (the root) names the same host: `localhost.`
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'url must not point at this machine';
  const ip = isIP(host);
  if (ip !== 0 && forbiddenAddress(host, ip as 4 | 6)) return 'url must not be a loopback, private, link-local, multicast or reserved address';
  return null;
}
