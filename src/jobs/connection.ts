import { Redis, type RedisOptions } from 'ioredis';

/**
 * A Redis connection as BullMQ needs it: commands wait through a Redis restart instead of failing
 * (maxRetriesPerRequest null), and reconnects back off up to 5 s, for ever.
 */
export function redisConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(200 * times, 5000),
    ...extra,
  });
}
