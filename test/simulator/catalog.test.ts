import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import {
  DISTRIBUTION_CENTRES,
  INACTIVE_DC_CODE,
  SEED_BRANDS,
  SITE_CODES,
  TAX_RATES,
} from '../../src/simulator/seed.ts';
import { type Client, expectedApiError, startWithClient } from './helpers.ts';

let sim: Simulator;
let client: Client;
beforeAll(async () => {
  ({ sim, client } = await startWithClient({ products: 20 }));
});
afterAll(() => sim.close());

describe('brands', () => {
  it('lists, creates, updates and deletes brands', async () => {
    const list = await client.get('/brands');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(SEED_BRANDS);

    const created = await client.post('/brands', { name: 'Acme', description: 'Things' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: expect.any(String),
      brand_id: SEED_BRANDS.length + 1,
      name: 'Acme',
      description: 'Things',
      image: null,
    });
    const id = created.body.brand_id as number;

    const updated = await client.request('PUT', `/brands/${id}`, { name: 'Acme Ltd' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      message: expect.any(String),
      data: { id, name: 'Acme Ltd', description: 'Things', image: null },
    });

    const deleted = await client.request('DELETE', `/brands/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: expect.any(String) });
    expect((await client.get('/brands')).body.data).toHaveLength(SEED_BRANDS.length);
  });

  it('validates names, refuses duplicates and answers 404 for unknown ids', async () => {
    const missing = await client.post('/brands', { description: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(expectedApiError('invalid_parameter', 'name'));
    const dup = await client.post('/brands', { name: SEED_BRANDS[0]!.name.toUpperCase() });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual(expectedApiError('already_exists', 'name'));
    for (const r of [
      await client.request('PUT', '/brands/9999', { name: 'X' }),
      await client.request('DELETE', '/brands/9999'),
      await client.request('DELETE', '/brands/abc'),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual(expectedApiError('not_found', 'id'));
    }
  });
});

describe('reference data', () => {
  it('serves sites', async () => {
    const r = await client.get('/sites');
    expect(r.status).toBe(200);
    expect(r.body.data.map((s: { code: string }) => s.code)).toEqual(SITE_CODES);
    for (const s of r.body.data) expect(Object.keys(s).sort()).toEqual(['code', 'name']);
  });

  it('serves distribution centres with one inactive', async () => {
    const r = await client.get('/distribution-centres');
    expect(r.body.data).toEqual(DISTRIBUTION_CENTRES);
    const inactive = r.body.data.filter((d: { is_active: boolean }) => !d.is_active);
    expect(inactive.map((d: { code: string }) => d.code)).toEqual([INACTIVE_DC_CODE]);
    for (const d of r.body.data) {
      expect(Object.keys(d).sort()).toEqual([
        'code',
        'cutoff_time',
        'is_active',
        'is_fulfillment_centre',
        'is_supplier_dc',
        'is_warehouse',
        'leadtime_days',
        'name',
        'site',
      ]);
      expect(d.cutoff_time).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    }
  });

  it('serves tax rates', async () => {
    const r = await client.get('/tax-rates');
    expect(r.body.data).toEqual(TAX_RATES);
    for (const t of r.body.data) {
      expect(t.rate).toMatch(/^\d+\.\d{2}$/);
      expect(t.country_code).toMatch(/^[A-Z]{2}$/);
    }
    expect(r.body.data.some((t: { state_code: string | null }) => t.state_code !== null)).toBe(
      true,
    );
  });
});
