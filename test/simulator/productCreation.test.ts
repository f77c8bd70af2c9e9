import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import {
  ACTIVE_DC_CODES,
  INACTIVE_DC_CODE,
  SEED_BRANDS,
  seededSku,
} from '../../src/simulator/seed.ts';
import {
  type Client,
  expectedApiError,
  startWithClient,
  UK_PRICE,
  walkBothWays,
} from './helpers.ts';

/** POST /products refuses what a portal would refuse, keeps nothing then, and keeps what it made. */

let sim: Simulator;
let client: Client;
beforeAll(async () => {
  ({ sim, client } = await startWithClient({ products: 40 }));
});
afterAll(() => sim.close());

const price = UK_PRICE;
const base = { sku: 'CR-1', name: 'Walnut Desk', brand: SEED_BRANDS[1]!.name };

describe('POST /products refusals', () => {
  it('answers 400 invalid_parameter naming the field, and keeps nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', brand: 'Lumen' }, 'sku'],
      [{ ...base, sku: '   ' }, 'sku'],
      [{ ...base, sku: 'S'.repeat(65) }, 'sku'],
      [{ sku: 'CR-1', brand: 'Lumen' }, 'name'],
      [{ sku: 'CR-1', name: 'x' }, 'brand'],
      [{ ...base, brand: 'No Such Brand' }, 'brand'],
      [{ ...base, site_pricing: [{ ...price, site_code: 'FR' }] }, 'site_pricing.0.site_code'],
      [{ ...base, site_pricing: [price, { ...price }] }, 'site_pricing.1.site_code'],
      [{ ...base, site_pricing: [{ ...price, tax_rate_id: 99 }] }, 'site_pricing.0.tax_rate_id'],
      [{ ...base, site_pricing: [{ ...price, tax_rate_id: '1' }] }, 'site_pricing.0.tax_rate_id'],
      [{ ...base, site_pricing: [{ ...price, price: '19.999' }] }, 'site_pricing.0.price'],
      [
        { ...base, site_pricing: [{ ...price, price_currency: 'gbp' }] },
        'site_pricing.0.price_currency',
      ],
      [
        { ...base, site_pricing: [{ ...price, preorder_discount_percent: '100.01' }] },
        'site_pricing.0.preorder_discount_percent',
      ],
      [
        {
          ...base,
          distribution_centre_stock: [{ distribution_centre_code: 'DC-XYZ', stock_quantity: 1 }],
        },
        'distribution_centre_stock.0.distribution_centre_code',
      ],
      [
        {
          ...base,
          distribution_centre_stock: [
            { distribution_centre_code: INACTIVE_DC_CODE, stock_quantity: 1 },
          ],
        },
        'distribution_centre_stock.0.distribution_centre_code',
      ],
      [
        {
          ...base,
          distribution_centre_stock: [
            { distribution_centre_code: 'DC-LON', stock_quantity: 1 },
            { distribution_centre_code: 'DC-LON', stock_quantity: 2 },
          ],
        },
        'distribution_centre_stock.1.distribution_centre_code',
      ],
      [{ ...base, factory_stock: { stock_quantity: 1.5 } }, 'factory_stock.stock_quantity'],
      [{ ...base, images: [{ url: 'not a url' }] }, 'images.0.url'],
    ];
    const before = sim.store.productCount;
    for (const [body, field] of cases) {
      const r = await client.post('/products', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toEqual(expectedApiError('invalid_parameter', field));
    }
    expect(sim.store.productCount).toBe(before);
    expect((await client.get('/products/CR-1')).status).toBe(404);
    const notJson = await client.post('/products', '{"sku":');
    expect(notJson.body).toEqual(expectedApiError('invalid_parameter', 'body'));
  });

  it('refuses a second create of a SKU with 422 already_exists, the first product unchanged', async () => {
    expect((await client.post('/products', base)).status).toBe(201);
    const again = await client.post('/products', { ...base, name: 'Another Desk' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(expectedApiError('already_exists', 'sku'));
    expect(again.body.error.message).toContain('CR-1');
    expect(sim.store.product('CR-1')?.name).toBe('Walnut Desk');
    const seeded = await client.post('/products', { ...base, sku: seededSku(0) });
    expect(seeded.status).toBe(422);
    // surrounding spaces are trimmed; the case of a SKU counts
    expect((await client.post('/products', { ...base, sku: ' CR-1 ' })).status).toBe(422);
    expect((await client.post('/products', { ...base, sku: 'cr-1' })).status).toBe(201);
    const search = await client.get('/products?search=cr-1');
    expect(search.body.data.map((p: { sku: string }) => p.sku)).toEqual(['CR-1', 'cr-1']);
  });
});

describe('brands for new products', () => {
  it('takes a brand by name in any case and shows the brand as it is spelt', async () => {
    const r = await client.post('/products', { ...base, sku: 'CR-CASE', brand: 'oak & IRON' });
    expect(r.status).toBe(201);
    expect((await client.get('/products/CR-CASE')).body.data.brand).toBe('Oak & Iron');
  });

  it('uses a brand created through POST /brands at once; names stay unique, trimmed, in any case', async () => {
    const created = await client.post('/brands', { name: '  Fjord Living ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Fjord Living', description: null, image: null });
    const dup = await client.post('/brands', { name: 'FJORD LIVING' });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual(expectedApiError('already_exists', 'name'));
    const list = await client.get('/brands');
    expect(list.body.data.filter((b: { name: string }) => b.name === 'Fjord Living')).toHaveLength(
      1,
    );
    const p = await client.post('/products', { ...base, sku: 'CR-FJORD', brand: 'Fjord Living' });
    expect(p.status).toBe(201);
    await client.request('DELETE', `/brands/${created.body.brand_id}`);
    const gone = await client.post('/products', {
      ...base,
      sku: 'CR-FJORD-2',
      brand: 'Fjord Living',
    });
    expect(gone.body).toEqual(expectedApiError('invalid_parameter', 'brand'));
    expect((await client.get('/products/CR-FJORD')).body.data.brand).toBe('Fjord Living');
  });
});

describe('the stock given at creation', () => {
  it('is read through the factory and DC stock lists like any product’s', async () => {
    const r = await client.post('/products', {
      ...base,
      sku: 'CR-STOCK',
      distribution_centre_stock: [
        { distribution_centre_code: 'DC-DUB', stock_quantity: 7 },
        { distribution_centre_code: 'DC-LON', stock_quantity: 12 },
      ],
      factory_stock: { stock_quantity: 40 },
    });
    expect(r.status).toBe(201);
    const factory = await walkBothWays<{ sku: string; stock_quantity: number }>(
      client,
      '/factory-stocks?per_page=17',
      (row) => `${row.sku}:${row.stock_quantity}`,
    );
    expect(factory.forward).toContain('CR-STOCK:40');
    const ranged = await client.get('/factory-stocks?stock_quantity_gte=40&stock_quantity_lte=40');
    expect(ranged.body.data).toContainEqual({
      sku: 'CR-STOCK',
      platform_sku: r.body.data.platform_sku,
      stock_quantity: 40,
      stock_quantity_allocated: 0,
      stock_quantity_free: 40,
    });
    const dc = await walkBothWays<{
      sku: string;
      distribution_centre_code: string;
      stock_quantity: number;
    }>(
      client,
      '/distribution-centre-stocks',
      (row) => `${row.distribution_centre_code}:${row.sku}:${row.stock_quantity}`,
    );
    const mine = dc.forward.filter((k) => k.includes(':CR-STOCK:'));
    expect(mine).toEqual(
      ACTIVE_DC_CODES.map((code) => `${code}:CR-STOCK:${{ 'DC-LON': 12, 'DC-DUB': 7 }[code] ?? 0}`),
    );
    expect(dc.backward).toEqual(dc.forward);
    const scoped = await client.get(
      '/products?search=cr-stock&scope=factory_stock,distribution_centre_stock',
    );
    expect(scoped.body.data[0].factory_stock.stock_quantity).toBe(40);
    expect(scoped.body.data[0].distribution_centre_stock).toEqual(
      ACTIVE_DC_CODES.map((code) => ({
        distribution_centre_code: code,
        stock_quantity: { 'DC-LON': 12, 'DC-DUB': 7 }[code] ?? 0,
      })),
    );
  });
});
