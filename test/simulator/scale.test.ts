import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/simulator/cursorPages.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { seededSku } from '../../src/simulator/seed.ts';
import { type Client, startWithClient } from './helpers.ts';

const N = 1_000_000;
let sim: Simulator;
let client: Client;
let startMs = 0;

beforeAll(async () => {
  const t0 = performance.now();
  ({ sim, client } = await startWithClient({ products: N }));
  startMs = performance.now() - t0;
}, 20_000);
afterAll(() => sim.close());

describe('a seed of 1,000,000 products', () => {
  it('starts quickly', () => {
    expect(sim.store.productCount).toBe(N);
    expect(startMs).toBeLessThan(5_000);
  });

  it('serves a first and a deep page of products, factory and DC stock quickly', async () => {
    const t0 = performance.now();
    const first = await client.get('/factory-stocks');
    expect(first.body.data).toHaveLength(2500);
    // a page at the far end, through a cursor (cursors are opaque to clients; the test knows them)
    const cursor = encodeCursor({ kind: 'products', position: N - 51, direction: 'next' });
    const tail = await client.get(`/products?cursor=${cursor}`);
    expect(tail.body.data.map((p: { sku: string }) => p.sku)).toEqual(
      Array.from({ length: 50 }, (_, i) => seededSku(N - 50 + i)),
    );
    expect(tail.body.meta.next_cursor).toBeNull();
    expect(tail.body.meta.prev_cursor).not.toBeNull();

    const lastRow = await client.get(`/products/${seededSku(N - 1)}`);
    expect(lastRow.status).toBe(200);
    const byPlatformSku = await client.get(`/products/${lastRow.body.data.platform_sku}`);
    expect(byPlatformSku.body.data.sku).toBe(seededSku(N - 1));

    // walk 5 product pages, then back
    let page = await client.get('/products');
    for (let i = 0; i < 5; i++) page = await client.get(page.body.links.next);
    expect(page.body.data[0].sku).toBe(seededSku(500));
    const back = await client.get(page.body.links.prev);
    expect(back.body.data[0].sku).toBe(seededSku(400));

    // a deep page: a filtered listing that only matches near the end of the table
    sim.store.setFactoryStock(seededSku(N - 2), 2_000_000_000);
    let deep = await client.get('/factory-stocks?stock_quantity_gte=1999999999');
    let hops = 0;
    while (deep.body.data.length === 0 && deep.body.meta.next_cursor && hops++ < 10) {
      deep = await client.get(deep.body.links.next);
    }
    expect(deep.body.data.map((r: { sku: string }) => r.sku)).toEqual([seededSku(N - 2)]);

    const dc = await client.get('/distribution-centre-stocks');
    expect(dc.body.data).toHaveLength(100);
    expect(performance.now() - t0).toBeLessThan(8_000);
  });

  it('updates in bulk at scale', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      sku: seededSku(N - 1 - i),
      stock_quantity: i,
    }));
    const r = await client.post('/factory-stocks/bulk-update', items);
    expect(r.body.updated).toHaveLength(1000);
    expect(sim.store.factoryStock(seededSku(N - 1))!.stock_quantity).toBe(0);
  });
});
