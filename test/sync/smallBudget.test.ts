import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CallLog } from '../../src/state/calls/callLog.ts';
import { openStateDb } from '../../src/state/db.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';

/**
 * Issue #29, point 4: a budget of 40 calls an hour with shipment polls every second. Polls may
 * take at most 40 − 10 (API_STOCK_RESERVE 3 + API_POLL_RESERVE 7 at 40): stock pushes keep 7.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const BULK = 'POST /factory-stocks/bulk-update';

describe('a budget of 40 calls an hour', () => {
  it('pushes while polls run every second, and status says why stock pushes then wait', async () => {
    h = await startHarness(
      'small-budget',
      { products: 500, shipments: 0 },
      { API_REQUESTS_PER_HOUR: '40', SHIPMENTS_POLL_CRON: '*/1 * * * * *', BULK_BATCH_SIZE: '10' },
    );
    // The polls of the last minutes already took their share of the hour: 30 calls.
    mkdirSync(h.box.dataDir, { recursive: true });
    const db = openStateDb(join(h.box.dataDir, 'state.db'));
    const log = new CallLog(db);
    for (let i = 0; i < 30; i++) log.record(h.clock.now() - 60_000 + i * 1000, 'poll');
    db.close();

    const d = await h.start();
    // 200 rows, each differing: 20 batches, far more than the hour leaves.
    const rows = Array.from({ length: 200 }, (_, i) => {
      const q = h!.sim.store.factoryStock(seededSku(i))!.stock_quantity;
      return [seededSku(i), q + 1] as const;
    });
    h.drop('stock.csv', factoryCsv(rows));
    await d.waitFor((l) => l.event === 'queue.paused' && l.queue === 'push', 30_000);
    const landed = rows.filter(([s, q]) => h!.sim.store.factoryStock(s)?.stock_quantity === q);
    // One page read for the first start (cheaper than 20 batches), then 6 batches of 10.
    expect(landed.length).toBe(60);
    expect(h.sim.stats().requests.filter((r) => r.route === BULK)).toHaveLength(6);
    // Polls took nothing more: they had their 30.
    expect(h.sim.stats().requests.filter((r) => r.route.includes('ready-to-ship'))).toEqual([]);

    const s = await h.statusJson();
    const stock = s.budget.starved.find((l: { lane: string }) => l.lane === 'stock');
    expect(stock.reason).toMatch(
      /take all this lane may use: 37 of API_REQUESTS_PER_HOUR 40 less 3 kept by API_STOCK_RESERVE/,
    );
    expect(stock.reason).toMatch(/poll 30/);
    expect(s.budget.starved.map((l: { lane: string }) => l.lane)).toContain('poll');
    const human = await h.cli(['status']);
    expect(human.output).toMatch(
      /starved +stock pushes: no call before .*: the last hour's 37 calls \(poll 30, stock 7\)/,
    );
    expect(human.output).toMatch(/starved +shipment polls: no call before/);
  });
});
