import { afterEach, expect, it } from 'vitest';
import { dcCsv, factoryCsv, type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { answered, productsCsv, reportOf } from '../helpers/productFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/**
 * Stock at birth, and stock that waited (docs/products.md): the stock known when a product is
 * created goes in its creation's body and costs no push; stock rows and failures that waited for
 * a product ("Product not found", retried after NOT_FOUND_RETRY_MS: 6 hours here) are pushed as
 * soon as it exists — created by the daemon or found on the portal — not at their back-off time.
 */

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

it('pushes the stock that waited for a product as soon as it exists, and puts the stock known at creation in its body', async () => {
  h = await startHarness('products-waiting', { products: 50 });
  const d = await h.start();
  h.drop(
    'stock.csv',
    factoryCsv([
      ['NEW-1', 7],
      ['NEW-2', 4],
      ['NEW-3', 5],
    ]),
  );
  h.drop('dc.csv', dcCsv([['DC-LON', 'NEW-2', 2]]));
  for (const sku of ['NEW-1', 'NEW-2', 'NEW-3']) {
    await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === sku && !l.dc);
  }
  await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'NEW-2' && l.dc === 'DC-LON');
  const failed = JSON.parse((await h.cli(['failures', '--json'])).stdout);
  expect(failed.stock.map((f: { key: string }) => f.key).sort()).toEqual([
    'dc:DC-LON:NEW-2',
    'factory:NEW-1',
    'factory:NEW-2',
    'factory:NEW-3',
  ]);

  // NEW-2 is made on the portal by someone else meanwhile.
  h.sim.store.addProduct({ sku: 'NEW-2', name: 'Made elsewhere', brand: 'Northwind' });
  // NEW-1's file gives its own stock at creation (3): the ERP's 7 of the stock file then waits.
  h.drop(
    'products.csv',
    productsCsv(
      ['sku', 'name', 'brand', 'factory_stock'],
      [
        ['NEW-1', 'Chair', 'Northwind', '3'],
        ['NEW-2', 'Table', 'Northwind', ''],
        ['NEW-3', 'Stool', 'Northwind', ''],
      ],
    ),
  );
  const report = await reportOf(h.box.dataDir, 'processed', 'products.csv', answered);
  expect(report).toMatchObject({ created: 2, existing: 1 });

  // Pushed at once (their failures' next attempt was hours away).
  await waitUntil(
    () =>
      h.sim.store.factoryStock('NEW-1')?.stock_quantity === 7 &&
      h.sim.store.factoryStock('NEW-2')?.stock_quantity === 4 &&
      h.sim.store.dcStock('DC-LON', 'NEW-2')?.stock_quantity === 2,
    { timeoutMs: 20_000, message: 'the stock that waited pushed' },
  );
  // NEW-3 was born with the 5 desired stock held: nothing owed, nothing sent for it since.
  expect(h.sim.store.factoryStock('NEW-3')?.stock_quantity).toBe(5);
  await waitUntil(
    async () => JSON.parse((await h.cli(['failures', '--json'])).stdout).stock.length === 0,
    { timeoutMs: 20_000, message: 'no failures left' },
  );
  const explain = JSON.parse((await h.cli(['explain', 'factory:NEW-3', '--json'])).stdout);
  expect(explain).toMatchObject({ portalQuantity: 5, pending: false, failure: null });
  expect(explain.lastPush).toMatchObject({ outcome: 'rejected' });
});
