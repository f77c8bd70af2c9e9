import { afterEach, expect, it } from 'vitest';
import { dcCsv, factoryCsv, type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { answered, LONG_DESCRIPTION, productsCsv, reportOf } from '../helpers/productFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';

/**
 * `explain` of a key whose product the portal lacks (docs/products.md, "explain"): it says the key
 * waits for its product while a products file's request for it is queued or being sent, or while
 * its creation was refused and the portal still says "Product not found"; once the product
 * exists, where it came from and the platform's review of it.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const explainJson = async (key: string) =>
  JSON.parse((await h!.cli(['explain', key, '--json'])).stdout);
const explainText = async (key: string) => (await h!.cli(['explain', key])).stdout;

it('says when a stock key waits for its product, and the review of the product once it exists', async () => {
  h = await startHarness('products-explain', { products: 40, review: 'manual' });
  const d = await h.start();
  h.drop(
    'stock.csv',
    factoryCsv([
      ['NEW-W', 4],
      ['NEW-BAD', 3],
    ]),
  );
  h.drop('dc.csv', dcCsv([['DC-LON', 'NEW-W', 2]]));
  for (const sku of ['NEW-W', 'NEW-BAD'])
    await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === sku && !l.dc);
  await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'NEW-W' && l.dc === 'DC-LON');

  // Writes are paused: the products file is read and its request queued, nothing is created.
  expect((await h.cli(['pause', '--reason', 'catalogue check'])).code).toBe(0);
  h.drop(
    'products.csv',
    productsCsv(
      ['sku', 'name', 'description', 'brand'],
      [
        ['NEW-W', 'Wall shelf', LONG_DESCRIPTION, 'Hearth'],
        // Longer than the portal takes: refused for good when it is sent.
        ['NEW-BAD', 'Bad shelf', 'x'.repeat(20_001), 'Hearth'],
      ],
    ),
  );
  await d.waitFor((l) => l.event === 'file.processed' && l.file === 'products.csv');
  const queued = await explainJson('factory:NEW-W');
  expect(queued.product).toMatchObject({
    waitsForProduct: true,
    request: { state: 'queued', file: 'products.csv', line: 2, attempts: 0, error: null },
    portal: null,
    review: null,
  });
  expect(queued.failure).toMatchObject({ notFound: true });
  expect(await explainText('factory:NEW-W')).toMatch(
    /Product: +the key WAITS FOR ITS PRODUCT: line 2 of products\.csv asks for NEW-W, queued to be created/,
  );
  expect((await explainJson('dc:DC-LON:NEW-W')).product).toMatchObject({
    waitsForProduct: true,
    request: { state: 'queued' },
  });

  // Resumed: NEW-W is created and the stock that waited pushed; NEW-BAD is refused.
  expect((await h.cli(['resume'])).code).toBe(0);
  await h.runNow('recover'); // creations due again: asked for at once (the recovery would, within 30 s)
  const report = await reportOf(h.box.dataDir, 'processed', 'products.csv', answered);
  expect(report).toMatchObject({ created: 1 });
  await waitUntil(
    () =>
      h!.sim.store.factoryStock('NEW-W')?.stock_quantity === 4 &&
      h!.sim.store.dcStock('DC-LON', 'NEW-W')?.stock_quantity === 2,
    { timeoutMs: 20_000, message: 'the stock that waited for NEW-W pushed' },
  );
  const refused = await explainJson('factory:NEW-BAD');
  expect(refused.product).toMatchObject({
    waitsForProduct: true,
    request: { state: 'failed', error: expect.stringMatching(/description/i) },
    portal: null,
  });
  expect(await explainText('factory:NEW-BAD')).toMatch(
    /the key WAITS FOR ITS PRODUCT, which the portal lacks: its creation from line 3 of products\.csv was refused: /,
  );

  // Born with the stock the ERP asked for (4, and 2 at DC-LON): nothing more is owed for it.
  const created = await explainJson('factory:NEW-W');
  expect(created).toMatchObject({ portalQuantity: 4, pending: false, failure: null });
  expect(created.product).toMatchObject({
    waitsForProduct: false,
    request: { state: 'created' },
    portal: {
      createdByDaemon: true,
      createdBy: 'products.csv',
      status: 'pending',
      platformStatus: 'inactive',
    },
    review: null,
  });
  expect(await explainText('factory:NEW-W')).toMatch(
    /Review: +under the platform's review \(status pending, platform status inactive/,
  );

  // The platform declines it; the daemon notices at its next look.
  h.sim.store.reviewProduct('NEW-W', 'declined', 'The images do not show the product.');
  h.clock.advance(301_000);
  await h.runNow('recover');
  const declined = await d.waitFor((l) => l.event === 'product.declined' && l.sku === 'NEW-W');
  const after = await explainJson('dc:DC-LON:NEW-W');
  expect(after.product).toMatchObject({
    waitsForProduct: false,
    portal: { platformStatus: 'declined', declinedReason: 'The images do not show the product.' },
    review: {
      decision: 'declined',
      reason: 'The images do not show the product.',
      outboxFile: declined.outboxFile,
    },
  });
  expect(await explainText('factory:NEW-W')).toMatch(
    /Review: +DECLINED by the platform's review \(noticed .*\): The images do not show the product\.; handed to the ERP in outbox\/products-declined-/,
  );
});
