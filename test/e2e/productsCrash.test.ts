/**
 * Create once across a crash (docs/products.md): a real process (test/fixtures/products-crash.ts)
 * reads a products file and is killed with SIGKILL right after the portal answered its first
 * creation, before the answer was recorded. Then the daemon starts (in this process): it asks the
 * portal for that SKU instead of sending it again, records it as its own creation, and creates
 * the rest — each product exactly once.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ensureDataDirs } from '../../src/config/index.ts';
import { openStateDb } from '../../src/state/db.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { NODE } from '../helpers/daemonProcess.ts';
import { answered, LONG_DESCRIPTION, productsCsv, reportOf } from '../helpers/productFiles.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

it('a daemon killed right after a creation was answered never creates that product twice', {
  timeout: 60_000,
}, async () => {
  h = await startHarness('products-crash', { products: 50 });
  const before = h.sim.store.productCount;
  await ensureDataDirs(h.box.dataDir);
  h.drop(
    'crash.csv',
    productsCsv(
      ['sku', 'name', 'description', 'brand'],
      [
        ['NEW-1', 'Chair', LONG_DESCRIPTION, 'Northwind'],
        ['NEW-2', 'Table', LONG_DESCRIPTION, 'Northwind'],
      ],
    ),
  );
  const child = spawn(
    NODE,
    [
      join(import.meta.dirname, '..', 'fixtures', 'products-crash.ts'),
      h.box.dataDir,
      h.sim.baseUrl,
      'crash.csv',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const exit = await new Promise<string | number | null>((r) =>
    child.once('exit', (code, signal) => r(signal ?? code)),
  );
  expect(exit, stderr).toBe('SIGKILL');
  // The portal has NEW-1; nothing recorded it.
  expect(h.sim.store.product('NEW-1')).toBeDefined();
  expect(h.sim.stats().byRoute['POST /products']).toBe(1);

  const d = await h.start();
  await h.runNow('recover');
  const resolved = await d.waitFor((l) => l.event === 'product.resolved' && l.sku === 'NEW-1');
  expect(resolved.landed).toBe(true);
  const report = await reportOf(h.box.dataDir, 'processed', 'crash.csv', answered);
  expect(report).toMatchObject({ created: 2, existing: 0 });
  expect(h.sim.stats().byRoute['POST /products']).toBe(2);
  expect(h.sim.store.productCount).toBe(before + 2);
  // The daemon's own creation, with the file that asked for it (what `products` lists).
  expect(await h.stop()).toBe(0);
  const db = openStateDb(join(h.box.dataDir, 'state.db'));
  try {
    expect(new Catalogue(db).get('NEW-1')).toMatchObject({
      createdByDaemon: true,
      createdBy: 'crash.csv',
      platformSku: h.sim.store.product('NEW-1')?.platform_sku,
      platformStatus: 'inactive',
    });
  } finally {
    db.close();
  }
});
