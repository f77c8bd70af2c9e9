import type { Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BudgetExhaustedError,
  PortalHttpError,
  RateLimitedError,
} from '../../src/api/portalErrors.ts';
import { redisConnection } from '../../src/jobs/connection.ts';
import { closeQueues, createQueues, pushDue, type Queues } from '../../src/jobs/queues.ts';
import type { RedisErrorSink } from '../../src/jobs/redisWatch.ts';
import { FIX_CONFIG_RECHECK_MS, startWorkers, type WorkerSet } from '../../src/jobs/workers.ts';
import { LogCapture } from '../api/helpers.ts';
import { deleteKeys, makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';

/**
 * The workers map the API's failure policy onto BullMQ (real Redis): final → failed at once,
 * retry at a named time → delayed until then, wait → the queue pauses, fix-config → the lane
 * stops for the re-check interval. Each test's push processor fails once, then succeeds.
 */

/** Redis answers in these tests; an error would show in the test's own failures. */
const ignoreRedisErrors = () => () => {};

let box: Sandbox;
let queues: Queues;
let connection: ReturnType<typeof redisConnection>;
let workers: WorkerSet | undefined;
let logs: LogCapture;
let runs: number[];

beforeEach(() => {
  box = makeSandbox('workers');
  connection = redisConnection(box.redisUrl);
  queues = createQueues(connection, box.prefix, ignoreRedisErrors);
  logs = new LogCapture();
  runs = [];
});

afterEach(async () => {
  await workers?.close();
  workers = undefined;
  await closeQueues(queues);
  connection.disconnect();
  await box.cleanup();
});

/**
 * Starts the workers with a push processor that throws `first()` on its first run (or the given
 * one), their Redis errors going to `onError` (ignored by default).
 */
function start(
  first: () => unknown,
  afterPush?: () => Promise<unknown>,
  options: {
    push?: (job: Job) => Promise<unknown>;
    shipments?: (job: Job) => Promise<unknown>;
    onError?: RedisErrorSink;
  } = {},
) {
  const noop = async () => undefined;
  workers = startWorkers({
    redis: box.redisUrl,
    connection,
    prefix: box.prefix,
    queues,
    log: logs.logger,
    lockMs: 4000,
    onError: options.onError ?? ignoreRedisErrors,
    ...(afterPush === undefined ? {} : { afterJob: { push: afterPush } }),
    processors: {
      push:
        options.push ??
        (async (_job: Job) => {
          runs.push(Date.now());
          if (runs.length === 1) throw first();
          return 'done';
        }),
      shipments: options.shipments ?? noop,
      ingest: noop,
      products: noop,
      reconcile: noop,
      maintenance: noop,
    },
  });
}

async function addPush() {
  const job = await queues.push.add('push', { reason: 'test' });
  return job.id!;
}

const state = async (id: string) => (await queues.push.getJob(id))?.getState();

describe('workers apply the failure policy (real Redis)', () => {
  it('final: the job fails at once, without BullMQ’s attempts', async () => {
    start(() => new PortalHttpError('POST /x: HTTP 404', { status: 404 }));
    const id = await addPush();
    await waitUntil(async () => (await state(id)) === 'failed', { message: 'the job failed' });
    const job = await queues.push.getJob(id);
    expect(job?.attemptsMade).toBe(1);
    expect(runs).toHaveLength(1);
  });

  it.each([
    {
      what: 'retry at a time the portal named: the job is delayed until then',
      error: (at: number) => new RateLimitedError('429', { status: 429, retryAt: at }),
      event: 'job.delayed',
    },
    {
      what: 'wait (a spent budget): the queue pauses until then, the job is not failed',
      error: (at: number) => new BudgetExhaustedError('stock', at),
      event: 'queue.paused',
    },
  ])('$what, and runs again then', async ({ error, event }) => {
    const retryAt = Date.now() + 1500;
    start(() => error(retryAt));
    const id = await addPush();
    await waitUntil(async () => (await state(id)) === 'completed', {
      timeoutMs: 15_000,
      message: 'the job ran again and completed',
    });
    expect(runs).toHaveLength(2);
    expect(runs[1]!).toBeGreaterThanOrEqual(retryAt - 50);
    expect((await queues.push.getJob(id))?.attemptsMade).toBeLessThanOrEqual(1);
    expect(logs.events(event)).toEqual([expect.objectContaining({ queue: 'push' })]);
  });

  it('wait for a poll’s own lane: the poll alone waits, the confirmations of its queue go on', async () => {
    const ran: string[] = [];
    const freesAt = Date.now() + 2000;
    start(() => undefined, undefined, {
      shipments: async (job: Job) => {
        ran.push(job.name);
        if (job.name === 'poll' && ran.filter((n) => n === 'poll').length === 1)
          throw new BudgetExhaustedError('poll', freesAt);
        return job.name;
      },
    });
    const poll = await queues.shipments.add('poll', { task: 'poll', reason: 'test' });
    await waitUntil(() => logs.events('job.delayed').length > 0, { message: 'the poll delayed' });
    expect(logs.events('job.delayed')).toEqual([
      expect.objectContaining({ queue: 'shipments', job: 'poll' }),
    ]);
    expect(logs.events('queue.paused')).toEqual([]);
    expect(await queues.shipments.getRateLimitTtl()).toBeLessThanOrEqual(0);
    const confirm = await queues.shipments.add('confirm', { task: 'confirm', reason: 'test' });
    await waitUntil(async () => (await confirm.getState()) === 'completed', {
      message: 'the confirmation sent while the poll waits',
    });
    expect(Date.now()).toBeLessThan(freesAt);
    await waitUntil(
      async () => (await queues.shipments.getJob(poll.id!))?.finishedOn !== undefined,
      {
        timeoutMs: 10_000,
        message: 'the poll run again once its lane freed',
      },
    );
    expect(ran).toEqual(['poll', 'confirm', 'poll']);
    expect((await queues.shipments.getJob(poll.id!))?.finishedOn).toBeGreaterThanOrEqual(
      freesAt - 50,
    );
  });

  it('fix-config: the lane stops for the re-check interval with an error line; the job is kept', async () => {
    start(() => new PortalHttpError('POST /x: HTTP 403', { status: 403, apiMessage: 'No' }));
    const id = await addPush();
    await waitUntil(() => logs.events('queue.fix_config').length > 0, {
      message: 'queue.fix_config',
    });
    const [line] = logs.events('queue.fix_config');
    expect(line).toMatchObject({ level: 'error', queue: 'push', recheckMs: FIX_CONFIG_RECHECK_MS });
    expect(String(line!.reason)).toContain('403');
    expect(await queues.push.getRateLimitTtl()).toBeGreaterThan(FIX_CONFIG_RECHECK_MS - 60_000);
    await waitUntil(async () => (await state(id)) === 'waiting', {
      message: 'the job back in line, not failed',
    });
    expect(runs).toHaveLength(1);
  });

  it('runs what follows a push once the job has left the active state, after a failure and after success', async () => {
    // The reading lane, woken after a push, asks whether a push is due: it must not see this one.
    const seen: boolean[] = [];
    start(
      () => new PortalHttpError('POST /x: HTTP 404', { status: 404 }),
      async () => seen.push(await pushDue(queues)),
    );
    const failed = await addPush();
    await waitUntil(() => seen.length === 1, { message: 'after the failed push' });
    expect(await state(failed)).toBe('failed');
    const done = await addPush();
    await waitUntil(() => seen.length === 2, { message: 'after the completed push' });
    expect(await state(done)).toBe('completed');
    expect(seen).toEqual([false, false]);
  });

  it('closes at once when asked while a job that stops its lane is running (no wait for the lane’s pause)', async () => {
    // The close comes while the push is failing with fix-config: the worker must not start
    // waiting out the lane's pause (5 min, in waits of up to 30 s) once it is closing.
    let closed: Promise<void> | undefined;
    start(() => {
      closed = workers!.close();
      return new PortalHttpError('POST /x: HTTP 403', { status: 403, apiMessage: 'No' });
    });
    await addPush();
    await waitUntil(() => closed !== undefined, { message: 'the close asked for' });
    await closed;
    workers = undefined;
    expect(logs.events('queue.fix_config')).toHaveLength(1);
  }, 10_000);

  it('a job whose record Redis lost while it ran (restarted empty, flushed) is logged as lost, not as a Redis error', async () => {
    const redisErrors: string[] = [];
    let release: (() => void) | undefined;
    const running = new Promise<void>((r) => {
      release = r;
    });
    let started = false;
    start(() => undefined, undefined, {
      push: async () => {
        started = true;
        await running;
        return 'done';
      },
      onError: (source) => (err) => redisErrors.push(`${source}: ${err.message}`),
    });
    await addPush();
    await waitUntil(() => started, { message: 'the push running' });
    await deleteKeys(box.redisUrl, `${box.prefix}:*`); // the job's key and lock with it
    release!();
    const lost = await waitUntil(() => logs.events('job.lost')[0], { message: 'job.lost' });
    expect(lost).toMatchObject({ level: 'info', queue: 'push' });
    expect(String(lost.error)).toMatch(/^Missing (key|lock) for job /);
    expect(redisErrors).toEqual([]);
  });
});

/** The names CLIENT LIST shows for connections under this test's prefix. */
async function connectionNames(): Promise<string[]> {
  const list = String(await connection.client('LIST'));
  return list
    .split('\n')
    .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith(`${box.prefix}:`));
}

describe('the queues over two Redis connections (real Redis)', () => {
  it('every queue waits for work over one blocking connection, and the queues still run side by side', async () => {
    const ran: string[] = [];
    let ingestRan = () => {};
    const ingested = new Promise<void>((r) => {
      ingestRan = r;
    });
    const record = (name: string) => async () => {
      ran.push(name);
    };
    workers = startWorkers({
      redis: box.redisUrl,
      connection,
      prefix: box.prefix,
      queues,
      log: logs.logger,
      lockMs: 4000,
      onError: ignoreRedisErrors,
      processors: {
        // The push lasts until the ingest lane has run a job: no lane waits for another.
        push: async () => {
          ran.push('push');
          await ingested;
          return 'done';
        },
        ingest: async () => {
          ran.push('ingest');
          ingestRan();
        },
        shipments: record('shipments'),
        products: record('products'),
        reconcile: record('reconcile'),
        maintenance: record('maintenance'),
      },
    });
    const push = await addPush();
    await waitUntil(() => ran.includes('push'), { message: 'the push running' });
    await queues.ingest.add('ingest', { name: 'a.csv' });
    await queues.shipments.add('poll', { task: 'poll', reason: 'test' });
    await queues.reconcile.add('reconcile', { reason: 'test' });
    await queues.maintenance.add('recover', { task: 'recover', reason: 'test' });
    await waitUntil(
      () => ['ingest', 'shipments', 'reconcile', 'maintenance'].every((n) => ran.includes(n)),
      { message: 'a job of every other lane ran while the push waited' },
    );
    await waitUntil(async () => (await state(push)) === 'completed', { message: 'push done' });
    // The test's own connection carries the workers' commands; their one other is the wait.
    expect(await connectionNames()).toEqual([`${box.prefix}:workers`]);
  });
});
