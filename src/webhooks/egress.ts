// Where the deliverer's POSTs may go (decision 0022): outside sandbox mode a webhook's host name is resolved when
// a connection is made and the connection refused when any address it resolves to is one a webhook URL may not
// name (loopback, private, link-local, shared, multicast, reserved, unspecified). Checking at registration
// alone would let a name that resolves to an internal address — or is changed to resolve to one later — reach
// the deliverer's network (found by a review). The check is made where the connection is made, on the address
// used, so a name answering differently between a check and the connect cannot slip through. Names are resolved
// by DNS queries on the event loop (`dnsResolve`), not on libuv's thread pool.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, fetch } from 'undici';
import { forbiddenAddress } from './url.js';

/** The words of a refused connection, kept with the attempt: no address (the attempt is shown to operators). */
export const FORBIDDEN_TARGET = "the webhook URL's host resolves to a loopback, private, link-local, multicast or reserved address";

/** How long the deliverer's DNS queries wait for an answer (each of two tries). */
const RESOLVE_TIMEOUT_MS = 2_000;

export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

const dnsResolver = new dns.promises.Resolver({ timeout: RESOLVE_TIMEOUT_MS, tries: 2 });

/**
 * The deliverer's resolver: DNS itself (c-ares, asynchronous on the event loop), not the system's getaddrinfo,
 * which runs on libuv's four pool threads and cannot be stopped — a client's name whose nameserver never answers
 * kept a thread per attempt busy past the POST's time-out, and the process's file writes and password checks
 * waited behind them (found by a review). A webhook host is a public DNS name: /etc/hosts is not read.
 */
export const dnsResolve: Resolver = (hostname, options, callback) => {
  const want = (family: 4 | 6) => options.family === undefined || options.family === 0 || options.family === family;
  void Promise.allSettled([
    want(4) ? dnsResolver.resolve4(hostname) : Promise.resolve([]),
    want(6) ? dnsResolver.resolve6(hostname) : Promise.resolve([]),
  ]).then(([v4, v6]) => {
    const addresses: dns.LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return callback(null, addresses);
    const failed = [v4, v6].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    callback((failed?.reason as NodeJS.ErrnoException | undefined) ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
  });
};

/** A `lookup` for net/tls.connect that answers only public addresses: any forbidden one refuses the name. */
export function publicOnlyLookup(resolve: Resolver = dnsResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, Object.assign({}, options, { all: true as const }), (err, addresses) => {
      if (err) return callback(err, '', 4);
      if (addresses.length === 0 || addresses.some((a) => forbiddenAddress(a.address, a.family === 6 ? 6 : 4))) {
        const refused: NodeJS.ErrnoException = new Error(FORBIDDEN_TARGET);
        refused.code = 'EWEBHOOKTARGET';
        return callback(refused, '', 4);
      }
      // net.connect asks for all addresses when it tries both families (autoSelectFamily), one otherwise
      if (options.all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The deliverer's HTTP client: undici's fetch and the connection pool its POSTs go through. */
export interface WebhookClient {
  fetch: typeof fetch;
  agent: Agent;
}

/**
 * The deliverer's client, the pool connecting outside sandbox mode to public addresses only. undici is loaded here,
 * by the first POST: its ~110 modules cost every process start ~0.2 s of CPU, and most processes (the CLI's commands,
 * the refund workers, a service whose clients have no webhook) never send one.
 */
export async function webhookClient(opts: { sandbox: boolean; resolve?: Resolver }): Promise<WebhookClient> {
  const undici = await import('undici');
  const agent = opts.sandbox ? new undici.Agent() : new undici.Agent({ connect: { lookup: publicOnlyLookup(opts.resolve) } });
  return { fetch: undici.fetch, agent };
}
