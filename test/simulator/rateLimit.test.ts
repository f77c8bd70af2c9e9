import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { FixedWindow, HOUR_MS, SlidingWindow } from '../../src/simulator/rateLimit.ts';
import { Client } from './helpers.ts';

describe('FixedWindow (pure)', () => {
  it('counts within the aligned hour and resets at the top of the next', () => {
    const w = new FixedWindow(2);
    const t = Date.parse('2030-01-01T10:59:00Z');
    expect(w.take(t)).toMatchObject({ allowed: true, remaining: 1 });
    expect(w.take(t + 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(w.take(t + 2)).toMatchObject({ allowed: false, remaining: 0 });
    expect(w.peek(t).resetAt).toBe(Date.parse('2030-01-01T11:00:00Z'));
    // one minute later is a new clock hour
    expect(w.take(t + 60_000)).toMatchObject({ allowed: true, remaining: 1 });
  });
});

describe('SlidingWindow (pure)', () => {
  it('allows a request once the oldest leaves the last 3600 s', () => {
    const w = new SlidingWindow(2);
    const t = 1_000_000;
    expect(w.take(t).allowed).toBe(true);
    expect(w.take(t + 10_000).allowed).toBe(true);
    expect(w.take(t + 20_000).allowed).toBe(false);
    // the aligned hour does not matter: still denied just before t + 1h
    expect(w.take(t + HOUR_MS - 1).allowed).toBe(false);
    expect(w.take(t + HOUR_MS)).toMatchObject({ allowed: true, remaining: 0 });
    expect(w.take(t + HOUR_MS + 5_000).allowed).toBe(false);
    expect(w.peek(t + HOUR_MS + 10_000)).toMatchObject({ allowed: true, remaining: 1 });
  });
});

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe.each(['fixed', 'sliding'] as const)(
  'request budget over HTTP, %s window',
  (rateWindow) => {
    it('carries x-ratelimit headers on every response and 429s after the budget', async () => {
      let now = Date.parse('2030-01-01T10:30:00Z');
      sim = await startSimulator({ products: 10, requestsPerHour: 5, rateWindow, now: () => now });
      const client = new Client(sim);
      await client.login(); // login has its own budget
      const seen: Array<[number, string | null, string | null]> = [];
      for (const path of ['/sites', '/brands', '/nope', '/tax-rates', '/products/unknown']) {
        const r = await client.get(path);
        seen.push([
          r.status,
          r.headers.get('x-ratelimit-limit'),
          r.headers.get('x-ratelimit-remaining'),
        ]);
      }
      expect(seen).toEqual([
        [200, '5', '4'],
        [200, '5', '3'],
        [404, '5', '2'],
        [200, '5', '1'],
        [404, '5', '0'],
      ]);
      const limited = await client.get('/sites');
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ success: false, message: 'Too Many Requests' });
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('retry-after')).toBeNull();
      // a 429 does not consume: the budget comes back after the window
      now += rateWindow === 'fixed' ? 30 * 60_000 : HOUR_MS;
      const after = await client.get('/sites');
      expect(after.status).toBe(200);
      expect(sim.stats().rateLimited).toBe(1);
    });

    it('counts 401 answers against the budget', async () => {
      const now = Date.parse('2030-01-01T10:30:00Z');
      sim = await startSimulator({ products: 10, requestsPerHour: 2, rateWindow, now: () => now });
      const client = new Client(sim);
      expect((await client.get('/sites')).status).toBe(401);
      expect((await client.get('/sites')).status).toBe(401);
      expect((await client.get('/sites')).status).toBe(429);
    });
  },
);

it('fixed window resets at the top of the clock hour, sliding does not', async () => {
  for (const rateWindow of ['fixed', 'sliding'] as const) {
    let now = Date.parse('2030-01-01T10:59:00Z');
    const s = await startSimulator({ products: 1, requestsPerHour: 1, rateWindow, now: () => now });
    try {
      const client = new Client(s);
      await client.login();
      expect((await client.get('/sites')).status).toBe(200);
      expect((await client.get('/sites')).status).toBe(429);
      now += 2 * 60_000; // 11:01
      expect((await client.get('/sites')).status).toBe(rateWindow === 'fixed' ? 200 : 429);
    } finally {
      await s.close();
    }
  }
});
