import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { addDays } from '../../src/simulator/seed.ts';
import { type Client, expectedApiError, startWithClient } from './helpers.ts';

const TODAY = '2030-03-15';
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(): Promise<Client> {
  const started = await startWithClient({
    products: 50,
    today: () => TODAY,
    now: () => Date.parse(`${TODAY}T10:00:00Z`),
  });
  sim = started.sim;
  return started.client;
}

interface Shipment {
  order_number: string;
  status: string;
  ship_by: string;
  is_shipped: boolean;
  is_collected: boolean;
  carrier: string | null;
  tracking_number: string | null;
  shipped_at: string | null;
  collected_at: string | null;
  items: Array<{ sku: string; quantity: number }>;
}

describe('shipments', () => {
  it('seeds due-today pending, later, overdue, shipped and collected shipments', async () => {
    const client = await start();
    const all = await client.get('/shipments');
    expect(all.status).toBe(200);
    const data = all.body.data as Shipment[];
    expect(data).toHaveLength(20);
    const count = (f: (s: Shipment) => boolean) => data.filter(f).length;
    expect(count((s) => s.ship_by === TODAY && s.status === 'pending')).toBe(12);
    expect(count((s) => s.ship_by > TODAY)).toBe(3);
    expect(count((s) => s.ship_by === addDays(TODAY, -1) && s.status === 'pending')).toBe(1);
    expect(count((s) => s.status === 'shipped')).toBe(2);
    expect(count((s) => s.status === 'collected')).toBe(2);
    for (const s of data) {
      expect(s.order_number).toMatch(/^ORD-\d+$/);
      expect(s.items.length).toBeGreaterThan(0);
      expect(s.is_shipped).toBe(s.status !== 'pending');
      expect(s.is_collected).toBe(s.status === 'collected');
      expect(s.carrier === null).toBe(s.status === 'pending');
    }
    const pending = await client.get('/shipments?status=pending');
    expect(pending.body.data).toHaveLength(16);
    const bad = await client.get('/shipments?status=lost');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(expectedApiError('invalid_parameter', 'status'));
  });

  it('ready-to-ship lists only shipments due today, not shipped, not collected', async () => {
    const client = await start();
    const r = await client.get('/shipments/ready-to-ship');
    expect(r.status).toBe(200);
    const data = r.body.data as Shipment[];
    expect(data).toHaveLength(12);
    for (const s of data)
      expect(s).toMatchObject({ ship_by: TODAY, is_shipped: false, is_collected: false });
  });

  it('walks the lifecycle: shipped, then collected; repeated actions are 409', async () => {
    const client = await start();
    const [first, second] = (await client.get('/shipments/ready-to-ship')).body.data as Shipment[];
    const one = await client.get(`/shipments/${first!.order_number}`);
    expect(one.body.data).toEqual(first);

    const shipped = await client.post(`/shipments/${first!.order_number}/shipped`, {
      carrier: 'DPD',
      tracking_number: 'TRACK-1',
    });
    expect(shipped.status).toBe(200);
    expect(shipped.body).toEqual({
      message: expect.any(String),
      data: expect.objectContaining({
        order_number: first!.order_number,
        status: 'shipped',
        is_shipped: true,
        is_collected: false,
        carrier: 'DPD',
        tracking_number: 'TRACK-1',
        shipped_at: `${TODAY}T10:00:00.000Z`,
        collected_at: null,
      }),
    });
    const ready = (await client.get('/shipments/ready-to-ship')).body.data as Shipment[];
    expect(ready.map((s) => s.order_number)).not.toContain(first!.order_number);
    expect(ready).toHaveLength(11);

    const again = await client.post(`/shipments/${first!.order_number}/shipped`, {
      carrier: 'DPD',
      tracking_number: 'TRACK-1',
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(expectedApiError('already_shipped', 'order_number'));

    const collected = await client.post(`/shipments/${first!.order_number}/collected`, {
      carrier: 'DPD',
      tracking_number: 'TRACK-1',
    });
    expect(collected.status).toBe(200);
    expect(collected.body.data).toMatchObject({ status: 'collected', is_collected: true });
    const collectedAgain = await client.post(`/shipments/${first!.order_number}/collected`, {
      carrier: 'DPD',
      tracking_number: 'TRACK-1',
    });
    expect(collectedAgain.status).toBe(409);
    expect(collectedAgain.body).toEqual(expectedApiError('already_collected', 'order_number'));

    // shipped with is_collected: true is also collected
    const both = await client.post(`/shipments/${second!.order_number}/shipped`, {
      carrier: 'UPS',
      tracking_number: 'T2',
      is_collected: true,
    });
    expect(both.body.data).toMatchObject({
      status: 'collected',
      is_shipped: true,
      is_collected: true,
    });
    expect(sim!.store.shipment(second!.order_number)).toMatchObject({
      carrier: 'UPS',
      tracking_number: 'T2',
    });
  });

  it('a pending shipment can be marked collected directly', async () => {
    const client = await start();
    const [s] = (await client.get('/shipments/ready-to-ship')).body.data as Shipment[];
    const r = await client.post(`/shipments/${s!.order_number}/collected`, {
      carrier: 'DHL',
      tracking_number: 'X',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      status: 'collected',
      is_shipped: true,
      is_collected: true,
      carrier: 'DHL',
    });
  });

  it('validates carrier, tracking_number and is_collected; unknown order is 404', async () => {
    const client = await start();
    const order = sim!.store.allShipments()[0]!.order_number;
    const cases: Array<[unknown, string]> = [
      [{ tracking_number: 'T' }, 'carrier'],
      [{ carrier: 'DPD' }, 'tracking_number'],
      [{ carrier: '', tracking_number: 'T' }, 'carrier'],
      [{ carrier: 'DPD', tracking_number: 'T', is_collected: 'yes' }, 'is_collected'],
    ];
    for (const [body, field] of cases) {
      const r = await client.post(`/shipments/${order}/shipped`, body);
      expect(r.status, field).toBe(400);
      expect(r.body).toEqual(expectedApiError('invalid_parameter', field));
    }
    expect(sim!.store.shipment(order)!.status).toBe('pending');
    for (const r of [
      await client.get('/shipments/ORD-1'),
      await client.post('/shipments/ORD-1/shipped', { carrier: 'DPD', tracking_number: 'T' }),
      await client.post('/shipments/ORD-1/collected', { carrier: 'DPD', tracking_number: 'T' }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual(expectedApiError('not_found', 'order_number'));
    }
  });

  it('store.addShipment adds a shipment the API serves', async () => {
    const client = await start();
    const added = sim!.store.addShipment({
      items: [{ sku: 'SKU-0000003', quantity: 2 }],
    });
    const ready = (await client.get('/shipments/ready-to-ship')).body.data as Shipment[];
    expect(ready.map((s) => s.order_number)).toContain(added.order_number);
  });
});
