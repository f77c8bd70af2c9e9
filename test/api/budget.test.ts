import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExhaustedError, budgetStatus, HOUR_MS } from '../../src/api/index.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import { KeyValueStore } from '../../src/state/kv.ts';
import {
  DEFAULT_PASSWORD,
  type Harness,
  harness,
  MovedClock,
  rejection,
  simulator,
  TEST_SETTINGS,
} from './helpers.ts';

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  h.logs.expectNoSecrets([DEFAULT_PASSWORD]);
  await h.cleanup();
  await sim.close();
});

async function setup(options: Parameters<typeof simulator>[0] = {}) {
  sim = await simulator(options);
  h = harness(sim, 'budget');
}

/** Portal calls the simulator saw, login excluded. */
function portalCalls(): number {
  return sim.stats().requests.filter((r) => r.route !== 'POST /login').length;
}

describe('call budget', () => {
  it('never sends more than requestsPerHour calls, shared by clients on one data dir', async () => {
    await setup();
    const settings = { requestsPerHour: 5 };
    const a = h.client({ settings });
    const b = h.client({ settings });
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const client = i % 2 === 0 ? a : b;
      try {
        await client.reference.sites({ lane: 'shipments' });
        outcomes.push('ok');
      } catch (err) {
        outcomes.push((err as { code: string }).code);
      }
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'E_BUDGET', 'E_BUDGET', 'E_BUDGET']);
    expect(portalCalls()).toBe(5);

    const err = (await rejection(a.reference.sites({ lane: 'shipments' }))) as BudgetExhaustedError;
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    expect(err.retryable).toBe(true);
    const firstCall = Math.min(
      ...(h.openDb().prepare('SELECT at FROM api_calls').pluck().all() as number[]),
    );
    expect(err.retryAt).toBe(firstCall + HOUR_MS);
  });

  it('waitForBudget sleeps on the injected clock until a slot frees', async () => {
    await setup();
    let now = Date.now();
    const waits: number[] = [];
    const clock: Clock = {
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    };
    const client = h.client({ settings: { requestsPerHour: 2 }, clock });
    for (let i = 0; i < 3; i++) await client.reference.sites({ waitForBudget: true });
    expect(portalCalls()).toBe(3);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(HOUR_MS - 5000);
    expect(h.logs.events('api.budget_wait')).toHaveLength(1);
  });

  it('lanes keep their reserves: reconcile and stock cannot eat the shipments share', async () => {
    await setup();
    const client = h.client({
      settings: { requestsPerHour: 10, stockReserve: 4, reconcileReserve: 7 },
    });
    const run = async (lane: 'reconcile' | 'stock' | 'operator' | 'shipments', n: number) => {
      let ok = 0;
      for (let i = 0; i < n; i++) {
        try {
          await client.reference.sites({ lane });
          ok++;
        } catch (err) {
          expect(err).toBeInstanceOf(BudgetExhaustedError);
          expect((err as BudgetExhaustedError).lane).toBe(lane);
        }
      }
      return ok;
    };
    expect(await run('reconcile', 5)).toBe(3);
    expect(await run('stock', 5)).toBe(3);
    expect(await run('operator', 2)).toBe(0); // operator leaves the stock reserve too
    expect(await run('shipments', 6)).toBe(4);
    expect(portalCalls()).toBe(10);

    const status = budgetStatus(
      h.openDb(),
      { ...TEST_SETTINGS, requestsPerHour: 10, stockReserve: 4, reconcileReserve: 7 },
      Date.now(),
    );
    expect(status).toMatchObject({
      usedLastHour: 10,
      limit: 10,
      remainingByLane: { shipments: 0, operator: 0, stock: 0, reconcile: 0 },
    });
    expect(status.freesAt).toBeGreaterThan(Date.now());
  });

  it('budgetStatus tells what each lane has left', async () => {
    await setup();
    const settings = { requestsPerHour: 20, stockReserve: 5, reconcileReserve: 12 };
    const client = h.client({ settings });
    await client.reference.sites();
    await client.reference.taxRates();
    expect(client.budget()).toMatchObject({
      usedLastHour: 2,
      limit: 20,
      remainingByLane: { shipments: 18, operator: 13, stock: 13, reconcile: 6 },
    });
  });

  it("the portal's lower remaining count wins, and other processes obey it too", async () => {
    await setup({ requestsPerHour: 6, rateWindow: 'sliding' });
    const client = h.client({ settings: { requestsPerHour: 100 } });
    let ok = 0;
    let refusal: BudgetExhaustedError | undefined;
    for (let i = 0; i < 10 && refusal === undefined; i++) {
      try {
        await client.reference.sites({ lane: 'shipments' });
        ok++;
      } catch (err) {
        refusal = err as BudgetExhaustedError;
      }
    }
    expect(ok).toBe(6);
    expect(refusal).toBeInstanceOf(BudgetExhaustedError);
    expect(refusal!.retryAt).toBeGreaterThan(Date.now() + 30_000);
    expect(sim.stats().rateLimited).toBe(0);
    expect(portalCalls()).toBe(6);

    const other = h.client({ settings: { requestsPerHour: 100 } });
    expect(await rejection(other.reference.sites({ lane: 'shipments' }))).toBeInstanceOf(
      BudgetExhaustedError,
    );
    expect(portalCalls()).toBe(6);
  });

  it('once the portal said 0 remain, one probe goes after the probe back-off (moved clock)', async () => {
    await setup();
    const db = h.openDb();
    const clock = new MovedClock();
    const client = h.client({ db, clock, serverProbe: { baseMs: 150, maxMs: 1000 } });
    await client.reference.sites();
    new KeyValueStore(db).set('api.server_rate', {
      remaining: 0,
      limit: 3600,
      at: clock.at,
      zeroStreak: 1,
    });
    const before = portalCalls();
    expect(await rejection(client.reference.sites())).toBeInstanceOf(BudgetExhaustedError);
    clock.at += 149;
    expect(await rejection(client.reference.sites())).toBeInstanceOf(BudgetExhaustedError);
    expect(portalCalls()).toBe(before);
    clock.at += 1;
    await client.reference.sites(); // the probe: the answer says plenty remain
    await client.reference.sites();
    expect(portalCalls()).toBe(before + 2);
  });

  it('a stale count that stops the stock lane only by its reserve expires: one call learns the new one (moved clock)', async () => {
    // Issue #28: after a portal restart, the last count (low: the hour had been busy) held the
    // stock lane at 0 until a shipments poll brought a fresh one, minutes later.
    await setup();
    const db = h.openDb();
    const clock = new MovedClock();
    const settings = { ...TEST_SETTINGS, requestsPerHour: 3600, stockReserve: 300 };
    const serverProbe = { baseMs: 150, maxMs: 1000 };
    const client = h.client({ db, clock, settings, serverProbe });
    new KeyValueStore(db).set('api.server_rate', {
      remaining: 100,
      limit: 3600,
      at: clock.at,
      zeroStreak: 0,
    });
    const before = portalCalls();
    const refused = await rejection(client.reference.sites({ lane: 'stock' }));
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect((refused as BudgetExhaustedError).retryAt).toBe(clock.at + 150);
    expect(budgetStatus(db, settings, clock.at, serverProbe).remainingByLane.stock).toBe(0);
    clock.at += 299;
    expect(await rejection(client.reference.sites({ lane: 'stock' }))).toBeInstanceOf(
      BudgetExhaustedError,
    );
    expect(portalCalls()).toBe(before);
    clock.at += 1; // twice the probe's base without a fresher count: stale
    expect(budgetStatus(db, settings, clock.at, serverProbe).remainingByLane.stock).toBe(1);
    await client.reference.sites({ lane: 'stock' }); // the restarted portal counts afresh
    expect(new KeyValueStore(db).get('api.server_rate')?.remaining).toBeGreaterThan(3000);
    await client.reference.sites({ lane: 'stock' });
    expect(portalCalls()).toBe(before + 2);
    expect(budgetStatus(db, settings, clock.at, serverProbe).remainingByLane.stock).toBeGreaterThan(
      3000,
    );
  });
});
