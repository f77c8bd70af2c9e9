import type { Queue } from 'bullmq';
import { CLOCK_JUMP_MS } from '../domain/clockWatch.ts';
import type { RedisClient } from './connection.ts';
import type { Queues } from './queues.ts';

/** Finished jobs looked at per queue and pass (the queues keep at most 1,000 of each). */
const FINISHED_BATCH = 1000;

export interface ReplannedTimers {
  /** Delayed jobs set going again from now, with the delay they were given. */
  readonly delayed: number;
  /** Finished jobs removed: they ended at a time still to come, and held their job ids. */
  readonly finished: number;
}

/**
 * BullMQ keeps its timers in wall-clock time: a delayed job is due at the time it was delayed
 * plus its delay, and a finished job keeps its id (a schedule slot's) for an hour after it ended.
 * After the clock went back, both sit ahead of it: a job delayed 30 s waits a day more, and a
 * slot that comes again finds its id taken. So, at a start and when the clock went back, a job
 * delayed at a time more than CLOCK_JUMP_MS ahead of `now` is delayed again from now, by its own
 * delay, and a job that finished more than that ahead is removed. `now` is BullMQ's clock, the
 * process's Date.now(): the one it stamps its jobs with. `client` is the queues' connection.
 */
export async function replanTimers(
  queues: Queues,
  client: RedisClient,
  now: () => number = Date.now,
): Promise<ReplannedTimers> {
  let delayed = 0;
  let finished = 0;
  for (const queue of Object.values(queues) as Queue[]) {
    delayed += await replanDelayed(queue, client, now());
    finished += await removeFinishedAhead(queue, client, now());
  }
  return { delayed, finished };
}

async function replanDelayed(queue: Queue, client: RedisClient, now: number): Promise<number> {
  const entries = await client.zrangebyscore(queue.keys.delayed!, '-inf', '+inf', 'WITHSCORES');
  let replanned = 0;
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const id = entries[i]!;
    // The score is the due time × 0x1000 plus a counter that orders jobs due the same ms.
    const dueAt = Math.floor(Number(entries[i + 1]) / 0x1000);
    const job = await queue.getJob(id);
    if (job === undefined) continue;
    const delay = Math.max(0, job.delay ?? 0);
    if (dueAt - delay <= now + CLOCK_JUMP_MS) continue;
    try {
      await job.changeDelay(delay);
      replanned++;
    } catch {
      // Promoted or removed meanwhile: nothing is left to set again.
    }
  }
  return replanned;
}

async function removeFinishedAhead(
  queue: Queue,
  client: RedisClient,
  now: number,
): Promise<number> {
  let removed = 0;
  for (const key of [queue.keys.completed!, queue.keys.failed!]) {
    // Scored by the time they finished.
    const ids = await client.zrangebyscore(
      key,
      `(${now + CLOCK_JUMP_MS}`,
      '+inf',
      'LIMIT',
      0,
      FINISHED_BATCH,
    );
    for (const id of ids) removed += await queue.remove(id);
  }
  return removed;
}
