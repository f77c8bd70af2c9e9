import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVE_DC_CODES, SEED_BRANDS } from '../../src/simulator/seed.ts';
import {
  dcCsv,
  factoryCsv,
  type Harness,
  seededSku,
  startHarness,
} from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';

let h: Harness;

afterEach(async () => {
  await h?.cleanup();
});

const writes = (h: Harness, kind: 'factory' | 'dc') =>
  h.sim
    .stats()
    .requests.filter(
      (r) =>
        r.route ===
        (kind === 'factory'
          ? 'POST /factory-stocks/bulk-update'
          : 'POST /distribution-centre-stocks/bulk-update'),
    );

describe('the daemon keeps the portal in step with inbox files', () => {
  it('pushes a factory and a DC file in the fewest calls; the same files again cost no write', async () => {
    h = await startHarness('sync', { maxBulkItems: 40 }, { BULK_BATCH_SIZE: '40' });
    await h.start();
    const factory = Array.from({ length: 100 }, (_, i) => [seededSku(i), 5000 + i] as const);
    const dc = Array.from(
      { length: 90 },
      (_, i) => [ACTIVE_DC_CODES[i % 3]!, seededSku(i), 700 + i] as const,
    );
    h.drop('factory.csv', factoryCsv(factory));
    h.drop('dc.csv', dcCsv(dc));

    await waitUntil(
      () =>
        factory.every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q) &&
        dc.every(([d, s, q]) => h.sim.store.dcStock(d, s)?.stock_quantity === q),
      { timeoutMs: 20_000, message: 'the portal to hold the desired stock' },
    );
    expect(writes(h, 'factory')).toHaveLength(Math.ceil(100 / 40));
    expect(writes(h, 'dc')).toHaveLength(Math.ceil(90 / 40));
    // The same content again (a duplicate), and the same values in a new file: no write call.
    await h.waitForIdle();
    h.sim.resetStats();
    const handled = () =>
      h.daemon!.lines.filter((l) => /^file\.(processed|duplicate)$/.test(String(l.event))).length;
    const before = handled();
    h.drop('factory-again.csv', factoryCsv(factory));
    h.drop('dc-renamed.csv', dcCsv(dc).replaceAll('\n', '\r\n'));
    await waitUntil(() => handled() >= before + 2, {
      timeoutMs: 15_000,
      message: 'the second pair of files to be handled',
      onTimeout: () => writeFileSync('/tmp/daemon-out.log', h.daemon!.output()),
    });
    await h.waitForIdle();
    expect(writes(h, 'factory')).toHaveLength(0);
    expect(writes(h, 'dc')).toHaveLength(0);
    expect(await h.stop()).toBe(0);
  });

  it('lists unknown SKUs as failures; once the products exist, failures retry --all lands them', async () => {
    h = await startHarness('unknown');
    await h.start();
    h.drop(
      'new-products.csv',
      factoryCsv([
        ['NEW-1', 10],
        ['NEW-2', 20],
        [seededSku(0), 3],
      ]),
    );
    await waitUntil(() => h.sim.store.factoryStock(seededSku(0))?.stock_quantity === 3, {
      timeoutMs: 15_000,
    });
    await h.daemon!.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'NEW-2', 10_000);

    const listed = await h.cli(['failures', '--json']);
    expect(listed.code).toBe(0);
    const body = JSON.parse(listed.output.slice(listed.output.indexOf('{'))) as {
      stock: Array<{ key: string; error: string }>;
    };
    expect(body.stock.map((f) => [f.key, f.error]).sort()).toEqual([
      ['factory:NEW-1', 'Product not found'],
      ['factory:NEW-2', 'Product not found'],
    ]);

    // The work that follows the first push (a read of the portal) done first: else that read
    // could find the new products and push these keys before the retry does.
    await h.waitForIdle();
    for (const sku of ['NEW-1', 'NEW-2'])
      h.sim.store.addProduct({ sku, name: sku, brand: SEED_BRANDS[0]!.name });
    const retry = await h.cli(['failures', 'retry', '--all']);
    expect(retry.code).toBe(0);
    expect(retry.output).toMatch(/2 stock items/);
    await waitUntil(
      () =>
        h.sim.store.factoryStock('NEW-1')?.stock_quantity === 10 &&
        h.sim.store.factoryStock('NEW-2')?.stock_quantity === 20,
      {
        timeoutMs: 15_000,
        message: 'the retried items to land',
      },
    );
    // The portal holds them; the daemon records the answer (the failures go), then logs it.
    await h.daemon!.waitFor(
      (l) => l.event === 'stock.pushed' && l.updated === 2 && l.failed === 0,
      15_000,
      'the retried items recorded',
    );
    const after = await h.cli(['failures', '--json']);
    expect(JSON.parse(after.output.slice(after.output.indexOf('{'))).stock).toEqual([]);
  });

  it('takes stock from an ERP SQLite snapshot, at start and when the file is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-erp-'));
    const snapshot = join(dir, 'erp.db');
    const write = (path: string, factory: number, dc: number) => {
      const db = new Database(path);
      db.exec(
        'CREATE TABLE factory_stock (sku TEXT, stock_quantity INTEGER); CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);',
      );
      db.prepare('INSERT INTO factory_stock VALUES (?, ?)').run(seededSku(1), factory);
      db.prepare('INSERT INTO dc_stock VALUES (?, ?, ?)').run(
        ACTIVE_DC_CODES[1]!,
        seededSku(1),
        dc,
      );
      db.close();
    };
    write(snapshot, 111, 11);
    try {
      h = await startHarness('snapshot', {}, { SNAPSHOT_DB: snapshot });
      await h.start();
      await waitUntil(
        () =>
          h.sim.store.factoryStock(seededSku(1))?.stock_quantity === 111 &&
          h.sim.store.dcStock(ACTIVE_DC_CODES[1]!, seededSku(1))?.stock_quantity === 11,
        { timeoutMs: 15_000, message: 'the snapshot pushed' },
      );
      write(`${snapshot}.new`, 222, 22);
      renameSync(`${snapshot}.new`, snapshot);
      await waitUntil(
        () =>
          h.sim.store.factoryStock(seededSku(1))?.stock_quantity === 222 &&
          h.sim.store.dcStock(ACTIVE_DC_CODES[1]!, seededSku(1))?.stock_quantity === 22,
        { timeoutMs: 15_000, message: 'the replaced snapshot pushed' },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never sends more calls than the hourly budget; the rest waits', async () => {
    h = await startHarness(
      'budget',
      { maxBulkItems: 10 },
      {
        BULK_BATCH_SIZE: '10',
        API_REQUESTS_PER_HOUR: '6',
        API_STOCK_RESERVE: '0',
        API_RECONCILE_RESERVE: '0',
      },
    );
    await h.start();
    h.drop(
      'big.csv',
      factoryCsv(Array.from({ length: 100 }, (_, i) => [seededSku(i), 9000 + i] as const)),
    );
    await h.daemon!.waitForEvent('queue.paused', 20_000);
    const seen = h.sim.stats().requests.filter((r) => r.route !== 'POST /login');
    expect(seen.length).toBeLessThanOrEqual(6);
    expect(h.sim.stats().rateLimited).toBe(0);
    const status = await h.cli(['status', '--json']);
    const s = JSON.parse(status.output.slice(status.output.indexOf('{')));
    expect(s.budget.usedLastHour).toBeLessThanOrEqual(6);
    expect(s.pendingDifferences.factory).toBeGreaterThan(0);
    expect(Date.parse(s.budget.freesAt)).toBeGreaterThan(Date.now());
  });
});
