import { afterEach, describe, expect, it } from 'vitest';
import {
  NetworkError,
  PortalHttpError,
  RateLimitedError,
  RequestTimeoutError,
} from '../../src/api/index.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import {
  DEFAULT_PASSWORD,
  type Harness,
  harness,
  RecordingClock,
  rejection,
  seen,
  simulator,
} from './helpers.ts';

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  const tokens = h.openDb().prepare('SELECT token FROM auth_token').pluck().all() as string[];
  h.logs.expectNoSecrets([DEFAULT_PASSWORD, ...tokens]);
  await h.cleanup();
  await sim.close();
});

async function setup() {
  sim = await simulator();
  h = harness(sim, 'retry');
}

describe('429', () => {
  it('waits base, 2·base, 4·base … and logs api.rate_limited with each wait', async () => {
    await setup();
    const clock = new RecordingClock();
    const client = h.client({ clock, settings: { backoffBaseMs: 100, backoffMaxMs: 10_000 } });
    await client.reference.sites();
    sim.faults.set({ next429: 3 });
    await client.reference.sites();
    expect(clock.waits).toEqual([100, 200, 400]);
    expect(h.logs.events('api.rate_limited').map((e) => e.waitMs)).toEqual([100, 200, 400]);
    expect(seen(sim, 'GET /sites')).toBe(5);
  });

  it('the real spacing follows the schedule (timed from the simulator log)', async () => {
    await setup();
    const client = h.client({
      clock: new RecordingClock(false),
      settings: { backoffBaseMs: 40, backoffMaxMs: 1000 },
    });
    await client.reference.sites();
    sim.resetStats();
    sim.faults.set({ next429: 2 });
    await client.reference.sites();
    const at = sim.stats().requests.map((r) => r.at);
    expect(at).toHaveLength(3);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(38);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(78);
  });

  it('honours Retry-After: waits within the call up to the back-off cap, beyond it ends the call until then', async () => {
    await setup();
    const clock = new RecordingClock();
    const client = h.client({ clock, settings: { backoffBaseMs: 10, backoffMaxMs: 5000 } });
    sim.faults.set({ next429: 1, retryAfterSeconds: 2 });
    await client.reference.sites();
    expect(clock.waits).toEqual([2000]);

    // Longer than API_BACKOFF_MAX_MS: not cut short to the cap, and no worker held for it.
    const capped = new RecordingClock();
    const other = h.client({ clock: capped, settings: { backoffBaseMs: 10, backoffMaxMs: 500 } });
    sim.resetStats();
    sim.faults.set({ next429: 1, retryAfterSeconds: 30 });
    const before = Date.now();
    const err = (await rejection(other.reference.sites())) as RateLimitedError;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(capped.waits).toEqual([]);
    expect(seen(sim, 'GET /sites')).toBe(1);
    expect(err.retryAt).toBeGreaterThanOrEqual(before + 30_000);
    expect(err.retryAt).toBeLessThan(Date.now() + 31_000);
    // The job that made the call comes back then (the failure policy's retry with a time).
    expect(failurePolicy(err)).toMatchObject({ kind: 'retry', notBefore: err.retryAt });
  });

  it('after retryLimit retries throws a retryable RateLimitedError', async () => {
    await setup();
    const clock = new RecordingClock();
    const client = h.client({ clock, settings: { retryLimit: 2 } });
    await client.reference.sites();
    sim.resetStats();
    sim.faults.set({ next429: 10 });
    const err = await rejection(client.reference.sites());
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ code: 'E_RATE_LIMITED', status: 429, retryable: true });
    expect((err as RateLimitedError).retryAt).toBeGreaterThan(Date.now() - 1000);
    expect(clock.waits).toHaveLength(2);
    expect(seen(sim, 'GET /sites')).toBe(3);
  });
});

describe('5xx, resets and timeouts', () => {
  it('retries 5xx with jittered, capped back-off', async () => {
    await setup();
    const clock = new RecordingClock();
    const client = h.client({ clock, settings: { backoffBaseMs: 100, backoffMaxMs: 150 } });
    await client.reference.sites();
    sim.faults.set({ next500: 2 });
    const sites = await client.reference.sites();
    expect(sites.length).toBeGreaterThan(0);
    expect(clock.waits).toHaveLength(2);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(50);
    expect(clock.waits[0]).toBeLessThanOrEqual(100);
    expect(clock.waits[1]).toBeGreaterThanOrEqual(75);
    expect(clock.waits[1]).toBeLessThanOrEqual(150);
  });

  it('an HTML 500 that persists becomes a retryable error with a short text excerpt', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    sim.faults.set({ next500: 20 });
    const err = await rejection(client.reference.sites());
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).toMatchObject({ code: 'E_HTTP', status: 500, retryable: true });
    expect((err as PortalHttpError).excerpt).toContain('500 Internal Server Error');
    expect((err as PortalHttpError).excerpt).not.toContain('<');
    expect(Object.keys(err)).not.toContain('options');
    sim.faults.clear();
  });

  it('retries connection resets on reads', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    await client.reference.sites();
    sim.resetStats();
    sim.faults.set({ nextReset: 2 });
    expect((await client.reference.taxRates()).length).toBeGreaterThan(0);
    expect(seen(sim, 'GET /tax-rates')).toBe(3);
  });

  it('never resends a creation that went unanswered', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    await client.reference.sites();
    sim.faults.set({ nextReset: 1 });
    const err = await rejection(client.brands.create({ name: 'Once' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'E_NETWORK', retryable: true, outcomeUnknown: true });
    expect(seen(sim, 'POST /brands')).toBe(1);
  });

  it('times out slow answers and retries, then throws E_TIMEOUT', async () => {
    await setup();
    const client = h.client({
      clock: new RecordingClock(),
      settings: { requestTimeoutMs: 100, retryLimit: 1 },
    });
    await client.reference.sites();
    sim.faults.set({ slowMs: 300 });
    const err = await rejection(client.reference.sites());
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({ code: 'E_TIMEOUT', retryable: true });
    sim.faults.clear();
  });

  it('resends absolute bulk stock writes after a 5xx', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    const [row] = (await client.factoryStock.list()).items;
    sim.faults.set({ next500: 1 });
    const result = await client.factoryStock.bulkUpdate([{ sku: row!.sku, stock_quantity: 3 }]);
    expect(result.updated).toHaveLength(1);
    expect(seen(sim, 'POST /factory-stocks/bulk-update')).toBe(2);
  });
});

describe('shipment actions', () => {
  it('are not resent after an answered 5xx (the outcome is unknown to the caller)', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    const [s] = await client.shipments.readyToShip();
    sim.faults.set({ next500: 1 });
    const err = await rejection(
      client.shipments.shipped(s!.order_number, { carrier: 'DHL', tracking_number: 'T1' }),
    );
    expect(err).toMatchObject({ code: 'E_HTTP', status: 500, outcomeUnknown: true });
    expect(seen(sim, 'POST /shipments/:order_number/shipped')).toBe(1);
  });

  it('are resent when no answer came', async () => {
    await setup();
    const client = h.client({ clock: new RecordingClock() });
    const [s] = await client.shipments.readyToShip();
    sim.faults.set({ nextReset: 1 });
    const result = await client.shipments.collected(s!.order_number, {
      carrier: 'DHL',
      tracking_number: 'T2',
    });
    expect(result.alreadyDone).toBe(false);
    expect(seen(sim, 'POST /shipments/:order_number/collected')).toBe(2);
  });

  it('an "already shipped" answer to a resend is success when carrier and tracking match', async () => {
    await setup();
    const clock = new RecordingClock();
    const client = h.client({ clock, settings: { requestTimeoutMs: 150 } });
    const [s] = await client.shipments.readyToShip();
    // The first attempt times out; the portal applied it all the same (the answer was lost).
    sim.faults.set({ slowMs: 300 });
    clock.onSleep = () => {
      sim.faults.clear();
      if (sim.store.shipment(s!.order_number)?.is_shipped !== true) {
        sim.store.markShipped(
          s!.order_number,
          'Royal Mail',
          'RM-1',
          false,
          new Date().toISOString(),
        );
      }
    };
    const result = await client.shipments.shipped(s!.order_number, {
      carrier: 'Royal Mail',
      tracking_number: 'RM-1',
    });
    expect(result).toMatchObject({ alreadyDone: true, status: 409 });
    expect(sim.store.shipment(s!.order_number)).toMatchObject({ tracking_number: 'RM-1' });
    expect(seen(sim, 'GET /shipments/:order_number')).toBe(1);
  });
});
