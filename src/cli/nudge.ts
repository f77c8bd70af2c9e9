import type { ActionDeps } from '../actions/operator.ts';
import type { Config } from '../config/index.ts';
import { withTimeout } from '../domain/timeout.ts';
import { redisConnection } from '../jobs/connection.ts';
import { Nudges } from '../jobs/nudges.ts';
import { closeQueues, createQueues } from '../jobs/queues.ts';
import type { StateDb } from '../state/db.ts';

/**
 * The operator actions (release, reject, retry) as a command takes them: on state.db, the running
 * daemon asked for the work that follows over Redis.
 */
export function commandActions(config: Config, db: StateDb): ActionDeps {
  return { db, config, now: Date.now, nudge: (ask) => nudgeDaemon(config, ask) };
}

/**
 * Asks the running daemon for work from a command (after `failures retry`). Best effort: with
 * Redis out of reach the daemon's own periodic recovery finds the work in state.db anyway.
 */
export async function nudgeDaemon(
  config: Config,
  ask: (n: Nudges) => Promise<unknown>,
  timeoutMs = 3000,
): Promise<boolean> {
  const connection = redisConnection(config, {
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  connection.on('error', () => {});
  try {
    await connection.connect();
    const queues = createQueues(connection, config.queuePrefix, () => () => {}); // best effort
    try {
      await withTimeout(ask(new Nudges(queues)), timeoutMs, 'nudge');
      return true;
    } finally {
      await closeQueues(queues);
    }
  } catch {
    return false;
  } finally {
    connection.disconnect();
  }
}
