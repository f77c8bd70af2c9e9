import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));

describe('insight through the running daemon', () => {
  it('status says when the pending differences will be pushed at the budget left', async () => {
    h = await startHarness(
      'eta',
      { maxBulkItems: 10 },
      {
        BULK_BATCH_SIZE: '10',
        API_REQUESTS_PER_HOUR: '8',
        API_STOCK_RESERVE: '2',
        API_RECONCILE_RESERVE: '0',
        SYNC_TIMEZONE: 'Europe/Berlin',
      },
    );
    await h.start();
    h.drop(
      'big.csv',
      factoryCsv(Array.from({ length: 100 }, (_, i) => [seededSku(i), 7000 + i] as const)),
    );
    await h.daemon!.waitForEvent('queue.paused', 20_000);

    const s = json((await h.cli(['status', '--json'])).output);
    const pending = s.pendingDifferences.factory;
    expect(pending).toBeGreaterThan(0);
    expect(s.eta.calls).toBe(Math.ceil(pending / 10));
    // The stock lane's share of the hour is spent: the last call waits for old ones to leave.
    const at = Date.parse(s.eta.at);
    expect(at).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(at).toBeLessThan(Date.now() + 3 * 3_600_000);
    expect(s.health.verdict).toBe('degraded');

    const text = (await h.cli(['status'])).output;
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^supplier-sync: DEGRADED: the call budget of stock pushes is spent/);
    expect(text).toMatch(
      /pending\s+\d+ factory and 0 DC differences since \d\d:\d\d \((now|\d+ s ago)\)/,
    );
    expect(text).toMatch(/done by \d\d:\d\d \(in (59 min|1 h)\)/);
    // No raw JSON and no epoch milliseconds anywhere in what a person reads.
    expect(text).not.toMatch(/[{}]|\b1[78]\d{11}\b/);
  });
});
