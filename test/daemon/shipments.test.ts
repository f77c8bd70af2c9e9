import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const today = () => new Date().toISOString().slice(0, 10);
const outboxOrders = (h: Harness) => {
  const dir = join(h.box.dataDir, 'outbox');
  return readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .flatMap((f) =>
      (
        JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
          shipments: Array<{ order_number: string }>;
        }
      ).shipments.map((s) => s.order_number),
    );
};
const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));

describe('shipments through the running daemon', () => {
  it('hands exactly the ready-to-ship orders to the ERP once, across a restart', async () => {
    h = await startHarness('ship-out', {}, { SHIPMENTS_POLL_CRON: '*/1 * * * * *' });
    const ready = h.sim.store
      .allShipments()
      .filter((s) => s.status === 'pending' && s.ship_by === today())
      .map((s) => s.order_number)
      .sort();
    await h.start();
    await waitUntil(() => outboxOrders(h).length === ready.length, {
      timeoutMs: 15_000,
      message: 'the first export',
    });
    await h.daemon!.waitFor(
      (l) => l.event === 'shipments.polled' && l.new === 0,
      10_000,
      'a poll with nothing new',
    );
    expect(await h.stop()).toBe(0);
    await h.start();
    await h.daemon!.waitFor((l) => l.event === 'shipments.polled', 10_000);
    await h.daemon!.waitFor((l) => l.event === 'shipments.polled' && l.new === 0, 10_000);
    expect(outboxOrders(h).sort()).toEqual(ready);
  });

  it('sends confirmations: shipped, collected, is_collected; unknown order and conflict reported; duplicate sent once', async () => {
    h = await startHarness('ship-confirm');
    await h.start();
    await waitUntil(() => outboxOrders(h).length > 0, { timeoutMs: 15_000 });
    const [a, b, c] = outboxOrders(h);
    h.drop(
      'confirm.csv',
      [
        'order_number,carrier,tracking_number,is_collected,action',
        `${a},DPD,T-A,false,shipped`,
        `${b},UPS,T-B,true,shipped`,
        `${c},DHL,T-C,,collected`,
        'NO-SUCH-ORDER,DPD,T-X,false,shipped',
        `${a},DPD,T-A,false,shipped`,
        `${a},DPD,T-OTHER,false,shipped`,
        '',
      ].join('\n'),
    );
    await h.daemon!.waitFor((l) => l.event === 'shipment.confirm_failed', 15_000);
    await waitUntil(
      () => h.daemon!.lines.filter((l) => l.event === 'shipment.confirmed').length === 3,
      { timeoutMs: 15_000 },
    );
    expect(h.sim.store.shipment(a!)).toMatchObject({ status: 'shipped', tracking_number: 'T-A' });
    expect(h.sim.store.shipment(b!)).toMatchObject({ tracking_number: 'T-B', is_collected: true });
    expect(h.sim.store.shipment(c!)).toMatchObject({ status: 'collected', tracking_number: 'T-C' });
    const shippedA = h.sim
      .stats()
      .requests.filter(
        (r) => r.route === 'POST /shipments/:order_number/shipped' && r.path.includes(a!),
      );
    expect(shippedA).toHaveLength(1);

    const failures = json((await h.cli(['failures', '--json'])).output) as {
      confirmations: Array<{ orderNumber: string; status: string }>;
    };
    expect(failures.confirmations.map((f) => [f.orderNumber, f.status])).toEqual([
      ['NO-SUCH-ORDER', 'failed'],
      [a, 'conflict'],
    ]);
    // The file's report carries the portal's answers.
    const processed = join(h.box.dataDir, 'processed');
    const reportName = readdirSync(processed).find((f) => f.endsWith('confirm.csv.report.json'))!;
    await waitUntil(
      () => JSON.parse(readFileSync(join(processed, reportName), 'utf8')).portal?.failed === 1,
      { timeoutMs: 5000 },
    );
    const report = JSON.parse(readFileSync(join(processed, reportName), 'utf8'));
    expect(report.confirmations).toMatchObject({ new: 4, duplicate: 1, conflict: 1 });
    expect(report.portal).toMatchObject({ confirmed: 3, failed: 1 });
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.failures.confirmations).toMatchObject({
      confirmedToday: 3,
      failed: 1,
      conflicts: 1,
    });
  });

  it('with the stock lane spent by a large push, confirmations still go first', async () => {
    h = await startHarness(
      'ship-first',
      { maxBulkItems: 1 },
      {
        BULK_BATCH_SIZE: '1',
        API_REQUESTS_PER_HOUR: '30',
        API_STOCK_RESERVE: '10',
        API_RECONCILE_RESERVE: '20',
      },
    );
    await h.start();
    await waitUntil(() => outboxOrders(h).length >= 3, { timeoutMs: 15_000 });
    h.drop(
      'big.csv',
      factoryCsv(Array.from({ length: 100 }, (_, i) => [seededSku(i), 3000 + i] as const)),
    );
    await h.daemon!.waitForEvent('queue.paused', 20_000);
    const [a, b, c] = outboxOrders(h);
    h.drop(
      'confirm.csv',
      `order_number,carrier,tracking_number\n${a},DPD,P-1\n${b},DPD,P-2\n${c},DPD,P-3\n`,
    );
    await waitUntil(() => [a, b, c].every((o) => h.sim.store.shipment(o!)?.status === 'shipped'), {
      timeoutMs: 20_000,
      message: 'confirmations to land while stock waits',
    });
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.pendingDifferences.factory).toBeGreaterThan(0);
    expect(
      h.sim.stats().requests.filter((r) => r.route !== 'POST /login').length,
    ).toBeLessThanOrEqual(30);
    expect(h.sim.stats().rateLimited).toBe(0);
  });
});
