/**
 * SIGTERM to the daemon's process in the middle of a push: a graceful stop (the call in flight
 * finishes, exit 0 within 10 s), and the rest is pushed after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, seededSku } from '../helpers/daemonHarness.ts';
import { type ProcessHarness, startProcessHarness } from '../helpers/processHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: ProcessHarness;
afterEach(async () => {
  await h?.cleanup();
});

describe('the daemon as a process, stopped mid-work', { timeout: 120_000 }, () => {
  it('stops gracefully on SIGTERM in the middle of a push, within 10 s, and converges after a restart', async () => {
    h = await startProcessHarness('sigterm', { maxBulkItems: 10 }, { BULK_BATCH_SIZE: '10' });
    h.sim.faults.set({ slowMs: 150 });
    await h.start();
    const rows = Array.from({ length: 200 }, (_, i) => [seededSku(i), 60 + i] as const);
    h.drop('big.csv', factoryCsv(rows));
    await h.daemon!.waitForEvent('stock.pushed', 20_000);
    const t0 = Date.now();
    expect(await h.stop()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    h.sim.faults.clear();
    await h.start();
    await waitUntil(
      () => rows.every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q),
      { timeoutMs: 30_000 },
    );
  });
});
