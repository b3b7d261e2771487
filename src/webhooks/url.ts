// What a webhook URL may be (docs/webhooks.md "Registering"): http or https, no user or password, no
// fragment, at most 2048 characters. Outside sandbox mode also https only and no loopback, private,
// link-local or unspecified address literal (names are not resolved here: see decision 0022).
import { isIP } from 'node:net';

export const WEBHOOK_URL_MAX = 2048;

function privateV4(host: string): boolean {
  const [a, b] = host.split('.').map(Number) as [number, number];
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

function privateV6(host: string): boolean {
  const h = host.toLowerCase();
  if (h === '::' || h === '::1') return true;
  if (/^f[cd]/.test(h) || /^fe[89ab]/.test(h)) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped ? privateV4(mapped[1]!) : false;
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
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'url must not point at this machine';
  const ip = isIP(host);
  if ((ip === 4 && privateV4(host)) || (ip === 6 && privateV6(host))) return 'url must not be a loopback, private or link-local address';
  return null;
}
