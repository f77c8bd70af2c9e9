import { afterEach, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { answered, LONG_DESCRIPTION, productsCsv, reportOf } from '../helpers/productFiles.ts';

/**
 * Create once (docs/products.md): the portal applies a creation and the connection is reset
 * before its answer (the simulator's `nextResetAfterApply`). The daemon asks the portal before
 * it sends anything again — the product by its SKU, the brand by the list — so nothing is ever
 * created twice.
 */

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const file = (brand: string) =>
  productsCsv(
    ['sku', 'name', 'description', 'brand'],
    [
      ['NEW-1', 'Chair', LONG_DESCRIPTION, brand],
      ['NEW-2', 'Table', LONG_DESCRIPTION, brand],
    ],
  );

it('a product applied and then reset unanswered is found by its SKU, never sent again', async () => {
  h = await startHarness('products-reset', { products: 50 });
  const before = h.sim.store.productCount;
  h.sim.faults.set({ nextResetAfterApply: 1, resetAfterApplyRoute: 'POST /products' });
  const d = await h.start();
  h.drop('new.csv', file('Northwind'));
  await d.waitFor((l) => l.event === 'product.create_unanswered' && l.sku === 'NEW-1');
  const resolved = await d.waitFor((l) => l.event === 'product.resolved' && l.sku === 'NEW-1');
  expect(resolved.landed).toBe(true);
  const report = await reportOf(h.box.dataDir, 'processed', 'new.csv', answered);
  expect(report).toMatchObject({ created: 2, existing: 0 });
  expect(report.products?.rows.map((r) => [r.sku, r.outcome])).toEqual([
    ['NEW-1', 'created'],
    ['NEW-2', 'created'],
  ]);
  const stats = h.sim.stats();
  expect(stats.byRoute['POST /products']).toBe(2);
  expect(stats.byRoute['GET /products/:sku']).toBe(1);
  // The reset one counts in the simulator's stats with status 0: applied, never answered.
  expect(stats.requests.filter((r) => r.route === 'POST /products').map((r) => r.status)).toEqual([
    0, 201,
  ]);
  expect(h.sim.store.productCount).toBe(before + 2);
});

it('a brand applied and then reset unanswered is found in the list, never sent again', async () => {
  h = await startHarness('products-brand-reset', { products: 50 });
  h.sim.faults.set({ nextResetAfterApply: 1, resetAfterApplyRoute: 'POST /brands' });
  const d = await h.start();
  h.drop('new.csv', file('Acme'));
  const resolved = await d.waitFor((l) => l.event === 'brand.resolved' && l.name === 'Acme');
  expect(resolved.landed).toBe(true);
  expect(await reportOf(h.box.dataDir, 'processed', 'new.csv', answered)).toMatchObject({
    created: 2,
  });
  expect(h.sim.stats().byRoute['POST /brands']).toBe(1);
  expect(h.sim.store.brands.list().filter((b) => b.name === 'Acme')).toHaveLength(1);
  expect(h.sim.store.product('NEW-1')?.brand).toBe('Acme');
});
