import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type PortalClient, productsPortal } from '../../src/api/index.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { readCataloguePage } from '../../src/products/catalogueRead.ts';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { ProductDecisions } from '../../src/state/products/productDecisions.ts';
import { productsAppeared } from '../../src/sync/appeared.ts';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';
import { makeSandbox, type Sandbox, waitUntil } from '../helpers/sandbox.ts';
import { pushClient } from '../sync/helpers.ts';

/**
 * The portal's catalogue kept known (docs/products.md, "The catalogue kept fresh"): its whole
 * product list read page by page, 100 a page, each page recorded with its statuses and the page
 * position saved, so that a pass cut short resumes where it stopped; and in the daemon, a
 * product made elsewhere that stock waited for is found by the next pass and its stock pushed
 * at once, not at the "Product not found" back-off.
 */

describe('the catalogue pass on its own (real simulator, real state.db)', () => {
  let box: Sandbox;
  let sim: Simulator;
  let db: StateDb;
  let client: PortalClient | undefined;
  let logText: string[] = [];
  let simNow = Date.now();
  afterEach(async () => {
    client?.close();
    db?.close();
    await sim?.close();
    await box?.cleanup();
  });

  async function setup() {
    box = makeSandbox('catalogue-read');
    simNow = Date.now();
    sim = await startSimulator({ products: 250, now: () => simNow });
    db = openStateDb(join(box.dataDir, 'state.db'));
    connect();
  }

  /** A new client and logger on the same state.db: a restart, as far as the pass can tell. */
  function connect() {
    client?.close();
    const made = pushClient(sim, db);
    client = made.client;
    logText = made.logText;
    return {
      db,
      log: made.log,
      clock: systemClock,
      portal: productsPortal(made.client),
      appeared: (p: Parameters<typeof productsAppeared>[1]) => productsAppeared(db, p, Date.now()),
    };
  }

  const listCalls = () => sim.stats().requests.filter((r) => r.route === 'GET /products').length;
  const events = (event: string) =>
    logText
      .flatMap((t) => t.split('\n'))
      .filter((l) => l.includes(`"event":"${event}"`))
      .map((l) => JSON.parse(l));

  it('reads the list a page at a time and resumes a pass cut short where it stopped', async () => {
    await setup();
    let deps = connect();
    expect((await readCataloguePage(deps)).pass).toBeNull();
    expect((await readCataloguePage(deps)).pass).toBeNull();
    expect(new KeyValueStore(db).get('catalogue.read')).toMatchObject({ pages: 2, rows: 200 });
    expect(new Catalogue(db).knows(seededSku(199))).toBe(true);
    expect(new Catalogue(db).knows(seededSku(200))).toBe(false);

    deps = connect();
    const last = await readCataloguePage(deps);
    expect(last.pass).toMatchObject({ pages: 3, rows: 250, appeared: 250 });
    expect(listCalls()).toBe(3);
    expect(new KeyValueStore(db).get('catalogue.read')).toBeUndefined();
    // Every product with its statuses, as the portal lists them.
    const counts = new Catalogue(db).countByPlatformStatus();
    expect(counts.declined ?? 0).toBe(countSeeded('declined'));
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(250);
    expect(events('catalogue.read')).toEqual([
      expect.objectContaining({ pages: 3, rows: 250, appeared: 250 }),
    ]);

    // A product the daemon created that the platform declined is a decision when a pass sees it.
    const sku = firstSeeded('declined');
    new Catalogue(db).record({ sku, platformStatus: 'inactive' }, Date.now(), {
      at: Date.now(),
      fileId: 1,
      fileName: 'new.csv',
    });
    while ((await readCataloguePage(deps)).pass === null) {}
    expect(new ProductDecisions(db).latest(sku)).toMatchObject({ decision: 'declined' });
    expect(new ProductDecisions(db).unwrittenFiles()).toHaveLength(1);
    expect(events('product.declined')).toEqual([expect.objectContaining({ sku })]);
  });

  it('starts the pass again from the first page when the portal refuses its saved position', async () => {
    await setup();
    sim.faults.set({ cursorTtlMs: 60_000 });
    const deps = connect();
    await readCataloguePage(deps);
    simNow += 120_000; // the saved cursor has expired
    await readCataloguePage(deps);
    expect(events('catalogue.cursor_refused')).toEqual([
      expect.objectContaining({ status: 400, pagesDiscarded: 1 }),
    ]);
    expect(new KeyValueStore(db).get('catalogue.read')).toMatchObject({ pages: 1, rows: 100 });
    let pass = null;
    while (pass === null) pass = (await readCataloguePage(deps)).pass;
    expect(pass).toMatchObject({ pages: 3, rows: 250 });
  });

  function countSeeded(status: string): number {
    let n = 0;
    for (let i = 0; i < 250; i++)
      if (sim.store.product(seededSku(i))?.platform_status === status) n++;
    return n;
  }

  function firstSeeded(status: string): string {
    for (let i = 0; i < 250; i++) {
      if (sim.store.product(seededSku(i))?.platform_status === status) return seededSku(i);
    }
    throw new Error(`no seeded product is ${status}`);
  }
});

describe('the catalogue kept fresh in the daemon', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('finds a product created elsewhere and pushes the stock that waited for it at once', async () => {
    // "Product not found" waits two days here: only the catalogue pass can bring it forward.
    h = await startHarness(
      'catalogue-fresh',
      { products: 60 },
      { NOT_FOUND_RETRY_MS: '172800000' },
    );
    const d = await h.start();
    h.drop(
      'stock.csv',
      factoryCsv([
        ['ELSE-1', 9],
        [seededSku(0), 5],
      ]),
    );
    await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'ELSE-1');
    // Stock waits for a product: the daemon now reads the portal's product list (the periodic
    // recovery asks for it; asked for at once here).
    await h.runNow('recover');
    const first = await d.waitForEvent('catalogue.read');
    expect(first).toMatchObject({ rows: 60, appeared: 60 });
    const before = JSON.parse((await h.cli(['explain', 'factory:ELSE-1', '--json'])).stdout);
    expect(before).toMatchObject({ product: null, failure: { notFound: true } });
    expect((await h.cli(['explain', 'factory:ELSE-1'])).stdout).toMatch(
      /Product: +the portal has no product ELSE-1 and no products file asked for it/,
    );

    // Someone creates it in the portal's web interface.
    h.sim.store.addProduct({ sku: 'ELSE-1', name: 'Made elsewhere', brand: 'Northwind' });
    // The next pass, 20 hours after the last one started (the catalogue is fresh within a day).
    h.clock.advance(20 * 3_600_000 + 60_000);
    await h.runNow('recover');
    await d.waitFor((l) => l.event === 'catalogue.read' && l.appeared === 1);
    await waitUntil(() => h!.sim.store.factoryStock('ELSE-1')?.stock_quantity === 9, {
      timeoutMs: 20_000,
      message: 'the stock that waited pushed',
    });
    await waitUntil(
      async () => JSON.parse((await h!.cli(['failures', '--json'])).stdout).stock.length === 0,
      { timeoutMs: 20_000, message: 'no failure left' },
    );

    const known = JSON.parse((await h.cli(['products', '--all', '--json'])).stdout);
    expect(known).toHaveLength(61);
    expect(known.find((p: { sku: string }) => p.sku === 'ELSE-1')).toMatchObject({
      sku: 'ELSE-1',
      platformSku: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      createdAt: null,
      createdBy: null,
    });
    // Only what the daemon created is listed without --all: nothing here.
    expect(JSON.parse((await h.cli(['products', '--json'])).stdout)).toEqual([]);
    const after = JSON.parse((await h.cli(['explain', 'factory:ELSE-1', '--json'])).stdout);
    expect(after.product).toMatchObject({
      waitsForProduct: false,
      request: null,
      portal: { createdByDaemon: false, createdBy: null },
    });
  });
});
