import { maskUrlPassword } from '../config/index.ts';
import { pingRedisUrl } from '../daemon/healthCheck.ts';
import { startRedisServer } from './redisServer.ts';

export interface DemoRedis {
  readonly url: string;
  /** Where it came from, for the demo's narration. */
  readonly origin: string;
  stop(): Promise<void>;
}

/**
 * Redis for the demo: REDIS_URL when it answers; else a private `redis-server` on a free port
 * (nothing kept on disk), stopped with the demo; else an error that says what to do.
 */
export async function demoRedis(env: NodeJS.ProcessEnv): Promise<DemoRedis> {
  const fromEnv = env.REDIS_URL;
  if (fromEnv) {
    try {
      await pingRedisUrl(fromEnv, 2000);
      return { url: fromEnv, origin: 'REDIS_URL', stop: async () => {} };
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
      origin: `a private redis-server on port ${server.port}`,
      stop: () => server.stop(),
    };
  } catch (err) {
    throw new Error(`the demo needs Redis: set REDIS_URL, or ${(err as Error).message}`);
  }
}
