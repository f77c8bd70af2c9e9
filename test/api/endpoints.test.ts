import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PortalClient } from '../../src/api/index.ts';
import { PortalHttpError } from '../../src/api/index.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { DEFAULT_PASSWORD, type Harness, harness, rejection, seen, simulator } from './helpers.ts';

let sim: Simulator;
let h: Harness;
let client: PortalClient;

beforeAll(async () => {
  sim = await simulator({ products: 250 });
  h = harness(sim, 'endpoints');
  client = h.client();
});

afterAll(async () => {
  const tokens = h.openDb().prepare('SELECT token FROM auth_token').pluck().all() as string[];
  h.logs.expectNoSecrets([DEFAULT_PASSWORD, ...tokens]);
  await h.cleanup();
  await sim.close();
});

describe('brands', () => {
  it('creates, lists, updates and deletes', async () => {
    const created = await client.brands.create({ name: 'Acme Test', description: 'a brand' });
    expect(created.brand_id).toBeTypeOf('number');
    expect(created.name).toBe('Acme Test');

    const listed = await client.brands.list();
    expect(listed.find((b) => b.id === created.brand_id)).toMatchObject({ name: 'Acme Test' });

    const updated = await client.brands.update(created.brand_id, { name: 'Acme Renamed' });
    expect(updated.status).toBe(200);
    expect((await client.brands.list()).find((b) => b.id === created.brand_id)?.name).toBe(
      'Acme Renamed',
    );

    const deleted = await client.brands.delete(created.brand_id);
    expect(deleted.status).toBeGreaterThanOrEqual(200);
    expect((await client.brands.list()).some((b) => b.id === created.brand_id)).toBe(false);
  });

  it('a 4xx is a typed, final error carrying the API error fields', async () => {
    const err = await rejection(client.brands.update(999_999, { name: 'x' }));
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).toMatchObject({ code: 'E_HTTP', status: 404, retryable: false, field: 'id' });
    expect((err as PortalHttpError).apiCode).toBeTypeOf('string');
  });
});

describe('products', () => {
  it('pages with a cursor, and a walk resumes from a saved cursor', async () => {
    const first = await client.products.list();
    expect(first.items).toHaveLength(100);
    expect(first.cursor).toBeUndefined();
    expect(first.nextCursor).toBeTypeOf('string');

    const all: string[] = [];
    let saved: string | null = null;
    let pages = 0;
    for await (const page of client.products.pages()) {
      all.push(...page.items.map((p) => p.sku));
      pages++;
      if (pages === 1) {
        saved = page.nextCursor;
        break; // a "crash" after the first page was handled
      }
    }
    expect(saved).not.toBeNull();
    for await (const page of client.products.pages({}, { cursor: saved ?? undefined })) {
      all.push(...page.items.map((p) => p.sku));
      pages++;
    }
    expect(pages).toBe(3);
    expect(all).toHaveLength(250);
    expect(new Set(all).size).toBe(250);

    let count = 0;
    for await (const _ of client.products.items()) count++;
    expect(count).toBe(250);
  });

  it('filters, searches and adds scoped fields', async () => {
    const active = await client.products.list({ platform_status: 'active' });
    expect(active.items.length).toBeGreaterThan(0);
    expect(active.items.every((p) => p.platform_status === 'active')).toBe(true);
    const inactive = await client.products.list({ status: 'inactive' });
    expect(inactive.items.every((p) => p.status === 'inactive')).toBe(true);

    const some = first(await client.products.list());
    const found = await client.products.list({ search: some.sku });
    expect(found.items.map((p) => p.sku)).toContain(some.sku);

    const scoped = await client.products.list({ scope: ['factory_stock', 'images'], per_page: 5 });
    expect(scoped.items).toHaveLength(5);
    expect(first(scoped)).toHaveProperty('factory_stock');
    expect(first(scoped)).toHaveProperty('images');
  });

  it('reads one product by sku and by platform sku', async () => {
    const some = first(await client.products.list());
    const bySku = await client.products.get(some.sku);
    const byPlatform = await client.products.get(some.platform_sku);
    expect(bySku.sku).toBe(some.sku);
    expect(byPlatform.sku).toBe(some.sku);
    expect(bySku.factory_stock?.stock_quantity).toBeTypeOf('number');
    expect(Array.isArray(bySku.distribution_centre_stock)).toBe(true);
  });

  it('creates a product', async () => {
    const brand = await client.brands.create({ name: 'Product Brand' });
    const [site] = await client.reference.sites();
    const [tax] = await client.reference.taxRates();
    const created = await client.products.create({
      sku: 'API-TEST-1',
      name: 'A test product',
      description: 'd'.repeat(120),
      brand: brand.name,
      images: [{ url: 'https://example.com/a.jpg', is_primary: true, type: 'lifestyle' }],
      site_pricing: [
        {
          site_code: site!.code,
          price: '19.99',
          price_currency: 'GBP',
          tax_rate_id: tax!.id,
        },
      ],
      factory_stock: { stock_quantity: 7 },
    });
    expect(created).toMatchObject({ sku: 'API-TEST-1', status: 'pending' });
    expect(created.factory_stock?.stock_quantity).toBe(7);
    expect((await client.products.get('API-TEST-1')).name).toBe('A test product');
  });
});

describe('reference data', () => {
  it('lists sites, distribution centres and tax rates', async () => {
    const sites = await client.reference.sites();
    const dcs = await client.reference.distributionCentres();
    const taxes = await client.reference.taxRates();
    expect(sites.length).toBeGreaterThan(0);
    expect(dcs.some((d) => d.is_active)).toBe(true);
    expect(dcs[0]?.site.code).toBeTypeOf('string');
    expect(taxes[0]?.rate).toMatch(/^\d+\.\d{2}$/);
  });
});

describe('distribution centre stock', () => {
  it('lists pages, updates one and many', async () => {
    const page = await client.dcStock.list();
    expect(page.items.length).toBeGreaterThan(0);
    const row = page.items[0]!;
    let walked = 0;
    for await (const p of client.dcStock.pages({ maxPages: 2 })) walked += p.items.length;
    expect(walked).toBeGreaterThan(page.items.length - 1);

    const one = await client.dcStock.update({
      distribution_centre_code: row.distribution_centre_code,
      sku: row.sku,
      stock_quantity: 42,
    });
    expect(one.updated[0]).toMatchObject({ sku: row.sku, stock_quantity: 42 });

    const bulk = await client.dcStock.bulkUpdate([
      { distribution_centre_code: row.distribution_centre_code, sku: row.sku, stock_quantity: 43 },
      {
        distribution_centre_code: row.distribution_centre_code,
        sku: 'NO-SUCH-SKU',
        stock_quantity: 1,
      },
    ]);
    expect(bulk.updated.map((u) => u.sku)).toEqual([row.sku]);
    expect(bulk.errors.map((e) => e.sku)).toEqual(['NO-SUCH-SKU']);
  });
});

describe('factory stock', () => {
  it('lists with range filters and a cursor', async () => {
    const page = await client.factoryStock.list({ stock_quantity_gte: 10, stock_quantity_lte: 50 });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((r) => r.stock_quantity >= 10 && r.stock_quantity <= 50)).toBe(true);
    const allocated = await client.factoryStock.list({ stock_quantity_allocated_gte: 1 });
    expect(allocated.items.every((r) => r.stock_quantity_allocated >= 1)).toBe(true);
    let n = 0;
    for await (const _ of client.factoryStock.items()) n++;
    expect(n).toBeGreaterThanOrEqual(250);
  });

  it('updates one and many, and reports items in neither list as missing', async () => {
    const [a, b] = (await client.factoryStock.list()).items;
    const one = await client.factoryStock.update({ sku: a!.sku, stock_quantity: 5 });
    expect(one.updated).toEqual([expect.objectContaining({ sku: a!.sku, stock_quantity: 5 })]);
    expect(sim.store.factoryStock(a!.sku)?.stock_quantity).toBe(5);

    const bulk = await client.factoryStock.bulkUpdate([
      { sku: a!.sku, stock_quantity: 6 },
      { sku: b!.sku, stock_quantity: 8 },
      { sku: 'NOPE', stock_quantity: 1 },
    ]);
    expect(bulk.updated.map((u) => u.sku)).toEqual([a!.sku, b!.sku]);
    expect(bulk.errors).toEqual([
      expect.objectContaining({ sku: 'NOPE', error: 'Product not found' }),
    ]);
    expect(bulk.requests).toBe(1);
  });
});

describe('shipments', () => {
  it('lists (with a status filter), lists ready-to-ship, reads one', async () => {
    const all = await client.shipments.list();
    expect(all.length).toBeGreaterThan(0);
    const pending = await client.shipments.list({ status: 'pending' });
    expect(pending.every((s) => s.status === 'pending')).toBe(true);
    const ready = await client.shipments.readyToShip();
    expect(ready.length).toBeGreaterThan(1);
    const one = await client.shipments.get(ready[0]!.order_number);
    expect(one.order_number).toBe(ready[0]!.order_number);
  });

  it('marks shipped and collected; a repeat without an earlier unanswered attempt is an error', async () => {
    const [a, b] = await client.shipments.readyToShip();
    const shipped = await client.shipments.shipped(a!.order_number, {
      carrier: 'DHL',
      tracking_number: 'TRK-1',
    });
    expect(shipped).toMatchObject({ alreadyDone: false });
    expect(shipped.status).toBeGreaterThanOrEqual(200);
    const collected = await client.shipments.collected(b!.order_number, {
      carrier: 'UPS',
      tracking_number: 'TRK-2',
    });
    expect(collected.alreadyDone).toBe(false);
    expect((await client.shipments.get(b!.order_number)).is_collected).toBe(true);

    const again = await rejection(
      client.shipments.shipped(a!.order_number, { carrier: 'DHL', tracking_number: 'TRK-1' }),
    );
    expect(again).toMatchObject({ code: 'E_HTTP', status: 409, retryable: false });
  });

  it('with previousAttemptUnanswered, "already shipped" with the same tracking is success', async () => {
    const [c] = await client.shipments.readyToShip();
    await client.shipments.shipped(c!.order_number, { carrier: 'DPD', tracking_number: 'TRK-3' });
    const before = seen(sim, 'GET /shipments/:order_number');
    const result = await client.shipments.shipped(
      c!.order_number,
      { carrier: 'DPD', tracking_number: 'TRK-3' },
      { previousAttemptUnanswered: true },
    );
    expect(result).toMatchObject({ alreadyDone: true, status: 409 });
    expect(seen(sim, 'GET /shipments/:order_number')).toBe(before + 1);

    const other = await rejection(
      client.shipments.shipped(
        c!.order_number,
        { carrier: 'DPD', tracking_number: 'OTHER' },
        { previousAttemptUnanswered: true },
      ),
    );
    expect(other).toMatchObject({ status: 409 });
  });

  it('a "collected" refused after an unanswered attempt is done only when the portal shows it collected', async () => {
    const [d] = await client.shipments.readyToShip();
    await client.shipments.shipped(d!.order_number, { carrier: 'DPD', tracking_number: 'TRK-4' });
    sim.faults.set({
      routeFaults: [{ route: 'POST /shipments/:order_number/collected', status: 422 }],
    });
    // Same carrier and tracking number as the order holds, but not collected: not done.
    const err = await rejection(
      client.shipments.collected(
        d!.order_number,
        { carrier: 'DPD', tracking_number: 'TRK-4' },
        { previousAttemptUnanswered: true },
      ),
    );
    sim.faults.clear();
    expect(err).toMatchObject({ code: 'E_HTTP', status: 422, retryable: false });
    // Collected by then (the earlier attempt landed): done.
    sim.store.markCollected(d!.order_number, 'DPD', 'TRK-4', new Date().toISOString());
    sim.faults.set({
      routeFaults: [{ route: 'POST /shipments/:order_number/collected', status: 422, times: 1 }],
    });
    const done = await client.shipments.collected(
      d!.order_number,
      { carrier: 'DPD', tracking_number: 'TRK-4' },
      { previousAttemptUnanswered: true },
    );
    expect(done).toMatchObject({ alreadyDone: true, status: 422 });
  });

  it('a list by page numbers is read as one page, with one warning that more pages are not followed', async () => {
    sim.faults.set({ shipmentsPerPage: 5 });
    try {
      const all = sim.store.allShipments();
      const first = await client.shipments.list();
      expect(first.map((s) => s.order_number)).toEqual(all.slice(0, 5).map((s) => s.order_number));
      await client.shipments.list();
      const warned = h.logs.events('api.list_unfollowed');
      expect(warned).toEqual([
        expect.objectContaining({
          route: 'GET /shipments',
          currentPage: 1,
          lastPage: Math.ceil(all.length / 5),
          by: 'page numbers',
        }),
      ]);
    } finally {
      sim.faults.clear();
    }
  });
});

function first<T>(page: { items: T[] }): T {
  const item = page.items[0];
  if (item === undefined) throw new Error('empty page');
  return item;
}
