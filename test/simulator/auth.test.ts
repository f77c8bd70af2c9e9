import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD } from '../../src/simulator/seed.ts';
import { Client, expectedApiError } from './helpers.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('POST /login', () => {
  it('answers 200 with message, status success and an opaque token', async () => {
    sim = await startSimulator({ products: 10 });
    const client = new Client(sim);
    const reply = await client.login();
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      message: expect.any(String),
      status: 'success',
      data: { token: expect.any(String) },
    });
    expect(reply.body.data.token.length).toBeGreaterThan(20);
    expect((await client.get('/sites')).status).toBe(200);
  });

  it('rejects wrong credentials with 401 invalid_credentials', async () => {
    sim = await startSimulator({ products: 10 });
    const client = new Client(sim);
    const reply = await client.login(DEFAULT_EMAIL, 'wrong');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(expectedApiError('invalid_credentials', 'email'));
    expect((await client.login('other@example.com', DEFAULT_PASSWORD)).status).toBe(401);
  });

  it('rejects a missing field with 400 invalid_parameter naming it', async () => {
    sim = await startSimulator({ products: 10 });
    const client = new Client(sim);
    const reply = await client.post('/login', { email: DEFAULT_EMAIL });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(expectedApiError('invalid_parameter', 'password'));
  });

  it('honours custom credentials', async () => {
    sim = await startSimulator({ products: 10, email: 'a@b.c', password: 'pw' });
    const client = new Client(sim);
    expect((await client.login()).status).toBe(401);
    expect((await client.login('a@b.c', 'pw')).status).toBe(200);
  });

  it('a second login invalidates the first token', async () => {
    sim = await startSimulator({ products: 10 });
    const first = new Client(sim);
    const second = new Client(sim);
    await first.login();
    expect((await first.get('/brands')).status).toBe(200);
    await second.login();
    expect(second.token).not.toBe(first.token);
    const stale = await first.get('/brands');
    expect(stale.status).toBe(401);
    expect(stale.body).toEqual(expectedApiError('unauthenticated', 'authorization'));
    expect((await second.get('/brands')).status).toBe(200);
  });

  it('the invalidateTokens knob makes every token 401 until the next login', async () => {
    sim = await startSimulator({ products: 10 });
    const client = new Client(sim);
    await client.login();
    sim.faults.invalidateTokens();
    expect((await client.get('/brands')).status).toBe(401);
    await client.login();
    expect((await client.get('/brands')).status).toBe(200);
  });

  it('limits logins to loginsPerHour, then 429 with the spec body', async () => {
    let now = Date.parse('2030-01-01T10:00:00Z');
    sim = await startSimulator({ products: 10, loginsPerHour: 3, now: () => now });
    const client = new Client(sim);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.login(DEFAULT_EMAIL, i === 1 ? 'wrong' : DEFAULT_PASSWORD);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(r.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const blocked = await client.login();
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ success: false, message: expect.any(String) });
    expect(blocked.headers.get('x-ratelimit-remaining')).toBe('0');
    // the request budget is separate: other endpoints still answer
    expect((await client.get('/sites')).status).toBe(200);
    expect(sim.stats().logins).toBe(4);
    now += 3_600_000;
    expect((await client.login()).status).toBe(200);
  });
});

describe('authentication of other endpoints', () => {
  it('answers 401 with a JSON error for a missing, malformed or unknown token', async () => {
    sim = await startSimulator({ products: 10 });
    const client = new Client(sim);
    for (const authorization of ['', 'Basic abc', 'Bearer nope']) {
      const r = await client.request('GET', '/factory-stocks', undefined, { authorization });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(r.body).toEqual(expectedApiError('unauthenticated', 'authorization'));
      expect(r.headers.get('x-ratelimit-limit')).toBe('3600');
    }
  });
});
