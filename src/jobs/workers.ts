import type { Job, Worker } from 'bullmq';
import { failurePolicy } from '../failures/failurePolicy.ts';
import type { Logger } from '../log/logger.ts';
import {
  DelayedError,
  ErrorCode,
  RateLimitError,
  UnrecoverableError,
  Worker as WorkerClass,
} from './bullmqParts.ts';
import {
  connectionName,
  queueKeyPrefix,
  type RedisClient,
  type RedisTarget,
  redisConnection,
} from './connection.ts';
import { MarkerHub } from './markerHub.ts';
import {
  JOB_PAYLOADS,
  type JobPayloads,
  QUEUE_NAMES,
  type QueueName,
  type Queues,
  WAITS_ALONE,
} from './queues.ts';
import type { RedisErrorSink } from './redisWatch.ts';

export type Processor<N extends QueueName> = (job: Job<JobPayloads[N]>) => Promise<unknown>;
export type Processors = { readonly [N in QueueName]: Processor<N> };

/**
 * A job's lock lasts `lockMs` and is renewed every half of it while the job runs. After a crash
 * the dead process's jobs stay locked until then, and the stalled check (every quarter of it) puts
 * them back in line: short values make recovery quick. A job whose lock lapsed while the event loop
 * was busy (a very large file) may run twice; every job is safe to run twice.
 */
const stalledCheckMs = (lockMs: number) => Math.max(500, Math.floor(lockMs / 4));

/**
 * How long a queue stops when the portal needs a person (credentials refused, 403): its job is
 * tried again after this, which costs nothing while the login is blocked and one call otherwise,
 * so a fix on the portal's side (permissions granted) is noticed without a restart.
 */
export const FIX_CONFIG_RECHECK_MS = 5 * 60_000;

/** The error to end a failed job with, after pausing its queue or delaying it as due. */
async function afterFailure(
  err: unknown,
  job: Job,
  token: string | undefined,
  name: QueueName,
  opts: {
    readonly queues: Queues;
    readonly log: Logger;
    readonly now: () => number;
    readonly onDiskFull?: ((err: unknown) => void) | undefined;
  },
): Promise<unknown> {
  const action = failurePolicy(err, opts.now());
  if (action.kind === 'wait' && action.holds === 'disk') opts.onDiskFull?.(err);
  const message = err instanceof Error ? err.message : String(err);
  switch (action.kind) {
    case 'final':
      return new UnrecoverableError(message);
    case 'wait': {
      const waitMs = Math.max(1000, action.until - opts.now());
      if (action.holds === 'budget' && token && WAITS_ALONE[name]?.includes(job.name)) {
        // Its own lane is spent: this job waits, the queue's other jobs go on.
        opts.log.info(
          {
            event: 'job.delayed',
            queue: name,
            job: job.name,
            until: new Date(action.until).toISOString(),
            reason: action.reason,
          },
          `${name} job ${job.name} waits ${Math.round(waitMs / 1000)} s: ${action.reason}`,
        );
        // BullMQ times a delay by the real clock; waitMs is measured on the daemon's.
        await job.moveToDelayed(Date.now() + waitMs, token);
        return new DelayedError();
      }
      opts.log.info(
        {
          event: 'queue.paused',
          queue: name,
          waitMs,
          until: new Date(action.until).toISOString(),
          reason: action.reason,
        },
        `${name} waits ${Math.round(waitMs / 1000)} s: ${action.reason}`,
      );
      await opts.queues[name].rateLimit(waitMs);
      return new RateLimitError();
    }
    case 'fix-config':
      opts.log.error(
        {
          event: 'queue.fix_config',
          queue: name,
          reason: action.reason,
          recheckMs: FIX_CONFIG_RECHECK_MS,
        },
        `${name} stopped until the configuration is fixed: ${action.reason}`,
      );
      await opts.queues[name].rateLimit(FIX_CONFIG_RECHECK_MS);
      return new RateLimitError();
    case 'retry': {
      if (action.notBefore === undefined || action.notBefore <= opts.now() || !token) return err;
      opts.log.info(
        {
          event: 'job.delayed',
          queue: name,
          job: job.name,
          until: new Date(action.notBefore).toISOString(),
        },
        `${name} job waits until ${new Date(action.notBefore).toISOString()}: ${message}`,
      );
      await job.moveToDelayed(action.notBefore, token);
      return new DelayedError();
    }
  }
}

/**
 * Why a job's payload does not have its queue's shape (JOB_PAYLOADS), e.g. an ingest job that
 * names a path; undefined when it does. Quoted values are cut short: the payload is anyone's.
 */
function payloadProblem(queue: QueueName, data: unknown): string | undefined {
  const parsed = JOB_PAYLOADS[queue].safeParse(data);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'payload';
  let value: unknown = data;
  for (const key of issue?.path ?? []) value = (value as Record<PropertyKey, unknown>)?.[key];
  const shown = JSON.stringify(value) ?? String(value);
  return `${field} ${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}: ${issue?.message ?? 'invalid'}`;
}

/**
 * BullMQ's answer when a worker ends a job whose record is no longer its own: the job's key is
 * gone (Redis restarted empty or was flushed while it ran), or its lock is gone or another
 * worker's (it lapsed while the event loop was busy). Not a Redis fault: the work is in state.db
 * and is asked for again (the recovery at Redis's return, the periodic one), and every job is
 * safe to run twice. Logged as `job.lost` (info), kept out of the Redis watch: after an outage
 * that emptied Redis, a job that ran through it must not read as an error while Redis answers.
 */
const LOST_JOB_CODES: ReadonlySet<number> = new Set([
  ErrorCode.JobNotExist,
  ErrorCode.JobLockNotExist,
  ErrorCode.JobLockMismatch,
]);

function isLostJob(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' && LOST_JOB_CODES.has(code);
}

export interface WorkerSet {
  close(): Promise<void>;
}

/**
 * A BullMQ worker whose close never waits out its queue's pause. Closing aborts the pause the worker
 * is waiting out, but a job that ends with its queue paused (RateLimitError: `wait` and
 * `fix-config` above) lets the worker's loop start a new wait just after: a close asked for
 * while such a job ran waited up to 30 s (BullMQ's longest single wait; the daemon's stop gave up
 * after its 8 s grace, the call in flight long done). Once closing, there is nothing to wait for.
 */
class QueueWorker<T> extends WorkerClass<T> {
  override async delay(...args: Parameters<Worker['delay']>): Promise<void> {
    if (this.closing !== undefined) return;
    await super.delay(...args);
  }
}

/**
 * One worker per queue, one job at a time each (one push per account, files in order), all
 * over two Redis connections: their commands over the daemon's shared `connection`, their waits
 * for work over one blocking connection that waits on every queue at once (MarkerHub). A job's
 * failure is handled as the API's failure policy says: `wait` (budget spent, login held back, a
 * full disk — told to `onDiskFull` too) pauses its queue until then and the job waits, not
 * failed; `retry` at a time the portal named delays the job until then, otherwise BullMQ's
 * attempts and back-off take it; `final` fails the job at once (UnrecoverableError); `fix-config`
 * stops the queue, logs an error, and looks again every FIX_CONFIG_RECHECK_MS (the work stays
 * pending in state.db).
 */
export function startWorkers(opts: {
  /** Where Redis is (REDIS_URL, REDIS_CLUSTER): the workers' one blocking connection opens there. */
  readonly redis: RedisTarget | string;
  /** The daemon's connection (the queues'): the workers' other commands go over it. */
  readonly connection: RedisClient;
  readonly prefix: string;
  readonly queues: Queues;
  readonly processors: Processors;
  readonly log: Logger;
  readonly lockMs: number;
  /** Hears the workers' `error` events (see watchRedis). */
  readonly onError: RedisErrorSink;
  /** Hears a job's error that says the disk is full (the daemon's disk watch). */
  readonly onDiskFull?: (err: unknown) => void;
  /**
   * Runs after a queue's job has ended (completed or failed), once it has left the active state:
   * what must not see the job still running (the reconcile queue, woken after a push, asks whether
   * a push is active).
   */
  readonly afterJob?: Partial<Record<QueueName, () => Promise<unknown>>>;
  readonly now?: () => number;
}): WorkerSet {
  const now = opts.now ?? Date.now;
  const names = Object.keys(opts.processors) as QueueName[];
  const prefix = queueKeyPrefix(opts.prefix, opts.connection);
  const hubConnection = redisConnection(opts.redis, {
    connectionName: connectionName(opts.prefix, 'workers'),
  });
  const hub = new MarkerHub({
    client: hubConnection,
    markers: Object.fromEntries(
      QUEUE_NAMES.filter((n) => names.includes(n)).map((n) => [n, opts.queues[n].keys.marker]),
    ) as Record<QueueName, string>,
    onError: opts.onError('workers'),
  });
  // Its errors (every failed reconnect during an outage) go to the watch like a worker's did.
  hubConnection.on('error', opts.onError('workers'));
  hub.start();
  const workers = names.map((name) => {
    const process = opts.processors[name] as Processor<QueueName>;
    const worker = new QueueWorker<JobPayloads[QueueName]>(
      name,
      async (job, token) => {
        const problem = payloadProblem(name, job.data);
        if (problem !== undefined) {
          // Not thrown: a job that can never run right is not retried, only reported.
          opts.log.warn(
            { event: 'job.refused', queue: name, job: job.name, jobId: job.id, problem },
            `${name} job ${job.id} refused: ${problem}`,
          );
          return { refused: problem };
        }
        try {
          return await process(job);
        } catch (err) {
          throw await afterFailure(err, job, token, name, { ...opts, now });
        }
      },
      {
        connection: opts.connection,
        prefix,
        concurrency: 1,
        lockDuration: opts.lockMs,
        stalledInterval: stalledCheckMs(opts.lockMs),
        maxStalledCount: 5,
        autorun: true,
      },
      hub.backendFactory(name),
    );
    worker.on('failed', (job, err) => {
      opts.log.warn(
        {
          event: 'job.failed',
          queue: name,
          job: job?.name,
          jobId: job?.id,
          attempts: job?.attemptsMade,
          err,
        },
        `${name} job failed: ${err.message}`,
      );
    });
    const after = opts.afterJob?.[name];
    if (after !== undefined) {
      const run = () => {
        after().catch((err: unknown) =>
          opts.log.warn(
            { event: 'job.after_failed', queue: name, err },
            `what follows a ${name} job failed: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
      };
      worker.on('completed', run);
      worker.on('failed', run);
    }
    // Errors of the worker and its connections (every failed reconnect during an outage): the
    // watch turns them into one redis.down line, or logs them at most once a minute.
    const toWatch = opts.onError(`worker:${name}`);
    worker.on('error', (err) => {
      if (!isLostJob(err)) {
        toWatch(err);
        return;
      }
      opts.log.info(
        { event: 'job.lost', queue: name, error: err.message },
        `${name}: ${err.message}: the job's record in Redis is gone or another worker's; its work is asked for again from state.db`,
      );
    });
    return worker;
  });
  return {
    async close() {
      await Promise.allSettled(workers.map((w) => w.close()));
      await hub.close();
    },
  };
}
