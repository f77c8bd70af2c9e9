import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import { connectionName, redisConnection } from '../jobs/connection.ts';
import type { Services } from '../jobs/deps.ts';
import { Nudges } from '../jobs/nudges.ts';
import { afterJobs, processors } from '../jobs/processors/index.ts';
import { closeQueues, createQueues, liftPauses, type Queues } from '../jobs/queues.ts';
import { recoverWork } from '../jobs/recovery.ts';
import { type RedisWatch, watchRedis } from '../jobs/redisWatch.ts';
import { replanTimers } from '../jobs/timers.ts';
import { startWorkers } from '../jobs/workers.ts';
import type { Logger } from '../log/logger.ts';

/** The longest the start waits to lift the queues' pauses (Redis may be down). */
const LIFT_PAUSES_WAIT_MS = 2000;
/** The longest a graceful stop waits for jobs in flight before it closes anyway. */
const STOP_GRACE_MS = 8000;

/** The daemon's queues over one Redis connection; its workers once started. */
export interface DaemonJobs {
  readonly queues: Queues;
  readonly nudges: Nudges;
  readonly redis: RedisWatch;
  /** Starts the workers that run the services' jobs. Once. */
  startWorkers(services: Services): Promise<void>;
  /** From now on, whenever Redis comes back ('ready'), the work owed is asked for again. */
  recoverOnReconnect(): void;
  /** Asks again for the work state.db says is owed (pushes, confirmations, reading). */
  recover(reason: string): Promise<unknown>;
  /** BullMQ's timers set ahead of the clock (it went back) set going from now (jobs/timers.ts). */
  replanTimers(reason: string): Promise<void>;
  /** Lets the jobs in flight finish (bounded); false when the grace ran out. */
  closeWorkers(): Promise<boolean>;
  /** Closes the queues and the connection. */
  close(): Promise<void>;
}

/** The queues, before the services exist (they are asked for work from the start). */
export function connectJobs(parts: {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  /** Hears a job's error that says the disk is full. */
  readonly onDiskFull?: (err: unknown) => void;
}): DaemonJobs {
  const { config, log, clock } = parts;
  const connection = redisConnection(config, {
    connectionName: connectionName(config.queuePrefix, 'daemon'),
  });
  // One line when Redis goes away and one when it is back, however many parts report it.
  const redis = watchRedis({ log, now: clock.now });
  redis.connection(connection, 'daemon');
  const queues = createQueues(connection, config.queuePrefix, redis.onError);
  const nudges = new Nudges(queues);
  let jobs: (Services & { nudges: Nudges; queues: Queues }) | undefined;
  let workers: ReturnType<typeof startWorkers> | undefined;
  // Work that was pending when the daemon last stopped (or that Redis lost) is asked for again.
  const recoverOnReady = () => {
    if (jobs === undefined) return;
    recoverWork(jobs, 'redis ready').catch((err) =>
      log.warn({ event: 'recover.failed', err }, 'could not re-enqueue pending work'),
    );
  };

  const replan = async (reason: string) => {
    const { delayed, finished } = await replanTimers(queues, connection);
    if (delayed + finished === 0) return;
    log.info(
      { event: 'clock.timers_replanned', reason, delayed, finished },
      `${delayed} delayed job(s) set going from now and ${finished} finished job(s) removed: they were dated ahead of the clock`,
    );
  };

  const start = async (services: Services) => {
    jobs = { ...services, nudges, queues };
    // Before the workers look at their queues (a worker that met a pause sleeps it out): a restart
    // after a configuration fix works at once; timers a clock that went back left a day ahead are
    // set from now. Bounded: a Redis that is down does not hold the start.
    await Promise.race([
      Promise.all([
        liftPauses(queues).catch((err) =>
          log.warn({ event: 'queue.error', err }, 'could not lift the queues’ pauses'),
        ),
        replan('start').catch((err) =>
          log.warn({ event: 'queue.error', err }, 'could not look at the queues’ timers'),
        ),
      ]),
      new Promise((r) => setTimeout(r, LIFT_PAUSES_WAIT_MS).unref()),
    ]);
    workers = startWorkers({
      redis: config,
      connection,
      prefix: config.queuePrefix,
      queues,
      processors: processors(jobs),
      afterJob: afterJobs(jobs),
      lockMs: config.jobLockMs,
      onError: redis.onError,
      onDiskFull: parts.onDiskFull,
      log,
      now: clock.now,
    });
  };

  return {
    queues,
    nudges,
    redis,
    startWorkers: start,
    recoverOnReconnect: () => connection.on('ready', recoverOnReady),
    recover: async (reason) => (jobs === undefined ? undefined : recoverWork(jobs, reason)),
    replanTimers: replan,
    async closeWorkers() {
      connection.off('ready', recoverOnReady);
      const running = workers;
      if (running === undefined) return true;
      return Promise.race([
        running.close().then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref()),
      ]);
    },
    async close() {
      redis.stop();
      await closeQueues(queues);
      connection.disconnect();
    },
  };
}
