import type { Logger } from '../log/logger.ts';
import type { RedisClient } from './connection.ts';

/** Whether Redis answers the daemon's own connection, since when, and why not. */
export interface RedisState {
  readonly up: boolean;
  /** Epoch ms when this state began (when the daemon started, until the first answer). */
  readonly since: number;
  /** The last error of the current outage (its message); null while up. */
  readonly lastError: string | null;
}

/** Receives the `error` events of a queue, a worker or a connection, by where they came from. */
export type RedisErrorSink = (source: string) => (err: Error) => void;

export interface RedisWatch {
  /**
   * The daemon's own connection: its `ready` says Redis is up, its `close` and `error` that it
   * is down. The one source of the state.
   */
  connection(redis: RedisClient, source: string): void;
  /** A listener for every other emitter of Redis errors (queues, workers): see watchRedis. */
  readonly onError: RedisErrorSink;
  state(): RedisState;
  /** Stops listening and logging (a graceful stop closes the connections next). */
  stop(): void;
}

/** The shortest gap between two lines about the same outage, or about errors while Redis is up. */
export const REDIS_REPEAT_MS = 60_000;
/** How long an error seen while Redis looked up waits to be judged (see watchRedis). */
const JUDGE_MS = 1000;

/**
 * Turns the flood of errors a Redis outage causes — every queue, worker and connection reports
 * each failed reconnect, about ten a second — into one `redis.down` line (warn) when it starts,
 * a repeat at most once a minute while it lasts (`repeat: true`, the errors seen since), and one
 * `redis.up` line when it ends (`downForMs`). Every emitter must have a listener: a BullMQ queue
 * without one prints each error as a multi-line console.error dump.
 *
 * Errors from other emitters while the daemon's connection is up are judged a second later: if
 * the connection went down meanwhile they were the first signs of the outage (the sockets of a
 * dead Redis close in no set order) and are counted in it; otherwise they are real errors while
 * Redis answers, logged as `redis.error`, at most once a minute with the count.
 */
export function watchRedis(deps: {
  readonly log: Logger;
  readonly now?: () => number;
  readonly repeatMs?: number;
}): RedisWatch {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const repeatMs = deps.repeatMs ?? REDIS_REPEAT_MS;
  let up = false;
  /** Whether a state was ever seen: the first `ready` at start is not "back". */
  let known = false;
  let since = now();
  let lastError: string | null = null;
  let errorsSinceLine = 0;
  let lastDownLineAt = Number.NEGATIVE_INFINITY;
  let errorsWhileUp: Array<{ source: string; err: Error }> = [];
  let lastErrorLineAt = Number.NEGATIVE_INFINITY;
  let errorsWhileUpUnlogged = 0;
  let judging: NodeJS.Timeout | undefined;
  let stopped = false;
  const cleanups: Array<() => void> = [];

  function down(source: string, err: Error | undefined): void {
    if (err) lastError = err.message;
    const t = now();
    if (up || !known) {
      up = false;
      known = true;
      since = t;
      errorsSinceLine = 0;
      lastDownLineAt = t;
      log.warn(
        { event: 'redis.down', source, error: lastError },
        `redis unreachable (${lastError ?? 'connection lost'}): queued work waits, and is re-derived from state.db when Redis is back`,
      );
      return;
    }
    if (err) errorsSinceLine++;
    if (t - lastDownLineAt < repeatMs) return;
    lastDownLineAt = t;
    log.warn(
      {
        event: 'redis.down',
        repeat: true,
        source,
        error: lastError,
        downForMs: t - since,
        errors: errorsSinceLine,
      },
      `redis still unreachable after ${Math.round((t - since) / 1000)} s (${lastError ?? 'connection lost'})`,
    );
    errorsSinceLine = 0;
  }

  function ready(source: string): void {
    const t = now();
    if (up) return;
    const wasDown = known;
    const downForMs = t - since;
    up = true;
    known = true;
    since = t;
    if (wasDown) {
      log.info(
        { event: 'redis.up', source, downForMs, errors: errorsSinceLine, lastError },
        `redis is back after ${Math.round(downForMs / 1000)} s`,
      );
    }
    lastError = null;
    errorsSinceLine = 0;
  }

  function judge(): void {
    judging = undefined;
    const seen = errorsWhileUp;
    errorsWhileUp = [];
    if (stopped || seen.length === 0) return;
    if (!up) {
      errorsSinceLine += seen.length; // the first signs of the outage now under way
      return;
    }
    errorsWhileUpUnlogged += seen.length;
    const t = now();
    if (t - lastErrorLineAt < repeatMs) return;
    lastErrorLineAt = t;
    const first = seen[0]!;
    log.warn(
      { event: 'redis.error', source: first.source, err: first.err, errors: errorsWhileUpUnlogged },
      `redis error while it answers (${first.source}): ${first.err.message}`,
    );
    errorsWhileUpUnlogged = 0;
  }

  const onError: RedisErrorSink = (source) => (err) => {
    if (stopped) return;
    if (!up) {
      down(source, err);
      return;
    }
    errorsWhileUp.push({ source, err });
    judging ??= setTimeout(judge, JUDGE_MS);
    judging.unref();
  };

  return {
    connection(redis, source) {
      const onReady = () => {
        if (!stopped) ready(source);
      };
      const onClose = () => {
        if (!stopped) down(source, undefined);
      };
      const whileUp = onError(source);
      const onConnectionError = (err: Error) => {
        if (stopped) return;
        // Still talking to Redis: not (yet) an outage; judged like any other error.
        if (redis.status === 'ready') whileUp(err);
        else down(source, err);
      };
      redis.on('ready', onReady);
      redis.on('close', onClose);
      redis.on('error', onConnectionError);
      cleanups.push(() => {
        redis.off('ready', onReady);
        redis.off('close', onClose);
        // An error listener stays (doing nothing): ioredis prints errors nobody listens to.
        redis.off('error', onConnectionError);
        redis.on('error', () => {});
      });
      if (redis.status === 'ready') ready(source);
    },
    onError,
    state: () => ({ up, since, lastError }),
    stop() {
      stopped = true;
      if (judging) clearTimeout(judging);
      for (const c of cleanups.splice(0)) c();
    },
  };
}
