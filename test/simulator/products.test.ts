import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { PRODUCT_SCOPES } from '../../src/simulator/model.ts';
import { ACTIVE_DC_CODES, INACTIVE_DC_CODE, seededSku } from '../../src/simulator/seed.ts';
import {
  type Client,
  expectedApiError,
  startWithClient,
  UK_PRICE,
  walkBothWays,
} from './helpers.ts';

let sim: Simulator;
let client: Client;
beforeAll(async () => {
  ({ sim, client } = await startWithClient({ products: 450 }));
});
afterAll(() => sim.close());

const listItemKeys = [
  'declined_reason',
  'name',
  'platform_sku',
  'platform_status',
  'sku',
  'status',
];

describe('GET /products', () => {
  it('answers the first page with data, links and meta per the spec', async () => {
    const r = await client.get('/products');
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(100);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(listItemKeys);
    expect(r.body.data[0].sku).toBe('SKU-0000001');
    expect(r.body.data[0].platform_sku).toMatch(/^\d+(\.\d+)+$/);
    expect(r.body.links).toEqual({
      first: null,
      last: null,
      prev: null,
      next: expect.stringContaining(`${sim.baseUrl}/products?cursor=`),
    });
    expect(r.body.meta).toEqual({
      path: `${sim.baseUrl}/products`,
      per_page: 100,
      next_cursor: expect.any(String),
      prev_cursor: null,
    });
    // the next link works as is
    const next = await client.get(r.body.links.next);
    expect(next.body.data[0].sku).toBe('SKU-0000101');
  });

  it('walks every product forwards and backwards with none lost or repeated', async () => {
    const walk = await walkBothWays<{ sku: string }>(client, '/products?per_page=37', (p) => p.sku);
    const all = Array.from({ length: 450 }, (_, i) => seededSku(i));
    expect(walk.forward).toEqual(all);
    expect(walk.backward).toEqual(all);
    expect(walk.pages).toBe(Math.ceil(450 / 37));
  });

  it('filters by platform_status and status across pages', async () => {
    const walk = await walkBothWays<{ sku: string; platform_status: string; status: string }>(
      client,
      '/products?platform_status=active&status=active&per_page=50',
      (p) => `${p.sku}|${p.platform_status}|${p.status}`,
    );
    const expected: string[] = [];
    for (let i = 0; i < 450; i++) {
      const p = sim.store.product(seededSku(i))!;
      if (p.platform_status === 'active' && p.status === 'active') {
        expected.push(`${p.sku}|active|active`);
      }
    }
    expect(expected.length).toBeGreaterThan(200);
    expect(walk.forward).toEqual(expected);
    expect(walk.backward).toEqual(expected);
  });

  it('searches name, sku and platform_sku case-insensitively', async () => {
    const bySku = await client.get('/products?search=sku-000012');
    expect(bySku.body.data.map((p: { sku: string }) => p.sku)).toEqual(
      Array.from({ length: 10 }, (_, i) => seededSku(119 + i)),
    );
    const target = sim.store.product('SKU-0000042')!;
    const byPlatform = await client.get(`/products?search=${target.platform_sku}`);
    expect(byPlatform.body.data.map((p: { sku: string }) => p.sku)).toEqual(['SKU-0000042']);
    const word = target.name.split(' ')[1]!.toUpperCase();
    const byName = await client.get(`/products?search=${word}&per_page=100`);
    expect(byName.body.data.length).toBeGreaterThan(0);
    for (const p of byName.body.data) expect(p.name.toUpperCase()).toContain(word);
  });

  it('adds scoped fields and rejects unknown scopes', async () => {
    const r = await client.get(`/products?per_page=2&scope=${PRODUCT_SCOPES.join(',')}`);
    expect(r.status).toBe(200);
    const item = r.body.data[0];
    expect(Object.keys(item).sort()).toEqual([...listItemKeys, ...PRODUCT_SCOPES].sort());
    expect(item.factory_stock).toEqual(sim.store.factoryStock('SKU-0000001'));
    expect(
      item.distribution_centre_stock.map(
        (d: { distribution_centre_code: string }) => d.distribution_centre_code,
      ),
    ).toEqual(ACTIVE_DC_CODES);
    expect(item.site_pricing[0]).toEqual({
      site: { code: 'UK', name: 'United Kingdom' },
      price: expect.stringMatching(/^\d+\.\d{2}$/),
      price_currency: 'GBP',
    });
    const bad = await client.get('/products?scope=images,prices');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(expectedApiError('invalid_parameter', 'scope'));
  });

  it('rejects bad filter values, per_page out of range and a foreign cursor', async () => {
    for (const [query, field] of [
      ['platform_status=gone', 'platform_status'],
      ['status=pending', 'status'],
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['cursor=garbage', 'cursor'],
    ]) {
      const r = await client.get(`/products?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body).toEqual(expectedApiError('invalid_parameter', field));
    }
    const fs = await client.get('/factory-stocks?per_page=1');
    const foreign = await client.get(`/products?cursor=${fs.body.meta.next_cursor}`);
    expect(foreign.status).toBe(400);
  });
});

describe('GET /products/{sku_or_platform_sku}', () => {
  it('finds a product by sku and by platform_sku, with every detail field', async () => {
    const bySku = await client.get('/products/SKU-0000007');
    expect(bySku.status).toBe(200);
    const p = bySku.body.data;
    for (const key of [
      ...listItemKeys,
      'description',
      'images',
      'site_pricing',
      'variants',
      'distribution_centre_stock',
      'factory_stock',
      'inbound_shipments',
    ]) {
      expect(p).toHaveProperty(key);
    }
    expect(p.factory_stock).toEqual({
      sku: 'SKU-0000007',
      platform_sku: p.platform_sku,
      stock_quantity: expect.any(Number),
      stock_quantity_allocated: expect.any(Number),
      stock_quantity_free:
        p.factory_stock.stock_quantity - p.factory_stock.stock_quantity_allocated,
    });
    expect(p.images[0]).toEqual({
      id: expect.any(Number),
      url: expect.any(String),
      type: expect.any(String),
      is_primary: true,
    });
    const byPlatform = await client.get(`/products/${p.platform_sku}`);
    expect(byPlatform.body.data).toEqual(p);
  });

  it('answers 404 with a JSON error for an unknown product', async () => {
    for (const key of ['SKU-9999999', '000.000.000', 'nothing']) {
      const r = await client.get(`/products/${key}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(expectedApiError('not_found'));
    }
  });
});

describe('POST /products', () => {
  const body = {
    sku: 'NEW-1',
    name: 'New Lamp',
    description: 'x'.repeat(120),
    brand: 'Northwind',
    range: 'Studio',
    images: [{ url: 'https://img.example.com/a.jpg', is_primary: true, type: 'lifestyle' }],
    site_pricing: [UK_PRICE],
    distribution_centre_stock: [{ distribution_centre_code: 'DC-LON', stock_quantity: 12 }],
    factory_stock: { stock_quantity: 40 },
  };

  it('creates a pending/inactive product with its stock and answers 201 per the spec', async () => {
    const r = await client.post('/products', body);
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      sku: 'NEW-1',
      platform_sku: expect.stringMatching(/^\d{3}\.\d{3}\.\d{3}$/),
      name: 'New Lamp',
      status: 'pending',
      platform_status: 'inactive',
      images: [
        { id: expect.any(Number), url: body.images[0]!.url, type: 'lifestyle', is_primary: true },
      ],
      site_pricing: [
        { site: { code: 'UK', name: 'United Kingdom' }, price: '19.99', price_currency: 'GBP' },
      ],
      distribution_centre_stock: expect.arrayContaining([
        { distribution_centre_code: 'DC-LON', stock_quantity: 12 },
      ]),
      factory_stock: { stock_quantity: 40 },
    });
    expect(sim.store.factoryStock('NEW-1')).toMatchObject({
      stock_quantity: 40,
      stock_quantity_free: 40,
    });
    expect(sim.store.dcStock('DC-LON', 'NEW-1')).toMatchObject({ stock_quantity: 12 });
    const detail = await client.get(`/products/${r.body.data.platform_sku}`);
    expect(detail.body.data.sku).toBe('NEW-1');
    // it is listed at the end
    const search = await client.get('/products?search=new-1');
    expect(search.body.data.map((p: { sku: string }) => p.sku)).toEqual(['NEW-1']);
  });

  it('answers 422 already_exists for a duplicate sku', async () => {
    const r = await client.post('/products', { ...body, sku: 'SKU-0000001' });
    expect(r.status).toBe(422);
    expect(r.body).toEqual(expectedApiError('already_exists', 'sku'));
  });

  it('answers 400 invalid_parameter naming the field for missing or bad fields', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...body, sku: 'A1', name: undefined }, 'name'],
      [{ ...body, sku: undefined }, 'sku'],
      [{ ...body, sku: 'A2', brand: 'No Such Brand' }, 'brand'],
      [
        { ...body, sku: 'A3', factory_stock: { stock_quantity: -1 } },
        'factory_stock.stock_quantity',
      ],
      [
        {
          ...body,
          sku: 'A4',
          distribution_centre_stock: [
            { distribution_centre_code: INACTIVE_DC_CODE, stock_quantity: 1 },
          ],
        },
        'distribution_centre_stock.0.distribution_centre_code',
      ],
      [
        { ...body, sku: 'A5', site_pricing: [{ ...body.site_pricing[0], tax_rate_id: 999 }] },
        'site_pricing.0.tax_rate_id',
      ],
    ];
    for (const [input, field] of cases) {
      const r = await client.post('/products', input);
      expect(r.status, field).toBe(400);
      expect(r.body).toEqual(expectedApiError('invalid_parameter', field));
    }
    expect(sim.store.product('A2')).toBeUndefined();
  });
});
