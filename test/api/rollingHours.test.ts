import { afterEach, describe, expect, it } from 'vitest';
import {
  BudgetExhaustedError,
  budgetStatus,
  carryRollingHours,
  HOUR_MS,
} from '../../src/api/index.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import {
  DEFAULT_PASSWORD,
  type Harness,
  harness,
  MovedClock,
  rejection,
  simulator,
  TEST_SETTINGS,
  untilDone,
} from './helpers.ts';

const DAY = 24 * HOUR_MS;

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  h.logs.expectNoSecrets([DEFAULT_PASSWORD]);
  await h.cleanup();
  await sim.close();
});

async function setup() {
  sim = await simulator();
  h = harness(sim, 'rolling-hours');
}

const stamps = (table: 'api_calls' | 'login_attempts') =>
  h.openDb().prepare(`SELECT at FROM ${table} ORDER BY at`).pluck().all() as number[];

describe('the rolling hours after the clock went back', () => {
  it('calls of a full hour block calls for an hour of real time, not for the length of the jump', async () => {
    await setup();
    const clock = new MovedClock();
    const client = h.client({ settings: { requestsPerHour: 5 }, clock });
    for (let i = 0; i < 5; i++) await client.reference.sites({ lane: 'shipments' });
    clock.at -= DAY;
    // The budget's own decision notices the calls stamped a day ahead and re-stamps them once.
    const err = (await rejection(
      client.reference.sites({ lane: 'shipments' }),
    )) as BudgetExhaustedError;
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    expect(err.retryAt - clock.at).toBeLessThanOrEqual(HOUR_MS);
    expect(stamps('api_calls')).toEqual([clock.at, clock.at, clock.at, clock.at, clock.at]);
    // An hour later (of real time: the clock runs on from where it was set) they have left it.
    clock.at += HOUR_MS + 1;
    await client.reference.sites({ lane: 'shipments' });
    expect(
      budgetStatus(h.openDb(), { ...TEST_SETTINGS, requestsPerHour: 5 }, clock.at),
    ).toMatchObject({ usedLastHour: 1 });
  });

  it('logins at the cap hold logins for an hour of real time at most', async () => {
    await setup();
    const clock = new MovedClock();
    const client = h.client({ settings: { loginsPerHour: 2 }, clock });
    await client.reference.sites();
    sim.faults.invalidateTokens();
    await client.reference.sites();
    expect(sim.stats().logins).toBe(2);
    clock.at -= DAY;
    sim.faults.invalidateTokens();
    const action = failurePolicy(await rejection(client.reference.sites()));
    expect(action.kind).toBe('wait');
    if (action.kind === 'wait') expect(action.until - clock.at).toBeLessThanOrEqual(HOUR_MS);
    const start = clock.at;
    await untilDone(() => client.reference.sites(), clock);
    expect(clock.at - start).toBeLessThanOrEqual(HOUR_MS + 60_000);
    expect(sim.stats().logins).toBe(3);
  });
});

describe('the rolling hours carried across a jump the daemon noticed', () => {
  it('back: stamps ahead of the clock are stamped when it was noticed', async () => {
    await setup();
    const clock = new MovedClock();
    const client = h.client({ settings: { requestsPerHour: 5 }, clock });
    for (let i = 0; i < 3; i++) await client.reference.sites({ lane: 'shipments' });
    const at = clock.at - DAY;
    const moved = carryRollingHours(h.openDb(), {
      jumpMs: -DAY,
      at,
      before: clock.at,
      elapsedMs: 0,
    });
    expect(moved).toEqual({ calls: 3, logins: 1 });
    expect(stamps('api_calls')).toEqual([at, at, at]);
    expect(stamps('login_attempts')).toEqual([at]);
  });

  it('forward: the calls of the hour before keep the age they really have', async () => {
    await setup();
    const clock = new MovedClock();
    const client = h.client({ settings: { requestsPerHour: 5 }, clock });
    for (let i = 0; i < 5; i++) {
      await client.reference.sites({ lane: 'shipments' });
      clock.at += 60_000;
    }
    const before = clock.at;
    const first = stamps('api_calls')[0]!;
    // Two hours forward: without carrying, the five calls would have left the hour at once.
    clock.at += 2 * HOUR_MS;
    carryRollingHours(h.openDb(), {
      jumpMs: 2 * HOUR_MS,
      at: clock.at,
      before,
      elapsedMs: 0,
    });
    expect(stamps('api_calls')[0]).toBe(first + 2 * HOUR_MS);
    const err = (await rejection(
      client.reference.sites({ lane: 'shipments' }),
    )) as BudgetExhaustedError;
    expect(err.retryAt).toBe(first + 2 * HOUR_MS + HOUR_MS);
  });
});
