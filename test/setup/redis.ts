import type { TestProject } from 'vitest/node';
import { pingRedisUrl } from '../../src/daemon/healthCheck.ts';
import { startRedisServer } from '../../src/demo/redisServer.ts';

export { freePort } from '../../src/demo/redisServer.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/**
 * Finds a Redis for the suite: REDIS_URL when it answers, else a private redis-server on a free
 * port (stopped after the run). Tests read the URL with inject('redisUrl').
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.REDIS_URL;
  if (
    fromEnv &&
    (await pingRedisUrl(fromEnv, 1000).then(
      () => true,
      () => false,
    ))
  ) {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  const server = await startRedisServer();
  project.provide('redisUrl', server.url);
  return () => server.stop();
}
