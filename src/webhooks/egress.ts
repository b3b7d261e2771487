// Where the deliverer's POSTs may go (decision 0022): outside sandbox mode a webhook's host name is resolved when
// a connection is made and the connection refused when any address it resolves to is one a webhook URL may not
// name (loopback, private, link-local, shared, multicast, reserved, unspecified). Checking at registration
// alone would let a name that resolves to an internal address — or is changed to resolve to one later — reach
// the deliverer's network (found by a review). The check is made where the connection is made, on the address
// used, so a name answering differently between a check and the connect cannot slip through.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { forbiddenAddress } from './url.js';

/** The words of a refused connection, kept with the attempt: no address (the attempt is shown to operators). */
export const FORBIDDEN_TARGET = "the webhook URL's host resolves to a loopback, private, link-local, multicast or reserved address";

export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/** A `lookup` for net/tls.connect that answers only public addresses: any forbidden one refuses the name. */
export function publicOnlyLookup(resolve: Resolver = dns.lookup): LookupFunction {
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

/** The connection pool of the deliverer's POSTs: outside sandbox mode, to public addresses only. */
export function webhookAgent(opts: { sandbox: boolean; resolve?: Resolver }): Agent {
  return opts.sandbox ? new Agent() : new Agent({ connect: { lookup: publicOnlyLookup(opts.resolve) } });
}
