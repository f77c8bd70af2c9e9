import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import {
  ACTIVE_DC_CODES,
  DC_CODES,
  INACTIVE_DC_CODE,
  seededSku,
} from '../../src/simulator/seed.ts';
import { Client, expectedApiError, startWithClient, walkBothWays } from './helpers.ts';

let sim: Simulator;
let client: Client;
beforeAll(async () => {
  ({ sim, client } = await startWithClient({ products: 400, maxBulkItems: 50 }));
});
afterAll(() => sim.close());

interface FactoryRow {
  sku: string;
  platform_sku: string;
  stock_quantity: number;
  stock_quantity_allocated: number;
  stock_quantity_free: number;
}

describe('GET /factory-stocks', () => {
  it('defaults to 2500 per page and serves records in the spec shape', async () => {
    const r = await client.get('/factory-stocks');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ per_page: 2500, next_cursor: null, prev_cursor: null });
    expect(r.body.data).toHaveLength(400);
    for (const row of r.body.data as FactoryRow[]) {
      expect(Object.keys(row).sort()).toEqual([
        'platform_sku',
        'sku',
        'stock_quantity',
        'stock_quantity_allocated',
        'stock_quantity_free',
      ]);
      expect(row.stock_quantity_free).toBe(row.stock_quantity - row.stock_quantity_allocated);
      expect(row.stock_quantity_allocated).toBeLessThanOrEqual(row.stock_quantity);
    }
    expect((r.body.data as FactoryRow[]).some((row) => row.stock_quantity_allocated > 0)).toBe(
      true,
    );
  });

  it('walks all pages both ways with none lost or repeated', async () => {
    const walk = await walkBothWays<FactoryRow>(
      client,
      '/factory-stocks?per_page=64',
      (r) => r.sku,
    );
    const all = Array.from({ length: 400 }, (_, i) => seededSku(i));
    expect(walk.forward).toEqual(all);
    expect(walk.backward).toEqual(all);
  });

  it('applies the four inclusive range filters across pages', async () => {
    const path =
      '/factory-stocks?per_page=7&stock_quantity_gte=100&stock_quantity_lte=600&stock_quantity_allocated_gte=1&stock_quantity_allocated_lte=200';
    const walk = await walkBothWays<FactoryRow>(client, path, (r) => r.sku);
    const expected = [...sim.store.allFactoryStock()]
      .filter(
        (r) =>
          r.stock_quantity >= 100 &&
          r.stock_quantity <= 600 &&
          r.stock_quantity_allocated >= 1 &&
          r.stock_quantity_allocated <= 200,
      )
      .map((r) => r.sku);
    expect(expected.length).toBeGreaterThan(14);
    expect(walk.forward).toEqual(expected);
    expect(walk.backward).toEqual(expected);
    // bounds are inclusive
    const exact = sim.store.factoryStock('SKU-0000003')!.stock_quantity;
    const eq = await client.get(
      `/factory-stocks?stock_quantity_gte=${exact}&stock_quantity_lte=${exact}`,
    );
    expect(eq.body.data.map((r: FactoryRow) => r.sku)).toContain('SKU-0000003');
  });

  it('rejects non-integer filters with 400 naming the parameter', async () => {
    const r = await client.get('/factory-stocks?stock_quantity_gte=abc');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(expectedApiError('invalid_parameter', 'stock_quantity_gte'));
  });
});

describe('POST /factory-stocks and bulk-update', () => {
  it('updates one SKU and answers updated/errors', async () => {
    const r = await client.post('/factory-stocks', { sku: 'SKU-0000010', stock_quantity: 77 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      updated: [
        {
          platform_sku: sim.store.product('SKU-0000010')!.platform_sku,
          sku: 'SKU-0000010',
          stock_quantity: 77,
        },
      ],
      errors: [],
    });
    expect(sim.store.factoryStock('SKU-0000010')!.stock_quantity).toBe(77);
    const unknown = await client.post('/factory-stocks', { sku: 'NOPE', stock_quantity: 1 });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({
      updated: [],
      errors: [
        { platform_sku: null, sku: 'NOPE', stock_quantity: null, error: 'Product not found' },
      ],
    });
    const bad = await client.post('/factory-stocks', { sku: 'SKU-0000010', stock_quantity: -3 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(expectedApiError('invalid_parameter', 'stock_quantity'));
  });

  it('handles each bulk item on its own: updated and errors cover every item', async () => {
    const items = [
      { sku: 'SKU-0000001', stock_quantity: 5 },
      { sku: 'MISSING-1', stock_quantity: 5 },
      { sku: 'SKU-0000002', stock_quantity: -1 },
      { sku: 'SKU-0000003', stock_quantity: 1.5 },
      { sku: 'SKU-0000004' },
      { stock_quantity: 3 },
      'not an object',
      { sku: 'SKU-0000005', stock_quantity: 0 },
    ];
    const before2 = sim.store.factoryStock('SKU-0000002')!.stock_quantity;
    const r = await client.post('/factory-stocks/bulk-update', items);
    expect(r.status).toBe(200);
    expect(r.body.updated.map((u: { sku: string }) => u.sku)).toEqual([
      'SKU-0000001',
      'SKU-0000005',
    ]);
    expect(r.body.errors).toHaveLength(6);
    expect(r.body.updated.length + r.body.errors.length).toBe(items.length);
    expect(r.body.errors[0]).toEqual({
      platform_sku: null,
      sku: 'MISSING-1',
      stock_quantity: null,
      error: 'Product not found',
    });
    expect(r.body.errors[1]).toEqual({
      platform_sku: sim.store.product('SKU-0000002')!.platform_sku,
      sku: 'SKU-0000002',
      stock_quantity: -1,
      error: expect.any(String),
    });
    expect(r.body.errors[2]).toMatchObject({ sku: 'SKU-0000003', stock_quantity: null });
    expect(sim.store.factoryStock('SKU-0000001')!.stock_quantity).toBe(5);
    expect(sim.store.factoryStock('SKU-0000002')!.stock_quantity).toBe(before2);
    const listed = await client.get('/factory-stocks?per_page=1');
    expect(listed.body.data[0]).toMatchObject({ sku: 'SKU-0000001', stock_quantity: 5 });
  });

  it('lowers the allocation when the new quantity is below it', async () => {
    sim.store.setFactoryStock('SKU-0000020', 100, 60);
    await client.post('/factory-stocks/bulk-update', [{ sku: 'SKU-0000020', stock_quantity: 40 }]);
    expect(sim.store.factoryStock('SKU-0000020')).toMatchObject({
      stock_quantity: 40,
      stock_quantity_allocated: 40,
      stock_quantity_free: 0,
    });
  });

  it('rejects a body that is not a non-empty array with 400', async () => {
    for (const body of [{ sku: 'SKU-0000001', stock_quantity: 1 }, [], 'x']) {
      const r = await client.post('/factory-stocks/bulk-update', body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(expectedApiError('invalid_parameter'));
    }
  });

  it('rejects more than maxBulkItems with too_many_items and changes nothing', async () => {
    const items = Array.from({ length: 51 }, (_, i) => ({
      sku: seededSku(i + 100),
      stock_quantity: 999_999,
    }));
    const r = await client.post('/factory-stocks/bulk-update', items);
    expect(r.status).toBe(422);
    expect(r.body).toEqual(expectedApiError('too_many_items'));
    expect(sim.store.factoryStock(seededSku(100))!.stock_quantity).not.toBe(999_999);
    const ok = await client.post('/factory-stocks/bulk-update', items.slice(0, 50));
    expect(ok.body.updated).toHaveLength(50);
    expect(sim.stats().requests.at(-1)).toMatchObject({
      route: 'POST /factory-stocks/bulk-update',
      items: 50,
    });
  });
});

describe('distribution centre stock', () => {
  it('lists 100 per page across the active centres, both ways', async () => {
    const first = await client.get('/distribution-centre-stocks');
    expect(first.body.meta.per_page).toBe(100);
    expect(first.body.data).toHaveLength(100);
    expect(Object.keys(first.body.data[0]).sort()).toEqual([
      'distribution_centre_code',
      'inbound_quantity',
      'inbound_quantity_allocated',
      'inbound_quantity_free',
      'platform_sku',
      'sku',
      'stock_quantity',
      'stock_quantity_allocated',
      'stock_quantity_free',
    ]);
    const walk = await walkBothWays<{ sku: string; distribution_centre_code: string }>(
      client,
      '/distribution-centre-stocks',
      (r) => `${r.distribution_centre_code}/${r.sku}`,
    );
    expect(walk.forward).toHaveLength(400 * ACTIVE_DC_CODES.length);
    expect(new Set(walk.forward).size).toBe(walk.forward.length);
    expect(walk.backward).toEqual(walk.forward);
    expect(walk.forward.some((k) => k.startsWith(`${INACTIVE_DC_CODE}/`))).toBe(false);
  });

  it('updates single and bulk, reporting unknown SKU and unknown or inactive centres per item', async () => {
    const single = await client.post('/distribution-centre-stocks', {
      distribution_centre_code: 'DC-MAN',
      sku: 'SKU-0000002',
      stock_quantity: 9,
    });
    expect(single.status).toBe(200);
    expect(single.body).toEqual({
      updated: [
        {
          distribution_centre_code: 'DC-MAN',
          platform_sku: sim.store.product('SKU-0000002')!.platform_sku,
          sku: 'SKU-0000002',
          stock_quantity: 9,
        },
      ],
      errors: [],
    });
    const items = [
      { distribution_centre_code: 'DC-LON', sku: 'SKU-0000001', stock_quantity: 11 },
      { distribution_centre_code: INACTIVE_DC_CODE, sku: 'SKU-0000001', stock_quantity: 11 },
      { distribution_centre_code: 'DC-XXX', sku: 'SKU-0000001', stock_quantity: 11 },
      { distribution_centre_code: 'DC-LON', sku: 'GHOST', stock_quantity: 11 },
      { distribution_centre_code: 'DC-DUB', sku: 'SKU-0000001', stock_quantity: 'ten' },
    ];
    const r = await client.post('/distribution-centre-stocks/bulk-update', items);
    expect(r.status).toBe(200);
    expect(r.body.updated).toHaveLength(1);
    expect(r.body.errors).toHaveLength(4);
    const errors = r.body.errors as Array<Record<string, unknown>>;
    expect(errors[0]).toMatchObject({
      distribution_centre_code: INACTIVE_DC_CODE,
      error: expect.stringMatching(/not active/),
    });
    expect(errors[1]).toMatchObject({
      distribution_centre_code: 'DC-XXX',
      error: expect.stringMatching(/not found/),
    });
    expect(errors[2]).toEqual({
      distribution_centre_code: 'DC-LON',
      platform_sku: null,
      sku: 'GHOST',
      stock_quantity: null,
      error: 'Product not found',
    });
    expect(errors[3]).toMatchObject({ sku: 'SKU-0000001', stock_quantity: null });
    expect(sim.store.dcStock('DC-LON', 'SKU-0000001')!.stock_quantity).toBe(11);
    expect(sim.store.dcStock(INACTIVE_DC_CODE, 'SKU-0000001')).toBeUndefined();
    expect(DC_CODES).toContain(INACTIVE_DC_CODE);
  });

  it('answers 400 for a single update missing a field and for a too-large bulk', async () => {
    const r = await client.post('/distribution-centre-stocks', {
      sku: 'SKU-0000001',
      stock_quantity: 1,
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(expectedApiError('invalid_parameter', 'distribution_centre_code'));
    const big = Array.from({ length: 51 }, () => ({
      distribution_centre_code: 'DC-LON',
      sku: 'SKU-0000001',
      stock_quantity: 1,
    }));
    expect((await client.post('/distribution-centre-stocks/bulk-update', big)).status).toBe(422);
  });
});

describe('bulkTooLargeStatus', () => {
  let other: Simulator | undefined;
  afterEach(() => other?.close());
  it.each([400, 413] as const)('can answer %i for a too-large bulk', async (status) => {
    other = await startSimulator({ products: 5, maxBulkItems: 2, bulkTooLargeStatus: status });
    const c = new Client(other);
    await c.login();
    const items = [1, 2, 3].map((i) => ({ sku: seededSku(i), stock_quantity: 1 }));
    const r = await c.post('/factory-stocks/bulk-update', items);
    expect(r.status).toBe(status);
    expect(r.body).toEqual(expectedApiError('too_many_items'));
  });
});
