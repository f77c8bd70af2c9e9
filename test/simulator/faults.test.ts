import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { type Client, startWithClient } from './helpers.ts';

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

async function start(options = {}): Promise<Client> {
  const { sim, client } = await startWithClient({ products: 10, ...options });
  sims.push(sim);
  return client;
}

describe('fault knobs', () => {
  it('next500 answers 500 with an HTML body, then normal', async () => {
    const client = await start();
    client.sim.faults.set({ next500: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await client.get('/sites');
      expect(r.status).toBe(500);
      expect(r.headers.get('content-type')).toMatch(/text\/html/);
      expect(() => JSON.parse(r.text)).toThrow();
      expect(r.headers.get('x-ratelimit-limit')).toBe('3600');
    }
    expect((await client.get('/sites')).status).toBe(200);
    expect(client.sim.faults.current().next500).toBe(0);
  });

  it('nextReset destroys the connection so fetch rejects, then normal', async () => {
    const client = await start();
    client.sim.faults.set({ nextReset: 1 });
    await expect(client.get('/sites')).rejects.toThrow();
    expect((await client.get('/sites')).status).toBe(200);
    const stats = client.sim.stats();
    expect(stats.requests.filter((r) => r.status === 0)).toHaveLength(1);
  });

  it('next429 answers the spec 429 body; Retry-After only when retryAfterSeconds is set', async () => {
    const client = await start();
    client.sim.faults.set({ next429: 1 });
    const first = await client.get('/sites');
    expect(first.status).toBe(429);
    expect(first.body).toEqual({ success: false, message: 'Too Many Requests' });
    expect(first.headers.get('retry-after')).toBeNull();
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    client.sim.faults.set({ next429: 1, retryAfterSeconds: 7 });
    const second = await client.get('/sites');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('7');
    expect((await client.get('/sites')).status).toBe(200);
    expect(client.sim.stats().rateLimited).toBe(2);
  });

  it('nextResetAfterApply applies a POST /products, then destroys the socket without an answer', async () => {
    const client = await start();
    const set = await client.admin('POST', '/faults', {
      nextResetAfterApply: 1,
      resetAfterApplyRoute: 'POST /products',
    });
    expect(set.status).toBe(200);
    const product = { sku: 'RESET-1', name: 'Reset Lamp', brand: 'Lumen' };
    // other routes and refusals (nothing applied) do not take it
    expect((await client.post('/brands', { name: 'After Reset' })).status).toBe(201);
    expect((await client.post('/products', { ...product, brand: 'Nope' })).status).toBe(400);
    await expect(client.post('/products', product)).rejects.toThrow();
    expect(client.sim.faults.current().nextResetAfterApply).toBe(0);
    const read = await client.get('/products/RESET-1');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ sku: 'RESET-1', status: 'pending' });
    // sending it again would create it twice: the portal refuses
    expect((await client.post('/products', product)).status).toBe(422);
    expect(client.sim.stats().requests.map((r) => `${r.route} ${r.status}`)).toEqual([
      'POST /login 200',
      'POST /brands 201',
      'POST /products 400',
      'POST /products 0',
      'GET /products/:sku 200',
      'POST /products 422',
    ]);
  });

  it('nextResetAfterApply without a route takes the next write but login, reads pass', async () => {
    const client = await start();
    client.sim.faults.set({ nextResetAfterApply: 1 });
    expect((await client.get('/sites')).status).toBe(200);
    expect((await client.login()).status).toBe(200);
    await expect(
      client.post('/factory-stocks', { sku: 'SKU-0000001', stock_quantity: 77 }),
    ).rejects.toThrow();
    expect(client.sim.store.factoryStock('SKU-0000001')?.stock_quantity).toBe(77);
    expect(
      (await client.post('/factory-stocks', { sku: 'SKU-0000001', stock_quantity: 78 })).status,
    ).toBe(200);
    expect(() => client.sim.faults.set({ nextResetAfterApply: -1 })).toThrow(RangeError);
    const bad = await client.admin('POST', '/faults', { resetAfterApplyRoute: 'products' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/resetAfterApplyRoute/);
  });

  it('slowMs delays every answer', async () => {
    const client = await start();
    client.sim.faults.set({ slowMs: 200 });
    const t0 = performance.now();
    expect((await client.get('/sites')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    client.sim.faults.clear();
    expect(client.sim.faults.current().slowMs).toBe(0);
  });

  it('error500Rate and resetRate are random but reproducible from the seed', async () => {
    const pattern = async () => {
      const client = await start({ seed: 42 });
      client.sim.faults.set({ error500Rate: 0.3, resetRate: 0.2 });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        try {
          out.push(String((await client.get('/sites')).status));
        } catch {
          out.push('reset');
        }
      }
      return out;
    };
    const a = await pattern();
    const b = await pattern();
    expect(a).toEqual(b);
    expect(a).toContain('500');
    expect(a).toContain('reset');
    expect(a).toContain('200');
  });

  it('faults do not touch the admin endpoint', async () => {
    const client = await start();
    client.sim.faults.set({ error500Rate: 1 });
    expect((await client.get('/sites')).status).toBe(500);
    const admin = await client.admin('GET', '/faults');
    expect(admin.status).toBe(200);
    expect(admin.body.error500Rate).toBe(1);
  });

  it('rejects invalid settings', () => {
    return startSimulator({ products: 1 }).then(async (sim) => {
      sims.push(sim);
      expect(() => sim.faults.set({ error500Rate: 2 })).toThrow(RangeError);
      expect(() => sim.faults.set({ next429: -1 })).toThrow(RangeError);
    });
  });
});

describe('knobs for answers the spec leaves open', () => {
  it('routeFaults answers a route with the spec error body, before the handler, `times` times', async () => {
    const client = await start();
    client.sim.faults.set({
      routeFaults: [{ route: 'POST /factory-stocks/bulk-update', status: 403, times: 2 }],
    });
    const body = [{ sku: 'SKU-0000001', stock_quantity: 5 }];
    for (let i = 0; i < 2; i++) {
      const r = await client.post('/factory-stocks/bulk-update', body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        error: { code: 'forbidden', message: 'Insufficient permissions.', field: 'request' },
      });
    }
    expect(client.sim.store.factoryStock('SKU-0000001')?.stock_quantity).not.toBe(5);
    expect((await client.get('/sites')).status).toBe(200);
    expect((await client.post('/factory-stocks/bulk-update', body)).status).toBe(200);
    expect(client.sim.faults.current().routeFaults).toEqual([]);
    // Through the admin endpoint too, checked.
    const bad = await client.admin('POST', '/faults', { routeFaults: [{ route: 'x', status: 1 }] });
    expect(bad.status).toBe(400);
  });

  it('refuseTokens refuses every token, a fresh one too; clearing it makes the last one good', async () => {
    const client = await start();
    client.sim.faults.set({ refuseTokens: true });
    expect((await client.get('/sites')).status).toBe(401);
    expect((await client.login()).status).toBe(200);
    expect((await client.get('/sites')).status).toBe(401);
    client.sim.faults.set({ refuseTokens: false });
    expect((await client.get('/sites')).status).toBe(200);
  });

  it('collectedNeedsShipped refuses collected on an order not shipped yet (409 not_shipped)', async () => {
    const client = await start();
    client.sim.faults.set({ collectedNeedsShipped: true });
    const [s] = (await client.get('/shipments/ready-to-ship')).body.data;
    const parcel = { carrier: 'DPD', tracking_number: 'T1' };
    const refused = await client.post(`/shipments/${s.order_number}/collected`, parcel);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('not_shipped');
    expect((await client.post(`/shipments/${s.order_number}/shipped`, parcel)).status).toBe(200);
    expect((await client.post(`/shipments/${s.order_number}/collected`, parcel)).status).toBe(200);
  });

  it('dcErrorsWithoutCode leaves the centre out of DC bulk error entries', async () => {
    const client = await start();
    client.sim.faults.set({ dcErrorsWithoutCode: true });
    const r = await client.post('/distribution-centre-stocks/bulk-update', [
      { distribution_centre_code: 'DC-LON', sku: 'NOPE', stock_quantity: 1 },
      { distribution_centre_code: 'DC-LON', sku: 'SKU-0000001', stock_quantity: 1 },
    ]);
    expect(r.body.errors).toEqual([
      { platform_sku: null, sku: 'NOPE', stock_quantity: null, error: 'Product not found' },
    ]);
    expect(r.body.updated[0].distribution_centre_code).toBe('DC-LON');
  });

  it('bulkRejectsInvalidItem refuses the whole body naming the item’s field', async () => {
    const client = await start();
    client.sim.faults.set({ bulkRejectsInvalidItem: true });
    const r = await client.post('/factory-stocks/bulk-update', [
      { sku: 'SKU-0000001', stock_quantity: 1 },
      { sku: 'SKU-0000002', stock_quantity: 2.5 },
    ]);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'invalid_parameter', field: '1.stock_quantity' });
    expect(client.sim.store.factoryStock('SKU-0000001')?.stock_quantity).not.toBe(1);
  });

  it('shipmentsPerPage pages shipment lists by number; stockQuantityCap clamps and echoes', async () => {
    const client = await start();
    client.sim.faults.set({ shipmentsPerPage: 3, stockQuantityCap: 10 });
    const first = await client.get('/shipments');
    expect(first.body.data).toHaveLength(3);
    expect(first.body.meta).toMatchObject({ current_page: 1, per_page: 3, total: 20 });
    expect(first.body.links.next).toContain('page=2');
    const second = await client.get(first.body.links.next);
    expect(second.body.data[0].order_number).not.toBe(first.body.data[0].order_number);
    const r = await client.post('/factory-stocks/bulk-update', [
      { sku: 'SKU-0000001', stock_quantity: 50 },
    ]);
    expect(r.body.updated[0].stock_quantity).toBe(10);
    expect(client.sim.store.factoryStock('SKU-0000001')?.stock_quantity).toBe(10);
  });
  it('cursorTtlMs refuses a cursor handed out longer ago (400 field cursor); listTotals adds meta.total', async () => {
    let now = 1_000_000;
    const client = await start({ now: () => now });
    const first = await client.get('/distribution-centre-stocks?per_page=5');
    expect(first.body.meta.total).toBeUndefined();
    client.sim.faults.set({ cursorTtlMs: 60_000, listTotals: true });
    now += 60_000;
    expect(
      (await client.get(`/distribution-centre-stocks?cursor=${first.body.meta.next_cursor}`))
        .status,
    ).toBe(200);
    now += 1;
    const refused = await client.get(
      `/distribution-centre-stocks?cursor=${first.body.meta.next_cursor}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_parameter', field: 'cursor' });
    const fresh = await client.get('/factory-stocks');
    expect(fresh.body.meta.total).toBe(10);
    expect((await client.get('/distribution-centre-stocks')).body.meta.total).toBe(30);
    expect(
      (await client.get('/factory-stocks?stock_quantity_gte=1')).body.meta.total,
    ).toBeUndefined();
  });
});
