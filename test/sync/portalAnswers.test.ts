import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BulkIncompleteError, type PortalClient, stockPortal } from '../../src/api/index.ts';
import { type Clock, systemClock } from '../../src/domain/clock.ts';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { ACTIVE_DC_CODES } from '../../src/simulator/seed.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { pushPending } from '../../src/sync/push.ts';
import { rejection } from '../api/helpers.ts';
import { seedDesiredStock } from '../helpers/desiredStock.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';
import { markEstablished, pushClient } from './helpers.ts';

/**
 * The push against answers the spec leaves open, each given by a simulator knob: DC errors
 * without the centre's code, refusals that do not say "too large", a bulk update that stops
 * part-way, a portal that holds another quantity than sent, and the re-probe of a learnt size.
 */

const retry = { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 6 * 3_600_000 };
const sku = (i: number) => `SKU-${String(i + 1).padStart(7, '0')}`;

let box: Sandbox;
let sim: Simulator;
let db: StateDb;
let client: PortalClient;
let logText: string[];

async function setup(simOptions: SimulatorOptions = {}, env: Record<string, string> = {}) {
  box = makeSandbox('answers');
  sim = await startSimulator({ products: 300, ...simOptions });
  db = openStateDb(join(box.dataDir, 'state.db'));
  markEstablished(db);
  const made = pushClient(sim, db, { BULK_BATCH_SIZE: '100', ...env });
  client = made.client;
  logText = made.logText;
  const log = made.log;
  return (clock: Clock = systemClock) => ({
    db,
    writer: stockPortal(client).writer,
    log,
    clock,
    retry,
  });
}

afterEach(async () => {
  client?.close();
  db?.close();
  await sim?.close();
  await box?.cleanup();
});

const events = (name: string) =>
  logText
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.event === name);
const bulkRequests = (route: string) => sim.stats().requests.filter((r) => r.route === route);

describe('the push meets answers the spec leaves open', () => {
  it('DC errors without the centre’s code: batches hold a SKU once, errors are matched by SKU with the portal’s message', async () => {
    const deps = await setup({}, { BULK_BATCH_SIZE: '100' });
    sim.faults.set({ dcErrorsWithoutCode: true });
    const [lon, man] = ACTIVE_DC_CODES;
    const rows = [
      ...[0, 1, 2].map((i) => ({ dc: lon!, sku: sku(i), quantity: 10 + i })),
      { dc: lon!, sku: 'NOPE-1', quantity: 4 },
      ...[0, 1, 2].map((i) => ({ dc: man!, sku: sku(i), quantity: 20 + i })),
      { dc: man!, sku: 'NOPE-1', quantity: 5 },
    ];
    await seedDesiredStock(db, box.dataDir, 'dc', rows, 'test', Date.now());
    sim.resetStats();
    const before = Date.now();
    const totals = await pushPending(deps());
    expect(totals).toMatchObject({ sent: 8, updated: 6, failed: 2 });
    // Each centre's rows went in a batch of their own: no SKU twice in a request.
    expect(
      bulkRequests('POST /distribution-centre-stocks/bulk-update').map((r) => r.items),
    ).toEqual([4, 4]);
    const failures = new StockFailures(db).list();
    expect(failures.map((f) => [f.key, f.error, f.notFound])).toEqual([
      [`dc:${lon}:NOPE-1`, 'Product not found', true],
      [`dc:${man}:NOPE-1`, 'Product not found', true],
    ]);
    // "Product not found" waits NOT_FOUND_RETRY_MS, not the short back-off of a missing item.
    for (const f of failures) {
      expect(f.nextAttemptAt).toBeGreaterThanOrEqual(before + retry.notFoundMs);
    }
    for (const r of rows.filter((r) => r.sku !== 'NOPE-1')) {
      expect(sim.store.dcStock(r.dc, r.sku)?.stock_quantity).toBe(r.quantity);
    }
  });

  it('a refusal that does not say "too large" fails that batch with the portal’s words and learns nothing', async () => {
    const deps = await setup({}, { BULK_BATCH_SIZE: '60' });
    sim.faults.set({
      routeFaults: [
        {
          route: 'POST /factory-stocks/bulk-update',
          status: 400,
          code: 'invalid_parameter',
          message: 'The selected warehouse is locked for stocktaking.',
          field: 'body',
          times: 1,
        },
      ],
    });
    const rows = Array.from({ length: 150 }, (_, i) => ({ dc: '', sku: sku(i), quantity: 3 + i }));
    await seedDesiredStock(db, box.dataDir, 'factory', rows, 'test', Date.now());
    const totals = await pushPending(deps());
    expect(totals).toMatchObject({ sent: 150, updated: 90, failed: 60 });
    expect(client.maxBatchSize('factory')).toBe(60);
    const failures = new StockFailures(db).list();
    expect(failures).toHaveLength(60);
    expect(failures[0]!.error).toBe('The selected warehouse is locked for stocktaking.');
    expect(events('api.bulk_split')).toEqual([]);
    expect(events('api.bulk_refused')).toHaveLength(1);
  });

  it('a bulk update that stops part-way keeps the answers of the parts sent; the rest stays pending', async () => {
    // The portal takes 20 a request; the client learns it by splitting (80, 50 and 25 refused as
    // too large, 12 accepted), and then the budget of 4 calls is spent.
    const deps = await setup(
      { maxBulkItems: 20 },
      { BULK_BATCH_SIZE: '80', API_REQUESTS_PER_HOUR: '4', API_STOCK_RESERVE: '0' },
    );
    const rows = Array.from({ length: 80 }, (_, i) => ({ dc: '', sku: sku(i), quantity: 500 + i }));
    await seedDesiredStock(db, box.dataDir, 'factory', rows, 'test', Date.now());
    const err = await rejection(pushPending(deps()));
    expect(err).toBeInstanceOf(BulkIncompleteError);
    const accepted = bulkRequests('POST /factory-stocks/bulk-update').filter(
      (r) => r.status === 200,
    );
    const landed = accepted.reduce((n, r) => n + (r.items ?? 0), 0);
    expect(landed).toBeGreaterThan(0);
    // What landed is known and no longer pending; the rest is pending, not failed.
    expect(new PendingStock(db).counts().factory).toBe(80 - landed);
    expect(new StockFailures(db).count().total).toBe(0);
    const known = db.prepare(`SELECT COUNT(*) FROM remote_stock WHERE kind = 'factory'`).pluck();
    expect(known.get()).toBe(landed);
    expect(events('stock.pushed')).toEqual([
      expect.objectContaining({ items: landed, updated: landed, failed: 0 }),
    ]);
  });

  it('records the quantity the portal echoed when it holds another than sent', async () => {
    const deps = await setup();
    sim.faults.set({ stockQuantityCap: 100 });
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      [
        { dc: '', sku: sku(0), quantity: 150 },
        { dc: '', sku: sku(1), quantity: 40 },
      ],
      'test',
      Date.now(),
    );
    await pushPending(deps());
    const remote = db
      .prepare(`SELECT sku, quantity FROM remote_stock WHERE kind = 'factory' ORDER BY sku`)
      .all();
    expect(remote).toEqual([
      { sku: sku(0), quantity: 100 },
      { sku: sku(1), quantity: 40 },
    ]);
    expect(events('stock.echo_differs')).toEqual([
      expect.objectContaining({ count: 1, examples: [{ sku: sku(0), sent: 150, held: 100 }] }),
    ]);
  });

  it('one refusal never learns below 50, and a learnt size is probed afresh a day later', async () => {
    const deps = await setup({}, { BULK_BATCH_SIZE: '120' });
    // One 413 under load for a batch of 120: the next batches go at 60, never below 50.
    sim.faults.set({
      routeFaults: [{ route: 'POST /factory-stocks/bulk-update', status: 413, times: 2 }],
    });
    const rows = Array.from({ length: 240 }, (_, i) => ({ dc: '', sku: sku(i), quantity: 9 + i }));
    await seedDesiredStock(db, box.dataDir, 'factory', rows, 'test', Date.now());
    await pushPending(deps());
    expect(client.maxBatchSize('factory')).toBeGreaterThanOrEqual(50);
    expect(client.maxBatchSize('factory')).toBeLessThan(120);
    for (const r of rows) expect(sim.store.factoryStock(r.sku)?.stock_quantity).toBe(r.quantity);

    // A day later the configured size is tried again.
    const learnt = client.maxBatchSize('factory');
    const dayLater: Clock = { ...systemClock, now: () => Date.now() + 25 * 3_600_000 };
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      rows.map((r) => ({ ...r, quantity: r.quantity + 1 })),
      'test',
      Date.now(),
    );
    sim.resetStats();
    await pushPending(deps(dayLater));
    expect(events('sync.bulk_reprobe')).toEqual([
      expect.objectContaining({ kind: 'factory', learntSize: learnt }),
    ]);
    expect(client.maxBatchSize('factory')).toBe(120);
    expect(bulkRequests('POST /factory-stocks/bulk-update').map((r) => r.items)).toEqual([
      120, 120,
    ]);
  });
});
