import { Agent, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { expectedApiError, startWithClient } from './helpers.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('HTTP plumbing', () => {
  it('answers malformed JSON with 400 invalid_parameter', async () => {
    const started = await startWithClient({ products: 5 });
    sim = started.sim;
    const r = await started.client.request('POST', '/factory-stocks/bulk-update', '[{"sku": ');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(expectedApiError('invalid_parameter', 'body'));
    const empty = await started.client.request('POST', '/brands', '');
    expect(empty.status).toBe(400);
  });

  it('answers unknown routes with 404 JSON and wrong methods with 405 and Allow', async () => {
    const started = await startWithClient({ products: 5 });
    sim = started.sim;
    const { client } = started;
    const unknown = await client.get('/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(expectedApiError('not_found', 'path'));
    const outside = await client.get(`${sim.origin}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual(expectedApiError('not_found'));
    const wrong = await client.request('DELETE', '/factory-stocks');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect(wrong.body).toEqual(expectedApiError('method_not_allowed', 'method'));
    const wrong2 = await client.get('/factory-stocks/bulk-update');
    expect(wrong2.status).toBe(405);
    // a trailing slash is the same route
    expect((await client.get('/sites/')).status).toBe(200);
  });

  it('routes the literal ready-to-ship before the order-number parameter', async () => {
    const started = await startWithClient({ products: 5 });
    sim = started.sim;
    const r = await started.client.get('/shipments/ready-to-ship');
    expect(Array.isArray(r.body.data)).toBe(true);
  });

  it('keeps connections alive and close() does not hang on idle keep-alive sockets', async () => {
    sim = await startSimulator({ products: 5 });
    const agent = new Agent({ keepAlive: true });
    const get = () =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = httpRequest(`${sim!.baseUrl}/sites`, { agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const first = await get();
    expect(first.status).toBe(401);
    expect(first.connection).toBe('keep-alive');
    await get();
    const t0 = performance.now();
    await sim.close();
    sim = undefined;
    expect(performance.now() - t0).toBeLessThan(2000);
    agent.destroy();
  });

  it('close() ends promptly while a slow request is pending', async () => {
    sim = await startSimulator({ products: 5 });
    sim.faults.set({ slowMs: 60_000 });
    const pending = fetch(`${sim.baseUrl}/sites`).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await sim.close();
    sim = undefined;
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('rejects invalid options', async () => {
    await expect(startSimulator({ products: -1 })).rejects.toThrow(RangeError);
    await expect(startSimulator({ requestsPerHour: 0 })).rejects.toThrow(RangeError);
    // @ts-expect-error checking a bad value at run time
    await expect(startSimulator({ rateWindow: 'weekly' })).rejects.toThrow(RangeError);
  });

  it('is deterministic: the same seed and size give the same data', async () => {
    const a = await startSimulator({ products: 50, seed: 7 });
    const b = await startSimulator({ products: 50, seed: 7 });
    const c = await startSimulator({ products: 50, seed: 8 });
    try {
      expect([...a.store.allFactoryStock()]).toEqual([...b.store.allFactoryStock()]);
      expect([...a.store.allDcStock()]).toEqual([...b.store.allDcStock()]);
      expect(a.store.product('SKU-0000009')).toEqual(b.store.product('SKU-0000009'));
      expect(a.store.allShipments().map((s) => s.items)).toEqual(
        b.store.allShipments().map((s) => s.items),
      );
      expect([...a.store.allFactoryStock()]).not.toEqual([...c.store.allFactoryStock()]);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});
