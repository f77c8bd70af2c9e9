import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/jobs/connection.ts';
import { Nudges } from '../../src/jobs/nudges.ts';
import {
  closeQueues,
  createQueues,
  creationsDue,
  pushDue,
  type Queues,
} from '../../src/jobs/queues.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

let box: Sandbox;
let a: { queues: Queues; close(): Promise<void> };
let b: { queues: Queues; close(): Promise<void> };

function daemonSide() {
  const connection = redisConnection(box.redisUrl);
  const queues = createQueues(connection, box.prefix, () => () => {});
  return {
    queues,
    async close() {
      await closeQueues(queues);
      connection.disconnect();
    },
  };
}

beforeEach(() => {
  box = makeSandbox('nudges');
  a = daemonSide();
  b = daemonSide();
});
afterEach(async () => {
  await a.close();
  await b.close();
  await box.cleanup();
});

describe('nudges (real Redis)', () => {
  it('a schedule slot gives one job, whichever daemon sharing the Redis adds it, and however often', async () => {
    const slot = '2026-11-22T02:05:00';
    await new Nudges(a.queues).poll('schedule', slot);
    await new Nudges(b.queues).poll('schedule', slot);
    await new Nudges(a.queues).poll('schedule', slot);
    await new Nudges(b.queues).reconcile('schedule', slot);
    await new Nudges(a.queues).reconcile('schedule', slot);
    expect(await a.queues.shipments.count()).toBe(1);
    expect(await a.queues.reconcile.count()).toBe(1);
    await new Nudges(a.queues).poll('schedule', '2026-11-22T02:10:00');
    expect(await a.queues.shipments.count()).toBe(2);
  });

  it('push nudges never pile up, and a file is one job whoever offers it', async () => {
    for (let i = 0; i < 5; i++) await new Nudges(i % 2 ? a.queues : b.queues).push(`file ${i}`);
    expect(await a.queues.push.count()).toBe(1);
    await new Nudges(a.queues).ingest('f.csv', 'inbox-abc');
    await new Nudges(b.queues).ingest('f.csv', 'inbox-abc');
    expect(await a.queues.ingest.count()).toBe(1);
  });
  it('one reading timer waits at a time; a push that waits to run is due, one held by its pause is not', async () => {
    const now = Date.now();
    await new Nudges(a.queues).reconcileAt(now + 60_000, 'interval');
    await new Nudges(b.queues).reconcileAt(now + 30_000, 'interval');
    expect(await a.queues.reconcile.getDelayedCount()).toBe(1);

    expect(await pushDue(a.queues)).toBe(false);
    await new Nudges(a.queues).push('file');
    expect(await pushDue(a.queues)).toBe(true);
    await a.queues.push.rateLimit(60_000);
    expect(await pushDue(b.queues)).toBe(false);
  });

  it('product work is due to reading also while its lane is spent; its wake-up timer holds no run back', async () => {
    const nudges = new Nudges(a.queues);
    await nudges.productsIn(60_000, 'review due');
    expect(await a.queues.products.getDelayedCount()).toBe(1);
    expect(await creationsDue(a.queues)).toBe(false);
    await nudges.products('file');
    expect(await a.queues.products.getWaitingCount()).toBe(1);
    expect(await creationsDue(a.queues)).toBe(true);
    // Creations wait for their lane: reading still leaves them the calls.
    await a.queues.products.rateLimit(60_000);
    expect(await creationsDue(b.queues)).toBe(true);
    await nudges.productsIn(1000, 'sooner');
    expect(await a.queues.products.getDelayedCount()).toBe(1);
  });
});
