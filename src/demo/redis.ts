import { ConfigError, maskUrlPassword, settings } from '../config/index.ts';
import { pingRedisUrl } from '../daemon/healthCheck.ts';
import { startRedisServer } from './redisServer.ts';

export interface DemoRedis {
  readonly url: string;
  /** Whether `url` names nodes of a Redis Cluster (REDIS_CLUSTER, with REDIS_URL). */
  readonly cluster: boolean;
  /** Where it came from, for the demo's narration. */
  readonly origin: string;
  stop(): Promise<void>;
}

/**
 * Redis for the demo: REDIS_URL (a Redis Cluster with REDIS_CLUSTER=true) when it answers; else a private `redis-server` on a free port
 * (nothing kept on disk), stopped with the demo; else an error that says what to do.
 */
export async function demoRedis(env: NodeJS.ProcessEnv): Promise<DemoRedis> {
  const fromEnv = env.REDIS_URL;
  if (fromEnv) {
    const parsed = settings.redisCluster.schema.safeParse(env.REDIS_CLUSTER ?? 'false');
    if (!parsed.success) throw new ConfigError('REDIS_CLUSTER', 'must be true or false');
    const cluster = parsed.data;
    try {
      await pingRedisUrl({ redisUrl: fromEnv, redisCluster: cluster }, 2000);
      return {
        url: fromEnv,
        cluster,
        origin: cluster ? 'REDIS_URL, a Redis Cluster' : 'REDIS_URL',
        stop: async () => {},
      };
    } catch (err) {
      throw new Error(
        `REDIS_URL=${maskUrlPassword(fromEnv)} does not answer (${(err as Error).message}); unset it to let the demo start its own redis-server`,
      );
    }
  }
  try {
    const server = await startRedisServer();
    return {
      url: server.url,
      cluster: false,
      origin: `a private redis-server on port ${server.port}`,
      stop: () => server.stop(),
    };
  } catch (err) {
    throw new Error(`the demo needs Redis: set REDIS_URL, or ${(err as Error).message}`);
  }
}
