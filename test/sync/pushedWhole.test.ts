import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import { dcCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';

/** Issue #29, point 1: a first start that pushes every row is the kind's starting point. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const READ_DC = 'GET /distribution-centre-stocks';

describe('a push of every row', () => {
  it('counts as the kind’s last full read: its next idle pass is due RECONCILE_MIN_INTERVAL_MS later', async () => {
    h = await startHarness('pushed-whole', { products: 300, shipments: 0 });
    const d = await h.start({ RECONCILE_MIN_INTERVAL_MS: '60000' });
    // 30 DC rows: pushing them (1 call) is cheaper than reading 9 pages.
    const rows = Array.from(
      { length: 30 },
      (_, i) => [ACTIVE_DC_CODES[0]!, seededSku(i), 500 + i] as const,
    );
    h.drop('dc.csv', dcCsv(rows));
    await d.waitFor(
      (l) => l.event === 'sync.first_start' && l.kind === 'dc' && l.choice === 'push',
    );
    await d.waitFor((l) => l.event === 'sync.pushed');
    await h.runNow('reconcile');
    await h.waitForIdle(['push', 'ingest', 'reconcile']);
    const reads = () => h!.sim.stats().requests.filter((r) => r.route === READ_DC).length;
    expect(reads()).toBe(0);

    // Before the interval: still nothing; once it has passed, the lane reads DC stock. (Ten
    // seconds short of it: real time passes too, and the clock's move is a jump forward, after
    // which the schedules that missed a slot run once, the periodic recovery among them.)
    h.clock.advance(50_000);
    await h.runNow('reconcile');
    await h.waitForIdle(['push', 'ingest', 'reconcile']);
    expect(reads()).toBe(0);
    h.clock.advance(10_000);
    await h.runNow('reconcile');
    await d.waitFor((l) => l.event === 'reconcile.completed' && l.kind === 'dc');
    expect(reads()).toBe(9);
  });
});
