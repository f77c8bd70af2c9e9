import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExhaustedError, BulkIncompleteError, type BulkResult } from '../../src/api/index.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import { planFile } from '../../src/inventory/plan/planFile.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { ACTIVE_DC_CODES, DISTRIBUTION_CENTRES, seededSku } from '../../src/simulator/seed.ts';
import { DEFAULT_PASSWORD, type Harness, harness, rejection, simulator } from './helpers.ts';

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  h.logs.expectNoSecrets([DEFAULT_PASSWORD]);
  await h.cleanup();
  await sim.close();
});

function bulkRequests(route: string) {
  return sim.stats().requests.filter((r) => r.route === route);
}

describe('bulk split and learnt size', () => {
  it('splits a batch refused as too large, remembers the size, and a new client uses it', async () => {
    sim = await simulator({ products: 60, maxBulkItems: 7 });
    h = harness(sim, 'bulk');
    const client = h.client({ settings: { bulkBatchSize: 50 } });
    const skus = (await client.factoryStock.list()).items.map((r) => r.sku);
    expect(client.maxBatchSize('factory')).toBe(50);

    const items = skus.slice(0, 30).map((sku, i) => ({ sku, stock_quantity: 100 + i }));
    const result = await client.factoryStock.bulkUpdate(items);
    expect(result.updated).toHaveLength(30);
    expect(result.errors).toEqual([]);
    for (const item of items) {
      expect(sim.store.factoryStock(item.sku)?.stock_quantity).toBe(item.stock_quantity);
    }
    const sent = bulkRequests('POST /factory-stocks/bulk-update');
    expect(sent.filter((r) => r.status === 422).every((r) => (r.items ?? 0) > 7)).toBe(true);
    expect(sent.filter((r) => r.status === 200).every((r) => (r.items ?? 0) <= 7)).toBe(true);
    expect(client.maxBatchSize('factory')).toBe(7);
    expect(h.logs.events('api.bulk_split').length).toBeGreaterThan(0);
    client.close();

    // A restart: the learnt size is used at once, nothing is refused.
    sim.resetStats();
    const restarted = h.client({ settings: { bulkBatchSize: 50 } });
    expect(restarted.maxBatchSize('factory')).toBe(7);
    // What one kind learnt starts the other.
    expect(restarted.maxBatchSize('dc')).toBe(7);
    const again = await restarted.factoryStock.bulkUpdate(
      skus.slice(0, 20).map((sku) => ({ sku, stock_quantity: 1 })),
    );
    expect(again.updated).toHaveLength(20);
    expect(again.requests).toBe(3);
    expect(bulkRequests('POST /factory-stocks/bulk-update').map((r) => r.status)).toEqual([
      200, 200, 200,
    ]);

    // A smaller configured size still wins over the learnt one.
    const small = h.client({ settings: { bulkBatchSize: 3 } });
    expect(small.maxBatchSize('factory')).toBe(3);
  });

  it('plan counts the calls of a file at the size the client learnt, and the push takes as many', async () => {
    sim = await simulator({ products: 60, maxBulkItems: 7 });
    h = harness(sim, 'bulk-plan');
    const client = h.client({ settings: { bulkBatchSize: 50 } });
    const skus = (await client.factoryStock.list()).items.map((r) => r.sku).slice(0, 30);
    await client.factoryStock.bulkUpdate(skus.map((sku) => ({ sku, stock_quantity: 1 })));
    const learnt = client.maxBatchSize('factory');
    expect(learnt).toBeLessThan(50);

    const file = join(h.sandbox.dataDir, 'changes.csv');
    writeFileSync(file, `sku,stock_quantity\n${skus.map((sku) => `${sku},2`).join('\n')}\n`);
    const plan = await planFile(file, {
      dataDir: h.sandbox.dataDir,
      bulkBatchSize: 50,
      maxSkuLength: 64,
    });
    expect(plan.stock).toMatchObject({ batchSize: learnt, calls: Math.ceil(30 / learnt) });

    sim.resetStats();
    const pushed = await client.factoryStock.bulkUpdate(
      skus.map((sku) => ({ sku, stock_quantity: 2 })),
    );
    expect(pushed.requests).toBe(plan.stock?.calls);
  });

  it('works for DC stock refused with 413, matching items by centre and sku', async () => {
    sim = await simulator({ products: 30, maxBulkItems: 4, bulkTooLargeStatus: 413 });
    h = harness(sim, 'bulk-dc');
    const client = h.client({ settings: { bulkBatchSize: 10 } });
    const active = DISTRIBUTION_CENTRES.filter((d) => d.is_active).map((d) => d.code);
    const skus = (await client.factoryStock.list()).items.map((r) => r.sku).slice(0, 5);
    const items = skus.flatMap((sku) =>
      active
        .slice(0, 2)
        .map((code) => ({ distribution_centre_code: code, sku, stock_quantity: 9 })),
    );
    items.push({ distribution_centre_code: active[0]!, sku: 'UNKNOWN-SKU', stock_quantity: 1 });
    const result = await client.dcStock.bulkUpdate(items);
    expect(result.updated).toHaveLength(10);
    expect(result.errors.map((e) => e.sku)).toEqual(['UNKNOWN-SKU']);
    const sent = bulkRequests('POST /distribution-centre-stocks/bulk-update');
    expect(sent.map((r) => r.status)).toContain(413);
    // Halving 10 → 5 → 3 + 2 finds 3; the next batch tries between 3 and 5: the limit, 4.
    const largestAccepted = Math.max(
      ...sent.filter((r) => r.status === 200).map((r) => r.items ?? 0),
    );
    expect(largestAccepted).toBeLessThanOrEqual(4);
    expect(client.maxBatchSize('dc')).toBe(4);
  });

  it('finds the portal limit between the halves instead of settling below it', async () => {
    sim = await simulator({ products: 3000, maxBulkItems: 400 });
    h = harness(sim, 'bulk-search');
    const client = h.client({ settings: { bulkBatchSize: 1000 } });
    const items = Array.from({ length: 3000 }, (_, i) => ({
      sku: seededSku(i),
      stock_quantity: i,
    }));
    for (let i = 0; i < items.length; ) {
      const size = client.maxBatchSize('factory');
      await client.factoryStock.bulkUpdate(items.slice(i, i + size));
      i += size;
    }
    const learnt = client.maxBatchSize('factory');
    expect(learnt).toBeLessThanOrEqual(400);
    expect(learnt).toBeGreaterThanOrEqual(380); // within 5 % of the real limit, not 250
    const refused = bulkRequests('POST /factory-stocks/bulk-update').filter(
      (r) => r.status !== 200,
    );
    expect(refused.length).toBeLessThanOrEqual(8);
  });
});

describe('the bulk limit learnt once (issue #29)', () => {
  it('refusals over both kinds at most ⌈log₂(configured / limit)⌉ + 1, and what remains re-cut at the learnt size', async () => {
    sim = await simulator({ products: 3000, maxBulkItems: 250 });
    h = harness(sim, 'bulk-once');
    const client = h.client({ settings: { bulkBatchSize: 1000 } });
    const factory = Array.from({ length: 3000 }, (_, i) => ({
      sku: seededSku(i),
      stock_quantity: 3 + i,
    }));
    const result = await client.factoryStock.bulkUpdate(factory);
    expect(result.updated).toHaveLength(3000);
    const code = ACTIVE_DC_CODES[0]!;
    const dc = Array.from({ length: 3000 }, (_, i) => ({
      distribution_centre_code: code,
      sku: seededSku(i),
      stock_quantity: 5 + i,
    }));
    const dcResult = await client.dcStock.bulkUpdate(dc);
    expect(dcResult.updated).toHaveLength(3000);

    const sent = [
      ...bulkRequests('POST /factory-stocks/bulk-update'),
      ...bulkRequests('POST /distribution-centre-stocks/bulk-update'),
    ];
    const refused = sent.filter((r) => r.status !== 200);
    expect(refused.length).toBeLessThanOrEqual(Math.ceil(Math.log2(1000 / 250)) + 1);
    // No tail of small calls: every accepted batch is of the limit, each kind's last aside.
    for (const route of [
      'POST /factory-stocks/bulk-update',
      'POST /distribution-centre-stocks/bulk-update',
    ]) {
      const accepted = bulkRequests(route).filter((r) => r.status === 200);
      expect(accepted.slice(0, -1).every((r) => r.items === 250)).toBe(true);
      expect(accepted.length).toBe(3000 / 250);
    }
    expect(client.maxBatchSize('dc')).toBe(250);
  });
});

describe('bulk refusals that are not "too large"', () => {
  it('a refusal naming one item’s field fails that item only; the rest of the batch goes again', async () => {
    sim = await simulator({ products: 60 });
    h = harness(sim, 'bulk-item');
    const client = h.client({ settings: { bulkBatchSize: 50 } });
    sim.faults.set({ bulkRejectsInvalidItem: true });
    const items = Array.from({ length: 10 }, (_, i) => ({
      sku: seededSku(i),
      stock_quantity: i === 3 ? -1 : 100 + i,
    }));
    const result = await client.factoryStock.bulkUpdate(items);
    expect(result.errors).toEqual([
      expect.objectContaining({
        sku: seededSku(3),
        status: 422,
        error: 'The stock quantity must be an integer between 0 and 2147483647',
      }),
    ]);
    expect(result.updated.map((u) => u.sku)).toEqual(
      items.filter((_, i) => i !== 3).map((i) => i.sku),
    );
    expect(result.requests).toBe(2);
    expect(
      bulkRequests('POST /factory-stocks/bulk-update').map((r) => [r.items, r.status]),
    ).toEqual([
      [10, 422],
      [9, 200],
    ]);
    // Not taken for "too large": nothing learnt.
    expect(client.maxBatchSize('factory')).toBe(50);
    expect(h.logs.events('api.bulk_split')).toEqual([]);
  });

  it('a refusal of the request naming no item fails that batch only, and the next batches go', async () => {
    sim = await simulator({ products: 60 });
    h = harness(sim, 'bulk-refused');
    const client = h.client({ settings: { bulkBatchSize: 10 } });
    sim.faults.set({
      routeFaults: [
        { route: 'POST /factory-stocks/bulk-update', status: 422, message: 'Try later', times: 1 },
      ],
    });
    const items = Array.from({ length: 25 }, (_, i) => ({ sku: seededSku(i), stock_quantity: i }));
    const result = await client.factoryStock.bulkUpdate(items);
    expect(result.errors.map((e) => [e.sku, e.error, e.status])).toEqual(
      items.slice(0, 10).map((i) => [i.sku, 'Try later', 422]),
    );
    expect(result.updated).toHaveLength(15);
    expect(client.maxBatchSize('factory')).toBe(10);
  });

  it('a failure after some batches were answered keeps their answers (BulkIncompleteError)', async () => {
    sim = await simulator({ products: 60 });
    h = harness(sim, 'bulk-partial');
    const client = h.client({ settings: { bulkBatchSize: 10, requestsPerHour: 2 } });
    const items = Array.from({ length: 30 }, (_, i) => ({ sku: seededSku(i), stock_quantity: i }));
    const err = await rejection(client.factoryStock.bulkUpdate(items, { lane: 'shipments' }));
    expect(err).toBeInstanceOf(BulkIncompleteError);
    const stopped = err as BulkIncompleteError<(typeof items)[number], BulkResult>;
    expect(stopped.cause).toBeInstanceOf(BudgetExhaustedError);
    expect(stopped.answered.updated).toHaveLength(20);
    expect(stopped.unsent).toEqual(items.slice(20));
    expect(failurePolicy(stopped)).toMatchObject({ kind: 'wait' });
  });
});

describe('bulk update of many items in one call', () => {
  it('sends every item once while the learnt size shrinks and grows during the call', async () => {
    sim = await simulator({ products: 3000, maxBulkItems: 400 });
    h = harness(sim, 'bulk-one-call');
    const client = h.client({ settings: { bulkBatchSize: 1000 } });
    const items = Array.from({ length: 3000 }, (_, i) => ({
      sku: seededSku(i),
      stock_quantity: 7 + i,
    }));
    const result = await client.factoryStock.bulkUpdate(items);
    expect(result.updated).toHaveLength(3000);
    for (const i of [0, 999, 1500, 2999])
      expect(sim.store.factoryStock(seededSku(i))?.stock_quantity).toBe(7 + i);
    const sent = bulkRequests('POST /factory-stocks/bulk-update');
    // Every accepted batch was at most the limit; no refused size was sent again whole.
    expect(sent.filter((r) => r.status === 200).every((r) => (r.items ?? 0) <= 400)).toBe(true);
    expect(sent.reduce((n, r) => n + (r.status === 200 ? (r.items ?? 0) : 0), 0)).toBe(3000);
  });
});
