import { type Job, Worker } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queueKeyPrefix, type RedisClient, redisConnection } from '../../src/jobs/connection.ts';
import { Nudges } from '../../src/jobs/nudges.ts';
import { closeQueues, createQueues, type Queues } from '../../src/jobs/queues.ts';
import { replanTimers } from '../../src/jobs/timers.ts';
import { makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';

const DAY = 86_400_000;

let box: Sandbox;
let connection: RedisClient;
let queues: Queues;

beforeEach(() => {
  box = makeSandbox('timers');
  connection = redisConnection(box.redisUrl);
  queues = createQueues(connection, box.prefix, () => () => {});
});
afterEach(async () => {
  await closeQueues(queues);
  connection.disconnect();
  await box.cleanup();
});

/** When a delayed job is due, as BullMQ scores it (epoch ms). */
async function dueAt(id: string): Promise<number | null> {
  const score = await connection.zscore(queues.reconcile.keys.delayed!, id);
  return score === null ? null : Math.floor(Number(score) / 0x1000);
}

describe("BullMQ's timers after the clock went back (real Redis)", () => {
  it('a job delayed while the clock was a day ahead is delayed again from now, by its own delay', async () => {
    const now = Date.now();
    // As a daemon whose clock was a day ahead left the reading timer: due in a day and 30 s.
    const ahead = await queues.reconcile.add(
      'reconcile',
      { reason: 'interval' },
      { jobId: 'ahead', delay: 30_000, timestamp: now + DAY },
    );
    const later = await queues.reconcile.add(
      'reconcile',
      { reason: 'interval' },
      { jobId: 'later', delay: 600_000 },
    );
    const laterDue = await dueAt(later.id!);
    expect((await dueAt(ahead.id!))! - now).toBeGreaterThan(DAY);

    expect(await replanTimers(queues, connection)).toEqual({ delayed: 1, finished: 0 });
    const due = (await dueAt(ahead.id!))!;
    expect(due - Date.now()).toBeLessThanOrEqual(30_000);
    expect(due - now).toBeGreaterThanOrEqual(30_000);
    // One delayed at the right time stays as it was; a second look changes nothing.
    expect(await dueAt(later.id!)).toBe(laterDue);
    expect(await replanTimers(queues, connection)).toEqual({ delayed: 0, finished: 0 });
  });

  it('a slot job that finished while the clock was ahead gives its id back', async () => {
    const slot = '2026-11-29T10:00:10';
    const nudges = new Nudges(queues);
    await nudges.poll('schedule', slot);
    const done = new Promise<Job>((resolve) => {
      const worker = new Worker('shipments', async () => 'polled', {
        connection,
        prefix: queueKeyPrefix(box.prefix, connection),
        autorun: true,
      });
      worker.on('completed', (job) => {
        void worker.close().then(() => resolve(job));
      });
    });
    const job = await done;
    // What a worker whose clock was a day ahead leaves: it finished a day from now.
    const finishedAhead = Date.now() + DAY;
    await connection.zadd(queues.shipments.keys.completed!, finishedAhead, job.id!);
    await connection.hset(queues.shipments.toKey(job.id!), 'finishedOn', finishedAhead);
    // The slot comes again (the clock went back): its id is taken, the tick would be lost.
    await nudges.poll('schedule', slot);
    expect(await queues.shipments.count()).toBe(0);

    expect(await replanTimers(queues, connection)).toEqual({ delayed: 0, finished: 1 });
    await nudges.poll('schedule', slot);
    await waitUntil(async () => (await queues.shipments.count()) === 1, {
      message: 'the slot asked for again',
    });
  });
});
