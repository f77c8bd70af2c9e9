import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { answered, LONG_DESCRIPTION, productsCsv, reportOf } from '../helpers/productFiles.ts';

/**
 * The guard rail of products files (CATALOGUE_MAX_NEW): creation cannot be undone through the
 * API, so a file that would create more products is held like a stock file — nothing sent —
 * until an operator releases it (then created as it stands) or rejects it (to failed/).
 */

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const products = (prefix: string, n: number) =>
  productsCsv(
    ['sku', 'name', 'description', 'brand'],
    Array.from({ length: n }, (_, i) => [
      `${prefix}-${i + 1}`,
      `Item ${i + 1}`,
      LONG_DESCRIPTION,
      'Hearth',
    ]),
  );

const json = (text: string) => JSON.parse(text);

it('holds a mass creation, says so in plan, and creates it on release; reject moves another to failed/', async () => {
  h = await startHarness('products-guard', { products: 50 }, { CATALOGUE_MAX_NEW: '5' });
  const d = await h.start();
  h.drop('mass.csv', products('MASS', 8));
  const held = await d.waitFor((l) => l.event === 'file.held' && l.file === 'mass.csv');
  expect(held).toMatchObject({ kind: 'products', tripped: ['catalogue'] });
  const heldId = held.heldId as number;
  const report = await reportOf(h.box.dataDir, 'held', 'mass.csv');
  expect(report).toMatchObject({
    outcome: 'held',
    held: true,
    created: 0,
    products: { toCreate: 8, waiting: 8 },
    catalogueGuard: { held: true, heldId, wouldCreate: 8, CATALOGUE_MAX_NEW: 5 },
  });
  expect(report.reason).toMatch(/would create 8 products, more than CATALOGUE_MAX_NEW \(5\)/);
  expect(h.sim.stats().byRoute['POST /products'] ?? 0).toBe(0);
  const list = json((await h.cli(['held', '--json'])).stdout);
  expect(list).toMatchObject([
    { id: heldId, file: 'mass.csv', kind: 'products', catalogue: { wouldCreate: 8, max: 5 } },
  ]);

  // plan says the same of the file, and exits 3 (would hold); nothing written.
  const copy = join(mkdtempSync(join(tmpdir(), 'supplier-sync-plan-')), 'mass.csv');
  const heldFile = readdirSync(join(h.box.dataDir, 'held')).find((f) => f.endsWith('-mass.csv'));
  copyFileSync(join(h.box.dataDir, 'held', heldFile!), copy);
  const plan = await h.cli(['plan', copy, '--json']);
  expect(plan.code).toBe(3);
  expect(json(plan.stdout).products).toMatchObject({
    create: 8,
    existing: 0,
    held: true,
    // Hearth is on the portal, but its brand list was never read: at most one call for it, after
    // the one read of the list (the references were read when the file was).
    brandsToCreate: ['Hearth'],
    calls: { creations: 8, brands: 1, reads: 1, total: 10 },
  });
  const text = await h.cli(['plan', copy]);
  expect(text.stdout).toMatch(/would create\s+8 products/);
  expect(text.stdout).toMatch(/guard rails\s+would HOLD it in held\/: it would create 8 products/);

  // Release: read again as it stands, this once, and created.
  const released = await h.cli(['release', String(heldId)]);
  expect(released.code, released.output).toBe(0);
  expect(released.stdout).toMatch(/applied: 8 products to create/);
  const done = await reportOf(h.box.dataDir, 'processed', 'mass.csv', answered);
  expect(done).toMatchObject({
    created: 8,
    catalogueGuard: { held: false, released: { heldId } },
  });
  for (let i = 1; i <= 8; i++) expect(h.sim.store.product(`MASS-${i}`)).toBeDefined();
  const stats = h.sim.stats().byRoute;
  expect([stats['POST /products'], stats['GET /brands'], stats['POST /brands'] ?? 0]).toEqual([
    8, 1, 0,
  ]);

  // Another one rejected: to failed/, nothing created.
  h.drop('mass2.csv', products('MORE', 6));
  const second = await d.waitFor((l) => l.event === 'file.held' && l.file === 'mass2.csv');
  const rejected = await h.cli(['reject', String(second.heldId)]);
  expect(rejected.code, rejected.output).toBe(0);
  expect(await reportOf(h.box.dataDir, 'failed', 'mass2.csv')).toMatchObject({
    outcome: 'failed',
    reason: expect.stringMatching(/^rejected by an operator after the guard rails held it/),
  });
  expect(h.sim.store.product('MORE-1')).toBeUndefined();
  expect(h.sim.stats().byRoute['POST /products']).toBe(8);
});
