import { isIP } from 'node:net';
import { ConfigError } from './configError.ts';
import type { Config } from './settings.ts';
import { redisUrls, reserveCalls } from './settingTypes.ts';

/**
 * Checks of settings that are each valid alone but cannot work together, run once the whole
 * configuration is read. Throws ConfigError naming the key to change; values are never quoted
 * back (a URL may hold a password).
 */
export function checkCombinations(config: Config): void {
  for (const [base, max, baseKey, maxKey] of [
    [config.backoffBaseMs, config.backoffMaxMs, 'API_BACKOFF_BASE_MS', 'API_BACKOFF_MAX_MS'],
    [
      config.failureBackoffBaseMs,
      config.failureBackoffMaxMs,
      'FAILURE_BACKOFF_BASE_MS',
      'FAILURE_BACKOFF_MAX_MS',
    ],
    [
      config.notifyRetryBaseMs,
      config.notifyRetryMaxMs,
      'NOTIFY_RETRY_BASE_MS',
      'NOTIFY_RETRY_MAX_MS',
    ],
  ] as const) {
    if (base > max) {
      throw new ConfigError(
        baseKey,
        `the first back-off (${base} ms) must not exceed ${maxKey} (${max})`,
      );
    }
  }
  checkReserves(config);
  const nodes = redisUrls(config.redisUrl).map((u) => new URL(u));
  if (nodes.length > 1 && !config.redisCluster) {
    throw new ConfigError(
      'REDIS_URL',
      `names ${nodes.length} Redis nodes: several are for a Redis Cluster (set REDIS_CLUSTER=true), one otherwise`,
    );
  }
  const credentials = (u: URL) => `${u.protocol} ${u.username} ${u.password}`;
  if (nodes.some((u) => credentials(u) !== credentials(nodes[0]!))) {
    throw new ConfigError(
      'REDIS_URL',
      'the nodes of a Redis Cluster must share one scheme (redis:// or rediss://), user and password',
    );
  }
  if (config.apiUrl !== undefined && !config.apiInsecure) {
    const url = new URL(config.apiUrl);
    if (url.protocol !== 'https:' && !isLoopback(url.hostname)) {
      throw new ConfigError(
        'SUPPLIER_API_URL',
        'must be https for a host that is not loopback (the password and token would cross the network unencrypted); set SUPPLIER_API_INSECURE=true to allow http anyway',
      );
    }
  }
}

/** localhost, 127.0.0.0/8 or ::1: traffic that never leaves the machine. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Each lane's reserve leaves it some of API_REQUESTS_PER_HOUR: a reserve of every call (an
 * absolute value meant for a larger budget, or 100%) would starve the lane for good, with a
 * `budget_wait` every hour and nothing else to say why.
 */
const WITH: Readonly<Record<string, string>> = {
  API_POLL_RESERVE: ' (with API_STOCK_RESERVE)',
  API_PRODUCTS_RESERVE: ' (with API_STOCK_RESERVE and API_POLL_RESERVE)',
};

function checkReserves(config: Config): void {
  const limit = config.requestsPerHour;
  const stock = reserveCalls(config.stockReserve, limit);
  const poll = stock + reserveCalls(config.pollReserve, limit);
  const lanes = [
    ['API_STOCK_RESERVE', 'stock pushes', stock],
    ['API_POLL_RESERVE', 'shipment polls', poll],
    [
      'API_PRODUCTS_RESERVE',
      'product creations',
      poll + reserveCalls(config.productsReserve, limit),
    ],
    ['API_RECONCILE_RESERVE', 'reconciliation reads', reserveCalls(config.reconcileReserve, limit)],
  ] as const;
  for (const [key, lane, kept] of lanes) {
    if (kept < limit) continue;
    const what = WITH[key] ?? '';
    throw new ConfigError(
      key,
      `leaves ${lane} nothing: ${kept} of the ${limit} calls an hour (API_REQUESTS_PER_HOUR) are kept from them${what}; use a smaller value or a share such as 10%`,
    );
  }
}
