import type { BackendFactory, RedisQueueBackend } from 'bullmq';
import { createRedisBackend } from './bullmqParts.ts';
import type { RedisClient } from './connection.ts';
import type { QueueName } from './queues.ts';

/** What a worker's wait for a job yields: a queue's marker (score: when its next job is due). */
export type Marker = { readonly member: string; readonly score: number };

/**
 * How long one wait of the shared connection lasts, in seconds (BullMQ's own workers wait 5 s
 * when their queue is drained); each worker's own wait ends on its own timer regardless.
 */
const CYCLE_S = 5;
/**
 * A wait that has not answered this long after its timeout is given up and the connection reset:
 * with `maxRetriesPerRequest: null`, ioredis sends an interrupted blocking command again after a
 * reconnect instead of failing it, and it may never answer (BullMQ's workers guard the same way).
 */
const WATCHDOG_MS = (CYCLE_S + 2) * 1000;
/** The pause after an error of the wait before the next one (Redis down: its reconnects back off). */
const ERROR_PAUSE_MS = 1000;

/**
 * One blocking Redis connection for every queue's worker. A BullMQ worker waits for work with
 * BZPOPMIN on its queue's marker key, each on a connection of its own; here one connection waits
 * on the markers of every queue at once (the keys share a slot on a cluster: the prefix is
 * hash-tagged) and hands each marker to its queue's worker — at once if it is waiting, else at
 * its next wait. Each worker's commands otherwise go over the daemon's shared connection
 * (backendFactory), so a daemon holds two Redis connections whatever its number of queues.
 */
export class MarkerHub {
  readonly #client: RedisClient;
  readonly #keys: ReadonlyMap<string, QueueName>;
  readonly #waiters = new Map<QueueName, (m: Marker | null) => void>();
  readonly #pending = new Map<QueueName, Marker>();
  readonly #onError: (err: Error) => void;
  #closed = false;
  readonly #sleeps = new Set<() => void>();
  #running: Promise<void> | undefined;

  /**
   * `client` is the hub's own connection (it blocks; closed with the hub); `markers` each
   * queue's marker key.
   * `onError` hears the wait's failures (Redis down), as a worker's `error` event would.
   */
  constructor(opts: {
    readonly client: RedisClient;
    readonly markers: Readonly<Record<QueueName, string>>;
    readonly onError: (err: Error) => void;
  }) {
    this.#client = opts.client;
    this.#onError = opts.onError;
    this.#keys = new Map(
      Object.entries(opts.markers).map(([name, key]) => [key, name as QueueName] as const),
    );
  }

  /** Starts waiting on the markers; idempotent. */
  start(): void {
    this.#running ??= this.#loop();
  }

  /**
   * A BullMQ backend factory for the worker of queue `name`: BullMQ's Redis backend over the
   * connection the worker is given (shared, left open at close), with no blocking connection of
   * its own; its waits for a job are this hub's.
   */
  backendFactory(name: QueueName): BackendFactory<RedisQueueBackend> {
    return (queueName, opts) => {
      const backend = createRedisBackend(queueName, opts, { withBlockingConnection: false });
      backend.waitForJob = (timeoutS: number) => this.wait(name, timeoutS);
      backend.disconnectBlocking = async () => this.interrupt(name);
      backend.reconnectBlocking = async () => {};
      return backend;
    };
  }

  /** The next marker of queue `name`, or null after `timeoutS` seconds (or when interrupted). */
  wait(name: QueueName, timeoutS: number): Promise<Marker | null> {
    const pending = this.#pending.get(name);
    if (pending !== undefined) {
      this.#pending.delete(name);
      return Promise.resolve(pending);
    }
    if (this.#closed) return Promise.resolve(null);
    this.interrupt(name);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), Math.max(1, timeoutS * 1000));
      const done = (m: Marker | null) => {
        clearTimeout(timer);
        if (this.#waiters.get(name) === done) this.#waiters.delete(name);
        resolve(m);
      };
      this.#waiters.set(name, done);
    });
  }

  /** Ends queue `name`'s wait now, with no marker (its worker is closing). */
  interrupt(name: QueueName): void {
    this.#waiters.get(name)?.(null);
  }

  /** Stops waiting (each worker's wait ends with no marker) and closes the hub's connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const done of [...this.#waiters.values()]) done(null);
    for (const wake of [...this.#sleeps]) wake();
    this.#client.disconnect();
    await this.#running;
  }

  #deliver(key: string, member: string, score: number): void {
    const name = this.#keys.get(key);
    if (name === undefined) return;
    const marker = { member, score };
    const waiter = this.#waiters.get(name);
    if (waiter !== undefined) {
      waiter(marker);
      return;
    }
    // Its worker is busy: it finds the marker at its next wait (the earliest one kept).
    const kept = this.#pending.get(name);
    if (kept === undefined || score < kept.score) this.#pending.set(name, marker);
  }

  async #loop(): Promise<void> {
    const keys = [...this.#keys.keys()];
    while (!this.#closed) {
      // While Redis is away ioredis reconnects on its own: a wait sent now would only queue up.
      // The connection coming up (at start, after an outage) ends the pause at once.
      if (this.#client.status !== 'ready') {
        await this.#readyOrAfter(ERROR_PAUSE_MS);
        continue;
      }
      // A marker is delivered whenever it comes, even after the watchdog gave its wait up.
      const answer = this.#client.bzpopmin(...keys, CYCLE_S).then(
        (popped) => {
          if (popped) this.#deliver(popped[0], popped[1], Number(popped[2]));
          return 'answered' as const;
        },
        (err: unknown) => {
          if (!this.#closed) this.#onError(err instanceof Error ? err : new Error(String(err)));
          return 'failed' as const;
        },
      );
      const watchdog = this.#sleep(WATCHDOG_MS);
      const outcome = await Promise.race([answer, watchdog.then(() => 'stuck' as const)]);
      watchdog.cancel();
      if (this.#closed) break;
      if (outcome === 'failed') await this.#sleep(ERROR_PAUSE_MS);
      else if (outcome === 'stuck' && this.#client.status === 'ready')
        this.#client.disconnect(true);
    }
  }

  /** Resolves once the hub's connection is ready, after `ms` at the latest (or when it closes). */
  #readyOrAfter(ms: number): Promise<void> {
    const slept = this.#sleep(ms);
    const ready = () => slept.cancel();
    this.#client.once('ready', ready);
    return slept.finally(() => this.#client.off('ready', ready));
  }

  /** Resolves after `ms`, at once when the hub closes, or when cancelled. */
  #sleep(ms: number): Promise<void> & { cancel(): void } {
    let wake = () => {};
    const slept = new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), ms);
      wake = () => {
        clearTimeout(timer);
        this.#sleeps.delete(wake);
        resolve();
      };
      this.#sleeps.add(wake);
    });
    return Object.assign(slept, { cancel: () => wake() });
  }
}
