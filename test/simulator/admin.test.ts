import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { ACTIVE_DC_CODES, SEED_BRANDS } from '../../src/simulator/seed.ts';
import { type Client, startWithClient } from './helpers.ts';

let sim: Simulator;
let client: Client;
beforeAll(async () => {
  ({ sim, client } = await startWithClient({ products: 120, requestsPerHour: 50 }));
});
afterAll(() => sim.close());

describe('/__admin', () => {
  it('dumps a summary of the state', async () => {
    const r = await client.admin('GET', '/state');
    expect(r.status).toBe(200);
    expect(r.body.products).toBe(120);
    expect(r.body.brands).toEqual(SEED_BRANDS);
    expect(r.body.shipments).toHaveLength(20);
    expect(r.body.factory_stock).toMatchObject({ total: 120, offset: 0 });
    expect(r.body.factory_stock.data).toHaveLength(120);
    expect(r.body.distribution_centre_stock.total).toBe(120 * ACTIVE_DC_CODES.length);
  });

  it('pages each kind with offset and limit', async () => {
    const factory = await client.admin('GET', '/state?kind=factory&offset=100&limit=5');
    expect(factory.body).toMatchObject({ kind: 'factory', total: 120, offset: 100, limit: 5 });
    expect(factory.body.data.map((r: { sku: string }) => r.sku)).toEqual([
      'SKU-0000101',
      'SKU-0000102',
      'SKU-0000103',
      'SKU-0000104',
      'SKU-0000105',
    ]);
    const dc = await client.admin('GET', '/state?kind=dc&offset=3&limit=1');
    expect(dc.body.data[0]).toEqual(sim.store.dcStock(ACTIVE_DC_CODES[0]!, 'SKU-0000002'));
    const products = await client.admin('GET', '/state?kind=products&limit=2');
    expect(products.body.data).toHaveLength(2);
    const shipments = await client.admin('GET', '/state?kind=shipments');
    expect(shipments.body.total).toBe(20);
    const bad = await client.admin('GET', '/state?kind=nope');
    expect(bad.status).toBe(400);
  });

  it('reports and resets stats; admin calls are neither counted nor rate-limited', async () => {
    await client.admin('POST', '/stats/reset');
    await client.get('/sites');
    await client.post('/factory-stocks/bulk-update', [{ sku: 'SKU-0000001', stock_quantity: 1 }]);
    await client.get('/nope');
    for (let i = 0; i < 60; i++) await client.admin('GET', '/stats');
    const stats = await client.admin('GET', '/stats');
    expect(stats.status).toBe(200);
    expect(stats.body.byRoute).toEqual({
      'GET /sites': 1,
      'POST /factory-stocks/bulk-update': 1,
      'GET UNMATCHED': 1,
    });
    expect(stats.body.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: 'GET /sites',
        path: '/api/v1/sites',
        status: 200,
      }),
      expect.objectContaining({ route: 'POST /factory-stocks/bulk-update', status: 200, items: 1 }),
      expect.objectContaining({ route: 'GET UNMATCHED', status: 404 }),
    ]);
    expect(stats.body).toEqual(sim.stats());
    const reset = await client.admin('POST', '/stats/reset');
    expect(reset.status).toBe(200);
    expect(sim.stats()).toEqual({ requests: [], byRoute: {}, logins: 0, rateLimited: 0 });
  });

  it('sets, shows and clears faults', async () => {
    const set = await client.admin('POST', '/faults', { next500: 1, retryAfterSeconds: 3 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ next500: 1, retryAfterSeconds: 3, error500Rate: 0 });
    expect(sim.faults.current().next500).toBe(1);
    expect((await client.get('/sites')).status).toBe(500);
    const bad = await client.admin('POST', '/faults', { next500: 'x' });
    expect(bad.status).toBe(400);
    const unknown = await client.admin('POST', '/faults', { bogus: 1 });
    expect(unknown.status).toBe(400);
    const cleared = await client.admin('POST', '/faults/clear');
    expect(cleared.body).toEqual(sim.faults.current());
    expect(cleared.body.retryAfterSeconds).toBeNull();
  });

  it('invalidates tokens', async () => {
    expect((await client.get('/sites')).status).toBe(200);
    expect((await client.admin('POST', '/invalidate-tokens')).status).toBe(200);
    expect((await client.get('/sites')).status).toBe(401);
    await client.login();
    expect((await client.get('/sites')).status).toBe(200);
  });

  it('answers 404 and 405 on the admin surface', async () => {
    expect((await client.admin('GET', '/nope')).status).toBe(404);
    const r = await client.admin('DELETE', '/stats');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});
