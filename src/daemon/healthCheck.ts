import { bytesText, type DiskState } from '../domain/diskState.ts';
import { withTimeout } from '../domain/timeout.ts';
import { type RedisClient, type RedisTarget, redisConnection } from '../jobs/connection.ts';
import { HEARTBEAT_STALE_MS, heartbeatProblem } from './heartbeat.ts';
import type { Status } from './status.ts';

/** The answers a health check needs; the caller decides where they come from. */
export interface HealthProbes {
  /** Resolves when Redis answers PING; rejects with the reason otherwise. */
  readonly pingRedis: () => Promise<void>;
  /** The status read (its heartbeat counts here); throws when state.db cannot be opened or read. */
  readonly readStatus: () => Pick<Status, 'daemon'> & Partial<Pick<Status, 'paused' | 'disk'>>;
  /** The disk, when known apart from the status read (which may fail: state.db unreadable). */
  readonly disk?: DiskState | null;
  readonly now: () => number;
  /** A heartbeat older than this is a problem, in milliseconds; HEARTBEAT_STALE_MS by default. */
  readonly staleAfterMs?: number;
}

export interface HealthReport {
  readonly healthy: boolean;
  /** One line per problem, e.g. `redis: connect ECONNREFUSED …`, `daemon: no heartbeat yet`. */
  readonly problems: readonly string[];
  readonly redis: 'ok' | 'error';
  readonly stateDb: 'ok' | 'error';
  /**
   * Age of the last heartbeat in milliseconds, negative when it is dated ahead of the clock (more
   * than 30 s ahead: stale); null when there is none (or state.db failed).
   */
  readonly heartbeatAgeMs: number | null;
  /**
   * Pushes paused by an operator (`pause`): since when (ISO 8601) and why; null when not. A pause
   * is no health problem (it is asked for): it is only said.
   */
  readonly paused: { readonly since: string; readonly reason: string | null } | null;
  /** The disk holding the data dir and state.db (full: not healthy, whatever else); null: not looked at. */
  readonly disk: DiskState | null;
  readonly checkedAt: number;
}

/**
 * Healthy means: the disk is not full, Redis answers, state.db opens and the daemon's heartbeat
 * is recent (one dated ahead of the clock is not: the clock went back, and it says nothing of
 * now). Shared by the `health` command (a separate process) and the daemon's own `/healthz`;
 * both only differ in how they reach Redis, state.db and the disk.
 */
export async function checkHealth(probes: HealthProbes): Promise<HealthReport> {
  const staleAfterMs = probes.staleAfterMs ?? HEARTBEAT_STALE_MS;
  // Started first so that the state.db read happens while Redis is being asked.
  const ping = probes.pingRedis().then(
    () => null,
    (err: unknown) => `redis: ${err instanceof Error ? err.message : String(err)}`,
  );
  const problems: string[] = [];

  let stateDb: 'ok' | 'error' = 'ok';
  let heartbeatAgeMs: number | null = null;
  let paused: HealthReport['paused'] = null;
  let disk = probes.disk ?? null;
  try {
    const status = probes.readStatus();
    disk = status.disk ?? disk;
    const beat = status.daemon;
    if (status.paused)
      paused = { since: new Date(status.paused.since).toISOString(), reason: status.paused.reason };
    if (beat === null) problems.push('daemon: no heartbeat yet');
    else {
      const now = probes.now();
      heartbeatAgeMs = now - beat.at;
      const problem = heartbeatProblem(beat.at, now, staleAfterMs);
      if (problem !== undefined) problems.push(`daemon: ${problem}`);
    }
  } catch (err) {
    stateDb = 'error';
    problems.push(`state.db: ${err instanceof Error ? err.message : String(err)}`);
  }

  const redisProblem = await ping;
  if (redisProblem !== null) problems.unshift(redisProblem);
  if (disk?.full) problems.unshift(diskProblem(disk));
  return {
    healthy: problems.length === 0,
    problems,
    redis: redisProblem === null ? 'ok' : 'error',
    stateDb,
    heartbeatAgeMs,
    paused,
    disk,
    checkedAt: probes.now(),
  };
}

/** `disk: the disk holding /data is full (0 bytes free)`. */
export function diskProblem(disk: DiskState): string {
  return `disk: the disk holding ${disk.path} is full (${bytesText(disk.freeBytes)} free)`;
}

/** PING over an existing connection (the daemon's), which may be waiting through a Redis outage. */
export async function pingConnection(redis: RedisClient, timeoutMs = 2000): Promise<void> {
  const answer = await withTimeout(redis.ping(), timeoutMs, 'PING');
  if (answer !== 'PONG') throw new Error(`no PONG (got ${String(answer)})`);
}

/**
 * PING over a connection of its own that tries once and is closed afterwards; `target` is the
 * configuration's Redis (a cluster too) or one URL.
 */
export async function pingRedisUrl(target: RedisTarget | string, timeoutMs = 2000): Promise<void> {
  const redis = redisConnection(target, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  // ioredis rejects connect() with a bare "Connection is closed."; the error event says why.
  let cause: Error | undefined;
  redis.on('error', (err: Error) => {
    cause ??= err;
  });
  try {
    await withTimeout(redis.connect(), timeoutMs + 500, 'connect').catch((err: unknown) => {
      throw cause ?? err;
    });
    await pingConnection(redis, timeoutMs);
  } finally {
    redis.disconnect();
  }
}
