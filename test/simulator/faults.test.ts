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
