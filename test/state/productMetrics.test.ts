/**
 * The new products' metrics (docs/operations.md, docs/products.md): on a real state.db holding
 * products the daemon created, some decided by the platform's review, products still to create
 * and a complete read of the portal's catalogue, /metrics shows what `status` counts.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProductListItem } from '../../src/api/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createMetrics, type Metrics } from '../../src/daemon/metrics.ts';
import { readStatus } from '../../src/daemon/status.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { createLogger } from '../../src/log/logger.ts';
import { recordStatuses } from '../../src/products/statuses.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import { Catalogue } from '../../src/state/products/catalogueStore.ts';
import { ProductRequests } from '../../src/state/products/productRequests.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const config = loadConfig({ env: {} });
const log = createLogger({ level: 'silent', pretty: false });

let box: Sandbox;
let db: StateDb;
let metrics: Metrics | undefined;
beforeEach(() => {
  box = makeSandbox('product-metrics');
  db = openStateDb(join(box.dataDir, 'state.db'));
});
afterEach(async () => {
  metrics?.stop();
  metrics = undefined;
  db.close();
  await box.cleanup();
});

/** The value of one sample in Prometheus text; undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  metrics ??= createMetrics({ db, config, now: () => NOW, everyMs: 3_600_000 });
  await metrics.refresh();
  return metrics.render();
}

const listed = (sku: string, platformStatus: string, reason: string | null = null) =>
  ({
    sku,
    platform_sku: `100.200.${sku.length}`,
    name: 'Oak chair',
    status: platformStatus === 'active' ? 'active' : 'inactive',
    platform_status: platformStatus,
    declined_reason: reason,
  }) as ProductListItem;

/** The platform's review read at `at` (the decisions noticed then). */
const reviewed = (at: number, products: ProductListItem[]) =>
  recordStatuses(products, {
    db,
    log,
    clock: { now: () => at, sleep: systemClock.sleep },
    appeared: () => 0,
  });

/** Products the daemon created from new.csv at `at`, pending the platform's review. */
function created(at: number, ...skus: string[]): void {
  const catalogue = new Catalogue(db);
  for (const sku of skus)
    catalogue.record({ sku, platformStatus: 'inactive', status: 'pending' }, at, {
      at,
      fileId: 1,
      fileName: 'new.csv',
    });
}

function queued(...skus: string[]): number[] {
  const requests = new ProductRequests(db);
  requests.queue(
    skus.map((sku, i) => ({
      line: i + 2,
      draft: { sku, name: 'Oak chair' },
      stock: { dcs: {} },
      shortDescription: false,
    })),
    { id: 2, name: 'more.csv' },
    NOW - HOUR,
  );
  return requests.ofFile(2).map((r) => r.id);
}

const PRODUCT_SERIES = [
  'supplier_sync_products_created_total',
  'supplier_sync_products_to_create',
  'supplier_sync_products_under_review',
  'supplier_sync_products_declined_last_7d',
  'supplier_sync_catalogue_read_age_seconds',
  'supplier_sync_catalogue_products',
];

describe('/metrics: new products', () => {
  it('are all 0 on a daemon that never dealt in products; the catalogue read is absent', async () => {
    const t = await scrape();
    for (const name of PRODUCT_SERIES) expect(t).toContain(`# TYPE ${name} `);
    expect(t).toContain('# TYPE supplier_sync_products_created_total counter');
    for (const name of PRODUCT_SERIES.slice(0, 4)) expect(sample(t, name), name).toBe(0);
    expect(sample(t, 'supplier_sync_catalogue_read_age_seconds')).toBeUndefined();
    expect(sample(t, 'supplier_sync_catalogue_products')).toBeUndefined();
    expect(t).not.toMatch(/NaN/);
  });

  it('count the created, those under review, declined in 7 days, still to create, and the catalogue read', async () => {
    // Six created: OLD-1 declined nine days ago, NEW-1 declined an hour ago, NEW-2 activated;
    // NEW-3, NEW-4, NEW-5 still under review. FOUND-1 was found by a read: not the daemon's.
    created(NOW - 10 * DAY, 'OLD-1');
    created(NOW - 2 * DAY, 'NEW-1', 'NEW-2', 'NEW-3', 'NEW-4', 'NEW-5');
    reviewed(NOW - 9 * DAY, [listed('OLD-1', 'declined', 'No images.')]);
    reviewed(NOW - HOUR, [
      listed('NEW-1', 'declined', 'The description has 13 characters.'),
      listed('NEW-2', 'active'),
      listed('FOUND-1', 'active'),
    ]);
    // Three asked for: one queued, one sent with no answer recorded, one settled as created.
    const [, sending, done] = queued('NEW-6', 'NEW-7', 'NEW-8');
    const requests = new ProductRequests(db);
    requests.markSending(sending!, NOW - HOUR);
    requests.markSending(done!, NOW - HOUR);
    requests.settle(done!, { state: 'created', platformSku: '100.200.8' }, NOW - HOUR);
    new KeyValueStore(db).set(
      'catalogue.pass',
      {
        startedAt: NOW - 3 * HOUR,
        pages: 13,
        rows: 1234,
        appeared: 1,
        completedAt: NOW - 2 * HOUR,
      },
      NOW - 2 * HOUR,
    );

    let t = await scrape();
    expect(sample(t, 'supplier_sync_products_created_total')).toBe(6);
    expect(sample(t, 'supplier_sync_products_under_review')).toBe(3);
    expect(sample(t, 'supplier_sync_products_declined_last_7d')).toBe(1);
    expect(sample(t, 'supplier_sync_products_to_create')).toBe(2);
    expect(sample(t, 'supplier_sync_catalogue_read_age_seconds')).toBe(2 * 3600);
    expect(sample(t, 'supplier_sync_catalogue_products')).toBe(1234);
    // The figures `status` shows, the same read.
    expect(readStatus(db, config, NOW).products).toMatchObject({
      created: 6,
      undecided: 3,
      declined: { count: 1, recent: [{ sku: 'NEW-1' }] },
      toCreate: 2,
      catalogueReadAt: NOW - 2 * HOUR,
      catalogueProducts: 1234,
    });

    // The platform's admin activates NEW-1 after all, NEW-3 is declined; NEW-6 is created.
    reviewed(NOW - HOUR / 2, [listed('NEW-1', 'active'), listed('NEW-3', 'declined', 'Blurry.')]);
    created(NOW - HOUR / 4, 'NEW-6');
    requests.settle(requests.ofSku('NEW-6')!.id, { state: 'created' }, NOW - HOUR / 4);
    t = await scrape();
    expect(sample(t, 'supplier_sync_products_created_total')).toBe(7);
    expect(sample(t, 'supplier_sync_products_under_review')).toBe(3);
    expect(sample(t, 'supplier_sync_products_declined_last_7d')).toBe(1);
    expect(sample(t, 'supplier_sync_products_to_create')).toBe(1);
  });
});
