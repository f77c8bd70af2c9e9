import type { JobsOptions, Queue } from 'bullmq';
import { z } from 'zod';
import { fileNameProblem } from '../config/dataPaths.ts';
import { Queue as QueueClass } from './bullmqParts.ts';
import { queueKeyPrefix, type RedisClient } from './connection.ts';
import type { RedisErrorSink } from './redisWatch.ts';

const reason = z.string();
const slot = z.string().optional();

/** A plain file name (no path): the worker rebuilds the path under inbox/ itself. */
const fileName = z.unknown().superRefine((v, ctx) => {
  const problem = fileNameProblem(v);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}) as z.ZodType<string>;

/**
 * The queues and what their jobs carry. A job is a nudge — "there may be work of this kind" — and
 * carries at most an identifier; the facts are in state.db, so every job is safe to run twice and
 * losing every job loses nothing. Anyone who reaches the Redis can write a job, so a worker
 * checks each payload against its shape here before it runs it (see startWorkers), and a job
 * never carries a path: a file is named, and looked for in inbox/ only.
 */
export const JOB_PAYLOADS = {
  /** One inbox file, by its name in inbox/. */
  ingest: z.object({ name: fileName }),
  /** Push the pending stock differences. */
  push: z.object({ reason }),
  /** Create the new products that products files asked for. */
  products: z.object({ reason }),
  /** Read the portal's stock (the `slot` of the schedule, or why). */
  reconcile: z.object({ reason, slot }),
  /** Poll ready-to-ship orders (`poll`) or send pending confirmations (`confirm`). */
  shipments: z.object({ task: z.enum(['poll', 'confirm']), reason, slot }),
  /**
   * Small chores: re-derive work from state.db (due failures, pending pushes and confirmations),
   * DC list refresh, snapshot read, retention, the shipments deadline and the unconfirmed-shipments
   * watch.
   */
  maintenance: z.object({
    task: z.enum(['recover', 'dc-refresh', 'snapshot', 'prune', 'deadline', 'shipments-watch']),
    reason,
    slot,
  }),
} as const;

export type JobPayloads = {
  readonly [N in keyof typeof JOB_PAYLOADS]: z.infer<(typeof JOB_PAYLOADS)[N]>;
};

export type QueueName = keyof JobPayloads;

/**
 * Jobs whose lane of the budget is stricter than that of the other jobs of their queue: when
 * their lane is spent, the job alone waits (delayed until a call frees), not its queue. Shipment
 * polls leave calls that confirmations, in the same queue, may spend: a poll that met its spent
 * lane paused every confirmation behind it.
 */
export const WAITS_ALONE: Readonly<Partial<Record<QueueName, readonly string[]>>> = {
  shipments: ['poll'],
};
export const QUEUE_NAMES: readonly QueueName[] = [
  'shipments',
  'ingest',
  'push',
  'products',
  'reconcile',
  'maintenance',
];

/** Finished jobs are kept an hour so that a schedule slot's job id still deduplicates late adds. */
export const FINISHED_KEPT_MS = 3_600_000;
const KEEP = {
  removeOnComplete: { age: FINISHED_KEPT_MS / 1000, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  ...KEEP,
  attempts: 5,
  backoff: { type: 'exponential', delay: 5000 },
};

export type Queues = { readonly [N in QueueName]: Queue<JobPayloads[N]> };

/**
 * The queues over one connection (SYNC_QUEUE_PREFIX hash-tagged on a cluster: queueKeyPrefix). `onError` hears each queue's `error` events: a BullMQ queue
 * with no listener prints every one (each failed reconnect while Redis is down) as a
 * multi-line console.error dump.
 */
export function createQueues(
  connection: RedisClient,
  prefix: string,
  onError: RedisErrorSink,
): Queues {
  const make = <N extends QueueName>(name: N) => {
    const queue = new QueueClass<JobPayloads[N]>(name, {
      connection,
      prefix: queueKeyPrefix(prefix, connection),
      defaultJobOptions: DEFAULT_JOB_OPTIONS,
    });
    queue.on('error', onError(`queue:${name}`));
    return queue;
  };
  return {
    shipments: make('shipments'),
    ingest: make('ingest'),
    push: make('push'),
    products: make('products'),
    reconcile: make('reconcile'),
    maintenance: make('maintenance'),
  };
}

/**
 * Lifts every queue's pause (a spent budget, a queue stopped until the configuration is fixed):
 * at start, so that a restart after a fix works at once. A queue whose cause remains meets it on
 * its first job and pauses again (a spent budget without a call; a 403 with one).
 */
export async function liftPauses(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q: Queue) => q.removeRateLimitKey()));
}

/**
 * Whether a push runs, or waits to run and may run now (its queue is not paused for a spent
 * budget, a login wait or a queue stopped until a person acts): the reconciliation lane then
 * stops between two pages and leaves the budget to it.
 */
export async function pushDue(queues: Queues): Promise<boolean> {
  return runsOrMayRun(queues.push);
}

/**
 * Whether product work (creations, the review, the catalogue pass) runs or waits to run — also
 * while its lane of the budget is spent: reading stops for it as for a push, and never spends
 * calls the products lane waits for. Creations leave more of the hour (what polls leave and
 * API_PRODUCTS_RESERVE) than reading does (API_RECONCILE_RESERVE): a call read meanwhile would
 * only put their next call further off. A push needs no such care: its lane leaves less than
 * reading's, so reading stops before pushes do.
 */
export async function creationsDue(queues: Queues): Promise<boolean> {
  const counts = await queues.products.getJobCounts('active', 'waiting', 'prioritized');
  return (counts.active ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0) > 0;
}

async function runsOrMayRun(queue: Queue): Promise<boolean> {
  const counts = await queue.getJobCounts('active', 'waiting', 'prioritized');
  if ((counts.active ?? 0) > 0) return true;
  if ((counts.waiting ?? 0) + (counts.prioritized ?? 0) === 0) return false;
  return (await queue.getRateLimitTtl()) <= 0;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.allSettled(Object.values(queues).map((q: Queue) => q.close()));
}

/** Job counts per queue, for `status` and metrics. */
export async function queueDepths(
  queues: Queues,
): Promise<Record<QueueName, Record<string, number>>> {
  const out = {} as Record<QueueName, Record<string, number>>;
  for (const name of QUEUE_NAMES) {
    out[name] = await queues[name].getJobCounts(
      'waiting',
      'active',
      'delayed',
      'failed',
      'prioritized',
    );
  }
  return out;
}
