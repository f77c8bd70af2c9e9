import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { type Config, redisUrls } from '../config/index.ts';

/** A connection to one Redis or to a Redis Cluster: BullMQ and the daemon take either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: REDIS_URL, and whether it names nodes of a cluster (REDIS_CLUSTER). */
export type RedisTarget = Pick<Config, 'redisUrl' | 'redisCluster'>;

/**
 * A Redis connection as BullMQ needs it: commands wait through a Redis restart instead of failing
 * (maxRetriesPerRequest null), and reconnects back off up to 5 s, for ever. `target` is the
 * configuration's Redis (REDIS_URL, REDIS_CLUSTER) or one URL. Every Redis connection of the
 * daemon, its commands and the demo is made here, so that each runs on a cluster as on one Redis.
 *
 * On a cluster, REDIS_URL's nodes are where the client starts (it learns the others from them)
 * and their scheme (rediss: TLS), user and password hold for every node; `extra` applies to each
 * node's connection, its retryStrategy to the cluster's reconnects.
 */
export function redisConnection(
  target: RedisTarget | string,
  extra: RedisOptions = {},
): RedisClient {
  const { redisUrl, redisCluster } =
    typeof target === 'string' ? { redisUrl: target, redisCluster: false } : target;
  const options: RedisOptions = {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(200 * times, 5000),
    ...extra,
  };
  if (!redisCluster) return new Redis(redisUrl, options);
  const nodes = redisUrls(redisUrl).map((u) => new URL(u));
  const first = nodes[0]!;
  const { retryStrategy, lazyConnect, ...perNode } = options;
  return new Cluster(
    nodes.map((u) => ({
      host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(u.port || 6379),
    })),
    {
      clusterRetryStrategy: retryStrategy ?? (() => null),
      lazyConnect: lazyConnect ?? false,
      enableReadyCheck: true,
      // A failover moves slots to a replica within seconds: commands wait for it rather than fail.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      redisOptions: {
        ...perNode,
        ...(first.username === '' ? {} : { username: decodeURIComponent(first.username) }),
        ...(first.password === '' ? {} : { password: decodeURIComponent(first.password) }),
        ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
      },
    },
  );
}

/**
 * The key prefix BullMQ is given for SYNC_QUEUE_PREFIX over `client`. On a cluster, every key of
 * a BullMQ queue must hash to one slot (its scripts touch several keys at once) and a daemon's
 * queues are best kept together: a prefix without a hash tag is used in braces whole (`acme` →
 * `{acme}`), one with a tag (`{acme}`, `sync-{acme}`) as written. On one Redis, always as written.
 */
export function queueKeyPrefix(prefix: string, client: RedisClient): string {
  if (!client.isCluster || /\{[^}]+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}

/**
 * The name a daemon's Redis connection carries (CLIENT SETNAME), so that CLIENT LIST shows whose
 * it is and what it is for: `PREFIX:daemon` (queues, nudges, the workers' commands, status) and
 * `PREFIX:workers` (the workers' one blocking wait for work). Every connection of a daemon is one
 * of these two: `CLIENT LIST` lines named `PREFIX:…` are one supplier's.
 */
export function connectionName(prefix: string, role: 'daemon' | 'workers'): string {
  return `${prefix}:${role}`;
}
