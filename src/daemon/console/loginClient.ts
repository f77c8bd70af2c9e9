import { BlockList, isIP } from 'node:net';
import { parseAddressRange } from '../../config/addressRange.ts';

/**
 * Who is logging in, for the console's slowing of wrong passwords (consoleAuth.ts): each client
 * waits behind its own attempts only, so that a stranger's guesses never keep an operator out.
 *
 * A client is the address its connection comes from; an IPv6 address counts by its /64 (one
 * customer's network: its owner can use any of 2^64 addresses), an IPv4-mapped one as IPv4.
 * Behind a reverse proxy every connection comes from the proxy, so all clients would be one:
 * when the connection comes from an address of CONSOLE_TRUSTED_PROXIES, the client is the
 * address the nearest untrusted hop gave, the last one of X-Forwarded-For that is not a trusted
 * proxy itself. X-Forwarded-For is never read otherwise: anyone can write it, and a header
 * taken on trust would give a guesser a fresh client for every guess.
 */

/** The addresses and ranges of CONSOLE_TRUSTED_PROXIES, or none. */
export interface TrustedProxies {
  has(address: string): boolean;
}

export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const r = parseAddressRange(entry);
    if (r === undefined) throw new Error(`not an IP address or CIDR range: '${entry}'`);
    if (r.prefix === undefined) list.addAddress(r.net, r.family);
    else list.addSubnet(r.net, r.prefix, r.family);
  }
  return {
    has(address) {
      const a = plainAddress(address);
      const v = isIP(a);
      return v !== 0 && list.check(a, v === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** `::ffff:192.0.2.7` (an IPv4 client of a dual-stack listener) is `192.0.2.7`. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** An IPv6 address's first four groups, written out (`2001:db8::1` → `2001:db8:0:0`). */
function ipv6Slash64(address: string): string {
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':');
}

/** The key one client's attempts are counted under. */
export function clientKey(address: string): string {
  const a = plainAddress(address);
  return isIP(a) === 6 ? `${ipv6Slash64(a)}::/64` : a;
}

/** The client a request comes from (see above); `unknown` when the socket has no address. */
export function loginClient(
  remote: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  if (remote === undefined) return 'unknown';
  if (!trusted.has(remote)) return clientKey(remote);
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(plainAddress(hop)) === 0) break; // not an address: go no further back
    if (!trusted.has(hop)) return clientKey(hop);
  }
  return clientKey(remote);
}
