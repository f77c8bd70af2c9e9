import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { outboxOrders } from '../helpers/outboxFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const today = () => new Date().toISOString().slice(0, 10);
const json = (output: string) => JSON.parse(output.slice(output.indexOf('{')));
/**
 * Retries of refused or failed confirmations within a second, not a minute: a short back-off,
 * and due failures put back in line every second (FAILURE_RETRY_CRON) instead of every minute.
 */
const FAST_RETRY = {
  FAILURE_BACKOFF_BASE_MS: '200',
  FAILURE_BACKOFF_MAX_MS: '1000',
  FAILURE_RETRY_CRON: '* * * * * *',
};

describe('shipments through the running daemon', () => {
  it('hands exactly the ready-to-ship orders to the ERP once, across a restart', async () => {
    h = await startHarness('ship-out', {}, { SHIPMENTS_POLL_CRON: '*/1 * * * * *' });
    const ready = h.sim.store
      .allShipments()
      .filter((s) => s.status === 'pending' && s.ship_by === today())
      .map((s) => s.order_number)
      .sort();
    await h.start();
    await waitUntil(() => outboxOrders(h.box.dataDir).length === ready.length, {
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
    expect(outboxOrders(h.box.dataDir).sort()).toEqual(ready);
  });

  it('sends confirmations: shipped, collected, is_collected; unknown order and conflict reported; duplicate sent once', async () => {
    h = await startHarness('ship-confirm');
    await h.start();
    await waitUntil(() => outboxOrders(h.box.dataDir).length > 0, { timeoutMs: 15_000 });
    const [a, b, c] = outboxOrders(h.box.dataDir);
    h.drop(
      'confirm.csv',
      [
        'order_number,carrier,tracking_number,is_collected,action',
        `${a},DPD,T-A,false,shipped`,
        `${b},UPS,T-B,true,shipped`,
        `${c},DHL,T-C,,collected`,
        'NO-SUCH-ORDER,DPD,T-X,false,shipped',
        `${a},DPD,T-A,false,shipped`,
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
    // Another tracking number for an order the portal has confirmed: a conflict, never sent.
    h.drop('late.csv', `order_number,carrier,tracking_number\n${a},DPD,T-OTHER\n`);
    await h.daemon!.waitFor(
      (l) => l.event === 'file.processed' && l.file === 'late.csv',
      15_000,
      'late.csv processed',
    );

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
    expect(report.confirmations).toMatchObject({ new: 4, duplicate: 1, conflict: 0 });
    expect(report.portal).toMatchObject({ confirmed: 3, failed: 1 });
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.failures.confirmations).toMatchObject({
      confirmedToday: 3,
      failed: 1,
      conflicts: 1,
    });
  });

  it('a refused "collected" is never recorded as done, though the order carries its tracking number', {
    timeout: 120_000,
  }, async () => {
    h = await startHarness('ship-refused', {}, FAST_RETRY);
    await h.start();
    await waitUntil(() => outboxOrders(h.box.dataDir).length > 0, { timeoutMs: 15_000 });
    const [a] = outboxOrders(h.box.dataDir);
    h.drop('shipped.csv', `order_number,carrier,tracking_number\n${a},DPD,T-A\n`);
    await h.daemon!.waitFor((l) => l.event === 'shipment.confirmed', 15_000);
    // The collected's first answer is a 500 (its outcome unknown), the next a refusal. The order
    // shows the same carrier and tracking number (from its shipped), but not collected.
    h.sim.faults.set({
      routeFaults: [
        { route: 'POST /shipments/:order_number/collected', status: 500, times: 1 },
        {
          route: 'POST /shipments/:order_number/collected',
          status: 422,
          message: 'The carrier has not scanned this parcel.',
        },
      ],
    });
    h.drop(
      'collected.csv',
      `order_number,carrier,tracking_number,action\n${a},DPD,T-A,collected\n`,
    );
    const failed = await h.daemon!.waitFor(
      (l) => l.event === 'shipment.confirm_failed' && l.action === 'collected',
      60_000,
      'the collected refused',
    );
    expect(String(failed.error)).toMatch(/not scanned/);
    expect(h.sim.store.shipment(a!)).toMatchObject({ status: 'shipped', is_collected: false });
    const collected = h.sim
      .stats()
      .requests.filter((r) => r.route === 'POST /shipments/:order_number/collected');
    expect(collected.map((r) => r.status)).toEqual([500, 422]);
    expect(h.sim.stats().byRoute['GET /shipments/:order_number']).toBeGreaterThanOrEqual(1);
    const failures = json((await h.cli(['failures', '--json'])).output) as {
      confirmations: Array<{ orderNumber: string; action: string; status: string }>;
    };
    expect(failures.confirmations).toEqual([
      expect.objectContaining({ orderNumber: a, action: 'collected', status: 'failed' }),
    ]);
    expect(h.daemon!.lines.filter((l) => l.event === 'shipment.confirmed')).toHaveLength(1);
  });

  it('an order’s collected waits for its shipped; a refusal because not shipped yet is retried, not final', {
    timeout: 120_000,
  }, async () => {
    h = await startHarness('ship-order', {}, FAST_RETRY);
    await h.start();
    await waitUntil(() => outboxOrders(h.box.dataDir).length >= 2, { timeoutMs: 15_000 });
    const [a, b] = outboxOrders(h.box.dataDir);
    h.sim.faults.set({
      collectedNeedsShipped: true,
      routeFaults: [{ route: 'POST /shipments/:order_number/shipped', status: 500, times: 1 }],
    });
    h.drop(
      'both.csv',
      [
        'order_number,carrier,tracking_number,action',
        `${a},DPD,T-A,shipped`,
        `${a},DPD,T-A,collected`,
        `${b},UPS,T-B,collected`,
        '',
      ].join('\n'),
    );
    await waitUntil(() => h.sim.store.shipment(a!)?.status === 'collected', {
      timeoutMs: 60_000,
      message: "a's shipped, then its collected",
    });
    const posts = (order: string) =>
      h.sim
        .stats()
        .requests.filter((r) => r.method === 'POST' && r.path.includes(order))
        .map((r) => `${r.route.split('/').pop()} ${r.status}`);
    expect(posts(a!)).toEqual(['shipped 500', 'shipped 200', 'collected 200']);
    // b's collected was refused (not shipped yet): retried, never a failure.
    expect(posts(b!)[0]).toBe('collected 409');
    expect(posts(b!).every((p) => p === 'collected 409')).toBe(true);
    const before = json((await h.cli(['failures', '--json'])).output);
    expect(before.confirmations).toEqual([]);

    // b's shipped comes in a later file: then its collected goes, right after.
    h.drop('b-shipped.csv', `order_number,carrier,tracking_number\n${b},UPS,T-B\n`);
    await waitUntil(() => h.sim.store.shipment(b!)?.status === 'collected', {
      timeoutMs: 60_000,
      message: "b's collected after its shipped",
    });
    // The portal answered; the daemon records the answer, then logs it.
    await h.daemon!.waitFor(
      (l) => l.event === 'shipment.confirmed' && l.order_number === b && l.action === 'collected',
    );
    expect(posts(b!).slice(-2)).toEqual(['shipped 200', 'collected 200']);
    const status = json((await h.cli(['status', '--json'])).output);
    expect(status.failures.confirmations).toMatchObject({ pending: 0, failed: 0 });
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
    await waitUntil(() => outboxOrders(h.box.dataDir).length >= 3, { timeoutMs: 15_000 });
    h.drop(
      'big.csv',
      factoryCsv(Array.from({ length: 100 }, (_, i) => [seededSku(i), 3000 + i] as const)),
    );
    await h.daemon!.waitForEvent('queue.paused', 20_000);
    const [a, b, c] = outboxOrders(h.box.dataDir);
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
