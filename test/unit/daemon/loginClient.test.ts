/**
 * Who a login attempt comes from (src/daemon/console/loginClient.ts): the connection's address,
 * an IPv6 one by its /64; X-Forwarded-For only from a trusted proxy. Over HTTP:
 * test/ops/console.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { clientKey, loginClient, trustedProxies } from '../../../src/daemon/console/loginClient.ts';

const none = trustedProxies([]);
const proxies = trustedProxies(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);

describe('the client of a login attempt', () => {
  it('is the connection’s address; IPv4 as IPv4 however the listener saw it; IPv6 by its /64', () => {
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0000:0002::1')).toBe('2001:db8:0:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(loginClient(undefined, undefined, none)).toBe('unknown');
  });

  it('never reads X-Forwarded-For from a connection that is no trusted proxy', () => {
    expect(loginClient('192.0.2.7', '198.51.100.1', none)).toBe('192.0.2.7');
    expect(loginClient('192.0.2.7', '198.51.100.1', proxies)).toBe('192.0.2.7');
    expect(loginClient('127.0.0.1', '198.51.100.1', none)).toBe('127.0.0.1');
  });

  it('behind trusted proxies is the last address of X-Forwarded-For that is not one of them', () => {
    expect(loginClient('127.0.0.1', '198.51.100.1', proxies)).toBe('198.51.100.1');
    expect(loginClient('::ffff:127.0.0.1', '198.51.100.1', proxies)).toBe('198.51.100.1');
    // What the client wrote itself comes first and is not taken: the hop the proxies saw is.
    expect(loginClient('10.0.0.5', '1.1.1.1, 198.51.100.1, 10.9.9.9', proxies)).toBe(
      '198.51.100.1',
    );
    expect(loginClient('10.0.0.5', ['1.1.1.1', '2001:db8:7:7::1'], proxies)).toBe(
      '2001:db8:7:7::/64',
    );
    // Nothing but proxies, no header, or a hop that is no address: the proxy's own.
    expect(loginClient('10.0.0.5', '10.1.1.1', proxies)).toBe('10.0.0.5');
    expect(loginClient('10.0.0.5', undefined, proxies)).toBe('10.0.0.5');
    expect(loginClient('10.0.0.5', '198.51.100.1, unknown', proxies)).toBe('10.0.0.5');
  });

  it('trusted proxies are addresses or CIDR ranges', () => {
    expect(proxies.has('10.200.3.4')).toBe(true);
    expect(proxies.has('11.0.0.1')).toBe(false);
    expect(proxies.has('fd12::1')).toBe(true);
    expect(proxies.has('not an address')).toBe(false);
    expect(() => trustedProxies(['10.0.0.0/33'])).toThrow(/10\.0\.0\.0\/33/);
    expect(() => trustedProxies(['proxy.internal'])).toThrow(/proxy\.internal/);
  });
});
