import { Redis } from 'ioredis';
import { pingRedisUrl } from '../../src/daemon/healthCheck.ts';
import { startRedisServer } from '../../src/demo/redisServer.ts';

/** A Redis for a benchmark that runs the daemon: REDIS_URL when it answers, else a private one. */
export interface BenchRedis {
  readonly url: string;
  /** 'env' (REDIS_URL) or 'private' (a redis-server started here). */
  readonly origin: 'env' | 'private';
  /** Deletes every key under `prefix:`, and stops the private server if one was started. */
  close(prefix?: string): Promise<void>;
}

/** As the test suite does (test/setup/redis.ts): REDIS_URL if it answers, else redis-server. */
export async function startRedis(): Promise<BenchRedis> {
  const fromEnv = process.env.REDIS_URL;
  if (
    fromEnv &&
    (await pingRedisUrl(fromEnv, 1000).then(
      () => true,
      () => false,
    ))
  ) {
    return {
      url: fromEnv,
      origin: 'env',
      close: async (prefix) => {
        if (prefix) await deleteKeys(fromEnv, `${prefix}:*`);
      },
    };
  }
  const server = await startRedisServer();
  return {
    url: server.url,
    origin: 'private',
    close: async (prefix) => {
      if (prefix) await deleteKeys(server.url, `${prefix}:*`).catch(() => 0);
      await server.stop();
    },
  };
}

/** Deletes the keys matching a pattern (SCAN, then DEL); returns how many. */
export async function deleteKeys(url: string, pattern: string): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}
