import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * The queues and what their jobs carry. A job is a nudge — "there may be work of this kind" — and
 * carries at most an identifier; the facts are in state.db, so every job is safe to run twice and
 * losing every job loses nothing.
 */
export interface JobPayloads {
  /** One inbox file, by path. */
  ingest: { readonly path: string; readonly name: string };
  /** Push the pending stock differences. */
  push: { readonly reason: string };
  /** Read the portal's stock (the `slot` of the schedule, or why). */
  reconcile: { readonly reason: string; readonly slot?: string };
  /** Poll ready-to-ship orders (`poll`) or send pending confirmations (`confirm`). */
  shipments: { readonly task: 'poll' | 'confirm'; readonly reason: string; readonly slot?: string };
  /**
   * Small chores: re-derive work from state.db (due failures, pending pushes and confirmations),
   * DC list refresh, snapshot read, the shipments deadline and the unconfirmed-shipments watch.
   */
  maintenance: {
    readonly task: 'recover' | 'dc-refresh' | 'snapshot' | 'deadline' | 'shipments-watch';
    readonly reason: string;
    readonly slot?: string;
  };
}

export type QueueName = keyof JobPayloads;
export const QUEUE_NAMES: readonly QueueName[] = [
  'shipments',
  'ingest',
  'push',
  'reconcile',
  'maintenance',
];

/** Finished jobs are kept an hour so that a schedule slot's job id still deduplicates late adds. */
const KEEP = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
};

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  ...KEEP,
  attempts: 5,
  backoff: { type: 'exponential', delay: 5000 },
};

export type Queues = { readonly [N in QueueName]: Queue<JobPayloads[N]> };

export function createQueues(connection: Redis, prefix: string): Queues {
  const make = <N extends QueueName>(name: N) =>
    new Queue<JobPayloads[N]>(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
  return {
    shipments: make('shipments'),
    ingest: make('ingest'),
    push: make('push'),
    reconcile: make('reconcile'),
    maintenance: make('maintenance'),
  };
}

/**
 * Lifts every queue's pause (a spent budget, a lane stopped until the configuration is fixed):
 * at start, so that a restart after a fix works at once. A lane whose cause remains meets it on
 * its first job and pauses again (a spent budget without a call; a 403 with one).
 */
export async function liftPauses(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q: Queue) => q.removeRateLimitKey()));
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
