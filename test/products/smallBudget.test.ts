import { afterEach, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { LONG_DESCRIPTION, productsCsv } from '../helpers/productFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/**
 * The products lane shares a small budget without starving anyone (docs/products.md, "The
 * budget"): at 40 calls an hour creations leave 13 — what polls leave (3 for confirmations, 7
 * for pushes) and 3 of their own — so a file of more new products than that stops at 27 calls,
 * its products lane waiting, while a stock push and a poll still go.
 */

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

it('stops creations at their share of a small budget, while stock pushes and polls go on', async () => {
  // No scheduled call may come in between (a poll, the DC list): the calls are counted exactly.
  h = await startHarness(
    'products-small',
    { products: 50 },
    {
      API_REQUESTS_PER_HOUR: '40',
      SHIPMENTS_POLL_CRON: '0 0 1 1 *',
      DC_REFRESH_CRON: '0 0 1 1 *',
    },
  );
  const d = await h.start();
  await d.waitForEvent('shipments.polled');
  h.drop(
    'many.csv',
    productsCsv(
      ['sku', 'name', 'description', 'brand'],
      Array.from({ length: 40 }, (_, i) => [
        `NEW-${i + 1}`,
        `Item ${i + 1}`,
        LONG_DESCRIPTION,
        'Hearth',
      ]),
    ),
  );
  const paused = await d.waitFor((l) => l.event === 'queue.paused' && l.queue === 'products');
  const calls = () => h.sim.stats().requests.filter((r) => r.route !== 'POST /login').length;
  const created = d.lines.filter((l) => l.event === 'product.created').length;
  // Every call but logins counts: the start's poll, the references and the brand list, then
  // creations until 27 of the 40 are used.
  expect(calls()).toBe(27);
  expect(created).toBeGreaterThan(15);
  expect(created).toBeLessThan(40);
  expect(paused.reason).toMatch(/call budget of lane 'products' is spent/);

  // A stock file is pushed (pushes leave 3), and a poll goes (polls leave 10).
  h.drop('stock.csv', factoryCsv([[seededSku(0), 321]]));
  await waitUntil(() => h.sim.store.factoryStock(seededSku(0))?.stock_quantity === 321, {
    timeoutMs: 20_000,
    message: 'the stock file pushed while creations wait',
  });
  await h.runNow('shipments-poll');
  await d.waitFor(
    (l) =>
      l.event === 'shipments.polled' &&
      Date.parse(String(l.time)) > Date.parse(String(paused.time)),
  );
  expect(d.lines.filter((l) => l.event === 'product.created')).toHaveLength(created);
  expect(calls()).toBeLessThanOrEqual(30);
});
