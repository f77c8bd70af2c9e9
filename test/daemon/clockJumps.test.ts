import { afterEach, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/jobs/connection.ts';
import { closeQueues, createQueues } from '../../src/jobs/queues.ts';
import { openStateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import {
  factoryCsv,
  type Harness,
  type LogLine,
  type RunningDaemon,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

const DAY = 86_400_000;

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** The first line matching after `line` (already logged or coming). */
const lineAfter = (d: RunningDaemon, line: LogLine, match: (l: LogLine) => boolean, what: string) =>
  d.waitFor((l) => d.lines.indexOf(l) > d.lines.indexOf(line) && match(l), 15_000, what);

const processed = (d: RunningDaemon, file: string) =>
  d.waitFor((l) => l.event === 'file.processed' && l.file === file, 15_000, `${file} processed`);

/** The heartbeat state.db holds now. */
function heartbeatAt(): number | undefined {
  const db = openStateDb(`${h.box.dataDir}/state.db`);
  try {
    return new KeyValueStore(db).get('daemon.heartbeat')?.at;
  } finally {
    db.close();
  }
}

describe('the clock moved back a day under a running daemon', () => {
  it('is noticed and logged; the polls go on, and the heartbeat is dated by the clock as it is now', async () => {
    h = await startHarness('clock-back', {}, { SHIPMENTS_POLL_CRON: '*/2 * * * * *' });
    const d = await h.start();
    await d.waitForEvent('shipments.polled');
    expect(heartbeatAt()).toBeGreaterThan(h.clock.now() - 60_000);

    h.clock.advance(-DAY);
    const jump = await d.waitForEvent('clock.jump');
    expect(jump.level).toBe('warn');
    expect(jump.noticedBy).toBe('watch');
    expect(Number(jump.jumpMs)).toBeLessThan(-DAY + 10_000);
    expect(Number(jump.jumpMs)).toBeGreaterThan(-DAY - 10_000);
    // The schedules' slots a day ahead are given up for the first after the clock as it is now.
    const replanned = await d.waitFor(
      (l) => l.event === 'schedule.replanned' && l.schedule === 'shipments-poll',
    );
    expect(Date.parse(`${replanned.next}Z`)).toBeLessThan(
      Date.parse(`${replanned.was}Z`) - DAY + 10_000,
    );
    const polled = await lineAfter(d, jump, (l) => l.event === 'shipments.polled', 'a poll after');
    await lineAfter(d, polled, (l) => l.event === 'shipments.polled', 'another poll after');

    await waitUntil(() => (heartbeatAt() ?? Number.POSITIVE_INFINITY) <= h.clock.now(), {
      message: 'a heartbeat dated by the clock as it is now',
    });
    const health = await h.cli(['health']);
    expect(health.output).toBe('healthy\n');
  });

  it('a file dropped after the jump wins over the files before it; files waiting together keep their order by modification time', async () => {
    h = await startHarness('clock-files', { products: 50 });
    const d = await h.start();
    h.drop('before.csv', factoryCsv([[seededSku(0), 5]]));
    await processed(d, 'before.csv');

    h.clock.advance(-DAY);
    await h.runNow('recover'); // a look at the clock, as every schedule's tick makes
    await d.waitForEvent('clock.jump');
    // Written by the ERP after the jump: dated by the clock as it is now, a day before before.csv.
    const now = h.clock.now();
    h.drop('after.csv', factoryCsv([[seededSku(0), 7]]), new Date(now));
    await processed(d, 'after.csv');
    await waitUntil(() => h.sim.store.factoryStock(seededSku(0))?.stock_quantity === 7, {
      message: 'the portal to hold what after.csv says',
    });

    // Two files of another key, both written after the jump and before they are seen (a time
    // ahead of the clock would count as when each was seen: the order they were seen in).
    h.drop('newer.csv', factoryCsv([[seededSku(1), 2]]), new Date(now - 1000));
    h.drop('older.csv', factoryCsv([[seededSku(1), 1]]), new Date(now - 2000));
    await processed(d, 'newer.csv');
    await processed(d, 'older.csv');
    await h.waitForIdle();
    expect(h.sim.store.factoryStock(seededSku(1))?.stock_quantity).toBe(2);
  });
});

describe('the clock moved back a day while the daemon was stopped', () => {
  it('the start notices it by what the last run wrote last; a file dropped after it wins over those before', async () => {
    h = await startHarness('clock-start', { products: 50 });
    let d = await h.start();
    h.drop('before.csv', factoryCsv([[seededSku(0), 5]]));
    await processed(d, 'before.csv');
    await h.stop();

    h.clock.advance(-DAY);
    // Stopped, with its last heartbeat a day ahead of the clock: not running, whatever the age.
    const health = await h.cli(['health']);
    expect(health.code).toBe(1);
    expect(health.stderr).toMatch(/last heartbeat dated 24 h ahead of this clock/);
    expect((await h.statusJson()).health.reasons[0]).toMatch(
      /^the daemon is not running \(last heartbeat dated 24 h ahead/,
    );

    d = await h.start();
    const jump = await d.waitFor((l) => l.event === 'clock.jump' && l.noticedBy === 'start');
    expect(Number(jump.jumpMs)).toBeLessThan(-DAY + 60_000);
    h.drop('after.csv', factoryCsv([[seededSku(0), 7]]), new Date(h.clock.now()));
    await processed(d, 'after.csv');
    await waitUntil(() => h.sim.store.factoryStock(seededSku(0))?.stock_quantity === 7, {
      message: 'the portal to hold what after.csv says',
    });
  });

  it("BullMQ's reading timer, left a day ahead, is set going from now at the start", async () => {
    h = await startHarness('clock-timers');
    const connection = redisConnection(h.box.redisUrl);
    const queues = createQueues(connection, h.box.prefix, () => () => {});
    try {
      // As a daemon whose clock was a day ahead left it: due in a day and half a second.
      await queues.reconcile.add(
        'reconcile',
        { reason: 'interval' },
        { jobId: 'timer-ahead', delay: 500, timestamp: Date.now() + DAY },
      );
      const d = await h.start();
      const replanned = await d.waitForEvent('clock.timers_replanned');
      expect(replanned).toMatchObject({ reason: 'start', delayed: 1 });
      await waitUntil(
        async () => (await queues.reconcile.getJobState('timer-ahead')) !== 'delayed',
        {
          message: 'the timer to have fired',
        },
      );
    } finally {
      await closeQueues(queues);
      connection.disconnect();
    }
  });
});

describe('shipment polls overdue', () => {
  it('make status degraded, naming the schedule and when it last ran, until a poll runs again', async () => {
    h = await startHarness('polls-overdue', {}, { SHIPMENTS_POLL_CRON: '*/1 * * * * *' });
    const d = await h.start();
    await d.waitForEvent('shipments.polled');
    expect((await h.statusJson()).health.verdict).toBe('healthy');

    h.sim.faults.set({ routeFaults: [{ route: 'GET /shipments/ready-to-ship', status: 500 }] });
    const overdue = await waitUntil(
      async () => {
        const reasons: string[] = (await h.statusJson()).health.reasons;
        return reasons.find((r) => r.startsWith('shipment polls are overdue'));
      },
      { timeoutMs: 15_000, message: 'the polls to be overdue' },
    );
    expect(overdue).toMatch(
      /^shipment polls are overdue: the schedule shipments-poll \(SHIPMENTS_POLL_CRON `\*\/1 \* \* \* \* \*`\) last ran \d+ s ago \(\d{4}-\d\d-\d\dT[\d:.]+Z\), more than two intervals late$/,
    );
    expect((await h.cli(['status'])).output.split('\n')[0]).toMatch(
      /^supplier-sync: DEGRADED: shipment polls are overdue/,
    );

    h.sim.faults.clear();
    await waitUntil(async () => (await h.statusJson()).health.verdict === 'healthy', {
      timeoutMs: 30_000,
      message: 'healthy again once polls run',
    });
  });
});
