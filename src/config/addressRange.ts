import { isIP } from 'node:net';

/** An IP address (`10.1.2.3`, `fd00::7`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export interface AddressRange {
  readonly net: string;
  /** The range's prefix length; undefined for one address. */
  readonly prefix?: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** Reads one address or CIDR range; undefined when it is neither. */
export function parseAddressRange(entry: string): AddressRange | undefined {
  const [net = '', bits, extra] = entry.trim().split('/');
  const v = isIP(net);
  if (v === 0 || extra !== undefined) return undefined;
  const family = v === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) return { net, family };
  const prefix = Number(bits);
  if (!/^\d{1,3}$/.test(bits) || prefix > (v === 4 ? 32 : 128)) return undefined;
  return { net, prefix, family };
}
