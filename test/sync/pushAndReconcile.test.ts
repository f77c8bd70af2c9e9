import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PortalClient } from '../../src/api/index.ts';
import { stockPortal } from '../../src/api/index.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { createLogger } from '../../src/log/logger.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { ACTIVE_DC_CODES, SEED_BRANDS } from '../../src/simulator/seed.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { PendingStock } from '../../src/state/stock/pendingStock.ts';
import { StockFailures } from '../../src/state/stock/stockFailures.ts';
import { establishRemote } from '../../src/sync/establish.ts';
import { pushPending } from '../../src/sync/push.ts';
import { readTotals, reconcileAll, reconcileKind } from '../../src/sync/reconcile.ts';
import { seedDesiredStock } from '../helpers/desiredStock.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';
import { markEstablished, pushClient } from './helpers.ts';

const BATCH = 50;
const retry = { baseMs: 60_000, maxMs: 3_600_000, notFoundMs: 6 * 3_600_000 };

let box: Sandbox;
let sim: Simulator;
let db: StateDb;
let client: PortalClient;
let logText: string[];
let log: ReturnType<typeof createLogger>;

function setup(maxBulkItems = BATCH, established = true) {
  return async () => {
    box = makeSandbox('push');
    sim = await startSimulator({ products: 300, maxBulkItems });
    db = openStateDb(join(box.dataDir, 'state.db'));
    if (established) markEstablished(db);
    const made = pushClient(sim, db, { BULK_BATCH_SIZE: String(BATCH) });
    client = made.client;
    logText = made.logText;
    log = made.log;
  };
}

/** What pushing, reading and the first start need, on this test's simulator and state. */
const deps = () => ({
  db,
  writer: stockPortal(client).writer,
  reader: stockPortal(client).reader,
  log,
  clock: systemClock,
  retry,
});

afterEach(async () => {
  client?.close();
  db?.close();
  await sim?.close();
  await box?.cleanup();
});

const sku = (i: number) => `SKU-${String(i + 1).padStart(7, '0')}`;
/** sku(5) asked for 42 and pushed; then someone changes it on the portal to 41. */
async function driftedKey(): Promise<void> {
  await seedDesiredStock(
    db,
    box.dataDir,
    'factory',
    [{ dc: '', sku: sku(5), quantity: 42 }],
    'test',
    Date.now(),
  );
  await pushPending(deps());
  sim.store.setFactoryStock(sku(5), 41);
}

const bulkCalls = (route: string) => sim.stats().requests.filter((r) => r.route === route).length;

describe('push against the simulator', () => {
  beforeEach(setup());

  it('pushes only differences, in the fewest calls, and a second push costs nothing', async () => {
    const factory = Array.from({ length: 120 }, (_, i) => ({
      dc: '',
      sku: sku(i),
      quantity: 1000 + i,
    }));
    const dc = Array.from({ length: 70 }, (_, i) => ({
      dc: ACTIVE_DC_CODES[0]!,
      sku: sku(i),
      quantity: 500 + i,
    }));
    await seedDesiredStock(db, box.dataDir, 'factory', factory, 'test', Date.now());
    await seedDesiredStock(db, box.dataDir, 'dc', dc, 'test', Date.now());
    sim.resetStats();

    const totals = await pushPending(deps());
    expect(totals).toMatchObject({ sent: 190, updated: 190, failed: 0 });
    expect(bulkCalls('POST /factory-stocks/bulk-update')).toBe(Math.ceil(120 / BATCH));
    expect(bulkCalls('POST /distribution-centre-stocks/bulk-update')).toBe(Math.ceil(70 / BATCH));
    for (const r of factory) expect(sim.store.factoryStock(r.sku)?.stock_quantity).toBe(r.quantity);
    for (const r of dc) expect(sim.store.dcStock(r.dc, r.sku)?.stock_quantity).toBe(r.quantity);
    expect(new PendingStock(db).counts()).toEqual({ factory: 0, dc: 0 });

    // The same rows again: nothing differs, no call.
    sim.resetStats();
    await seedDesiredStock(db, box.dataDir, 'factory', factory, 'test', Date.now());
    const again = await pushPending(deps());
    expect(again.calls).toBe(0);
    expect(sim.stats().requests).toHaveLength(0);
  });

  it('keeps rejected items as failures with the portal error, and retries them when asked', async () => {
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      [
        { dc: '', sku: 'NOPE-1', quantity: 3 },
        { dc: '', sku: sku(0), quantity: 7 },
      ],
      'test',
      Date.now(),
    );
    const totals = await pushPending(deps());
    expect(totals).toMatchObject({ updated: 1, failed: 1 });
    const [failure] = new StockFailures(db).list();
    expect(failure).toMatchObject({
      key: 'factory:NOPE-1',
      quantity: 3,
      error: 'Product not found',
      notFound: true,
      attempts: 1,
    });
    expect(logText.join('')).toContain('"event":"stock.item_failed"');

    // Not due yet: a push sends nothing.
    sim.resetStats();
    expect((await pushPending(deps())).calls).toBe(0);

    // The product is created on the portal; an operator retries: it lands.
    sim.store.addProduct({ sku: 'NOPE-1', name: 'Late product', brand: SEED_BRANDS[0]!.name });
    expect(new StockFailures(db).retryNow('all', Date.now())).toBe(1);
    const retried = await pushPending(deps());
    expect(retried).toMatchObject({ updated: 1, failed: 0 });
    expect(sim.store.factoryStock('NOPE-1')?.stock_quantity).toBe(3);
    expect(new StockFailures(db).count().total).toBe(0);
  });

  it('reconciles: reads the portal, finds drift, and the push repairs it', async () => {
    await driftedKey();
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      [{ dc: '', sku: 'GHOST', quantity: 1 }],
      'test',
      Date.now(),
    );
    const summaries = await reconcileAll(deps());
    const factory = summaries.find((s) => s.kind === 'factory')!;
    expect(factory.rowsRead).toBe(300);
    expect(factory.differences).toBe(1);
    expect(factory.unknownToPortal).toBe(1);
    expect(logText.join('')).toContain('"event":"reconcile.completed"');
    await pushPending(deps());
    expect(sim.store.factoryStock(sku(5))?.stock_quantity).toBe(42);
  });

  it('a push-back that lands while a page is on its way wins: the drift counts once and is pushed once', async () => {
    await driftedKey();
    expect(await reconcileKind('factory', deps())).toMatchObject({ complete: true, drift: 1 });
    // The next pass's first page is answered (41 still), then the push-back lands (42), then
    // the page is stored.
    const reader = stockPortal(client).reader;
    let first = true;
    const slow: typeof reader = {
      async page(kind, cursor, options) {
        const page = await reader.page(kind, cursor, options);
        if (first) {
          first = false;
          expect(page.rows.find((r) => r.sku === sku(5))?.quantity).toBe(41);
          await new Promise((r) => setTimeout(r, 2));
          expect(await pushPending(deps())).toMatchObject({ updated: 1 });
        }
        return page;
      },
    };
    expect(await reconcileKind('factory', { ...deps(), reader: slow })).toMatchObject({
      complete: true,
      drift: 0,
      differences: 0,
    });
    expect(new KeyValueStore(db).get('reconcile.totals')?.drift.factory).toBe(1);
    expect(new PendingStock(db).counts()).toEqual({ factory: 0, dc: 0 });
    expect(sim.store.factoryStock(sku(5))?.stock_quantity).toBe(42);
    sim.resetStats();
    expect(await pushPending(deps())).toMatchObject({ updated: 0 });
    expect(bulkCalls('PATCH /factory-stocks')).toBe(0);
  });

  it("running totals start from zero in every state.db (what one changes is never another's start)", () => {
    const totals = readTotals(db);
    totals.drift.factory += 3;
    totals.pages.dc += 1;
    expect(readTotals(db)).toEqual({ pages: { factory: 0, dc: 0 }, drift: { factory: 0, dc: 0 } });
  });

  it('retries a "Product not found" at once when a reconciliation shows the SKU', async () => {
    await seedDesiredStock(
      db,
      box.dataDir,
      'factory',
      [{ dc: '', sku: 'LATE-1', quantity: 4 }],
      'test',
      Date.now(),
    );
    await pushPending(deps());
    expect(new StockFailures(db).list()[0]).toMatchObject({
      key: 'factory:LATE-1',
      notFound: true,
    });
    sim.store.addProduct({ sku: 'LATE-1', name: 'Late', brand: SEED_BRANDS[0]!.name });
    await reconcileAll(deps());
    const pushed = await pushPending(deps());
    expect(pushed).toMatchObject({ updated: 1, failed: 0 });
    expect(sim.store.factoryStock('LATE-1')?.stock_quantity).toBe(4);
  });

  it('resumes an interrupted reconciliation from its last page', async () => {
    const stop = new AbortController();
    const reader = stockPortal(client).reader;
    let pages = 0;
    // The real reader, cut after its second page as a crash or a shutdown would.
    const cut: typeof reader = {
      async page(kind, cursor, options) {
        const page = await reader.page(kind, cursor, options);
        if (++pages === 2) stop.abort();
        return page;
      },
    };
    sim.resetStats();
    const first = await reconcileKind('dc', { ...deps(), reader: cut, signal: stop.signal });
    expect(first).toMatchObject({ complete: false, rowsRead: 200 });
    const second = await reconcileKind('dc', deps());
    expect(second).toMatchObject({ complete: true, resumed: true, rowsRead: 900 });
    // No page was read twice: 9 pages of 100 in all.
    expect(bulkCalls('GET /distribution-centre-stocks')).toBe(9);
    expect(logText.join('')).toContain('"event":"reconcile.resumed"');
  });

  it('on a first start reads factory stock (cheaper) and pushes DC stock (cheaper)', async () => {
    const kv = new KeyValueStore(db);
    for (const kind of ['factory', 'dc'] as const) kv.delete(`remote.established.${kind}`);
    const factory = Array.from({ length: 300 }, (_, i) => ({
      dc: '',
      sku: sku(i),
      quantity: sim.store.factoryStock(sku(i))!.stock_quantity,
    }));
    factory[3] = { dc: '', sku: sku(3), quantity: 99_999 };
    await seedDesiredStock(db, box.dataDir, 'factory', factory, 'test', Date.now());
    await seedDesiredStock(
      db,
      box.dataDir,
      'dc',
      [{ dc: ACTIVE_DC_CODES[0]!, sku: sku(1), quantity: 5 }],
      'test',
      Date.now(),
    );
    sim.resetStats();
    const choices = await establishRemote(deps());
    expect(choices.map((c) => [c.kind, c.choice])).toEqual([
      ['factory', 'read'],
      ['dc', 'push'],
    ]);
    const totals = await pushPending(deps());
    expect(totals.sent).toBe(2); // one factory difference, one DC row
    expect(bulkCalls('GET /factory-stocks')).toBe(1);
  });
});

describe('a first start against a catalogue far larger than the file', () => {
  beforeEach(setup(BATCH, false));
  // 200 DC rows: reading looks cheaper (2 pages against 4 batches of 50), but the portal holds
  // 900 rows (9 pages).
  const rows = () =>
    Array.from({ length: 200 }, (_, i) => ({
      dc: ACTIVE_DC_CODES[i % 3]!,
      sku: sku(Math.floor(i / 3)),
      quantity: 10_000 + i,
    }));

  it.each([
    ['says its size (meta.total): one page, then the push', true, 1],
    ['does not say: at most as many pages as the push takes calls, less one', false, 3],
  ])('when the portal %s', async (_what, totals, pages) => {
    sim.faults.set({ listTotals: totals });
    await seedDesiredStock(db, box.dataDir, 'dc', rows(), 'test', Date.now());
    sim.resetStats();
    const [choice] = await establishRemote(deps());
    expect(choice).toMatchObject({ kind: 'dc', choice: 'read', readCalls: 2, pushCalls: 4 });
    expect(bulkCalls('GET /distribution-centre-stocks')).toBe(pages);
    const switched = logText
      .join('')
      .split('\n')
      .find((l) => l.includes('first_start_switched'));
    expect(JSON.parse(switched!)).toMatchObject({
      kind: 'dc',
      pagesRead: pages,
      portalRows: totals ? 900 : null,
    });
    const totalsPushed = await pushPending(deps());
    expect(totalsPushed).toMatchObject({ calls: 4, updated: 200 });
    for (const r of rows()) expect(sim.store.dcStock(r.dc, r.sku)?.stock_quantity).toBe(r.quantity);
    // The read is left in progress for the reconciliation lane, from where it stopped.
    const read = new KeyValueStore(db).get('reconcile.read.dc');
    expect(read).toMatchObject({ pages, reason: 'first start' });
    expect(read?.cursor).not.toBeNull();
  });
});

describe('decide before pushing (issue #29)', () => {
  beforeEach(setup(BATCH, false));
  const dcRows = Array.from({ length: 30 }, (_, i) => ({
    dc: ACTIVE_DC_CODES[0]!,
    sku: sku(i),
    quantity: 700 + i,
  }));

  it('pending rows of a kind whose first start is not decided are not pushed', async () => {
    await seedDesiredStock(db, box.dataDir, 'dc', dcRows, 'test', Date.now());
    sim.resetStats();
    const totals = await pushPending(deps());
    expect(totals.calls).toBe(0);
    expect(sim.stats().requests).toHaveLength(0);
    expect(new PendingStock(db).counts().dc).toBe(30);
    // Once decided (30 rows: one batch against 9 pages), they go.
    expect((await establishRemote(deps())).map((c) => [c.kind, c.choice])).toEqual([
      ['dc', 'push'],
    ]);
    expect((await pushPending(deps())).updated).toBe(30);
  });

  it('no first start is decided while files that were in the inbox at start are not applied', async () => {
    await seedDesiredStock(db, box.dataDir, 'dc', dcRows, 'test', Date.now());
    sim.resetStats();
    let applied = false;
    expect(await establishRemote({ ...deps(), mayDecide: () => applied })).toEqual([]);
    expect(new KeyValueStore(db).get('remote.established.dc')).toBeUndefined();
    expect(logText.join('')).toContain('"event":"sync.first_start_deferred"');
    applied = true;
    expect(await establishRemote({ ...deps(), mayDecide: () => applied })).toHaveLength(1);
    expect(new KeyValueStore(db).get('remote.established.dc')).toBe(true);
  });
});

describe('push when the portal takes smaller batches than configured', () => {
  beforeEach(setup(20));

  it('splits, learns the size, and still lands every item', async () => {
    const factory = Array.from({ length: 100 }, (_, i) => ({
      dc: '',
      sku: sku(i),
      quantity: 7 + i,
    }));
    await seedDesiredStock(db, box.dataDir, 'factory', factory, 'test', Date.now());
    const totals = await pushPending({
      db,
      writer: stockPortal(client).writer,
      log,
      clock: systemClock,
      retry,
    });
    expect(totals.updated).toBe(100);
    const learnt = client.maxBatchSize('factory');
    expect(learnt).toBeGreaterThan(0);
    expect(learnt).toBeLessThanOrEqual(20);
    for (const r of factory) expect(sim.store.factoryStock(r.sku)?.stock_quantity).toBe(r.quantity);
  });
});
