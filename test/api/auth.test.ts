import { afterEach, describe, expect, it } from 'vitest';
import {
  ClientClosedError,
  clearLoginBlock,
  LoginBlockedError,
  LoginRejectedError,
  TokenRefusedError,
} from '../../src/api/index.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import {
  DEFAULT_PASSWORD,
  type Harness,
  harness,
  MovedClock,
  rejection,
  seen,
  simulator,
  untilDone,
} from './helpers.ts';

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  const tokens = h.openDb().prepare('SELECT token FROM auth_token').pluck().all() as string[];
  h.logs.expectNoSecrets([DEFAULT_PASSWORD, 'wrong-password', ...tokens]);
  await h.cleanup();
  await sim.close();
});

async function setup(options: Parameters<typeof simulator>[0] = {}) {
  sim = await simulator(options);
  h = harness(sim, 'auth');
}

/** A clock that records waits and refuses to wait (a test must not sleep for an hour). */
function refusingClock(waits: number[]): Clock {
  return {
    now: () => Date.now(),
    sleep: async (ms) => {
      waits.push(ms);
      throw new Error('test clock: no waiting');
    },
  };
}

describe('token lifecycle', () => {
  it('the token is stored and reused by a new client on the same data dir', async () => {
    await setup();
    await h.client().reference.sites();
    expect(sim.stats().logins).toBe(1);
    h.client().close();

    const restarted = h.client();
    await restarted.reference.sites();
    await restarted.reference.taxRates();
    expect(sim.stats().logins).toBe(1);
    expect(h.logs.events('api.login')).toHaveLength(1);
  });

  it('20 calls meeting a 401 at once cause exactly one login', async () => {
    await setup();
    const client = h.client();
    await client.reference.sites();
    sim.faults.invalidateTokens();
    sim.resetStats();

    const results = await Promise.all(Array.from({ length: 20 }, () => client.reference.sites()));
    expect(results.every((r) => r.length > 0)).toBe(true);
    expect(sim.stats().logins).toBe(1);
    // a call that met the 401 went again once, with the new token (on a loaded machine a call
    // sent after the login took the new token at once: 20 more requests at most, never more)
    const requests = seen(sim, 'GET /sites');
    expect(requests).toBeGreaterThan(20);
    expect(requests).toBeLessThanOrEqual(40);
    // the token had served good calls: someone else logged in
    expect(h.logs.events('api.token_invalidated')).toHaveLength(1);
  });

  it('a process whose token went stale adopts the token another process stored', async () => {
    await setup();
    const a = h.client();
    const b = h.client();
    await a.reference.sites();
    await b.reference.sites();
    expect(sim.stats().logins).toBe(1);
    sim.faults.invalidateTokens();
    await a.reference.sites(); // a logs in again and stores the new token
    await b.reference.sites(); // b meets a 401 with the old token and takes the stored one
    expect(sim.stats().logins).toBe(2);
  });

  it('the login cap holds across five restarts while another client keeps logging in', async () => {
    await setup({ loginsPerHour: 100 });
    const waits: number[] = [];
    const settings = { loginsPerHour: 3 };
    const outcomes: string[] = [];
    const refusals: TokenRefusedError[] = [];
    for (let restart = 0; restart < 5; restart++) {
      const client = h.client({ settings, clock: refusingClock(waits) });
      for (let i = 0; i < 3; i++) {
        sim.faults.invalidateTokens();
        try {
          await client.reference.sites();
          outcomes.push('ok');
        } catch (err) {
          outcomes.push((err as Error).name);
          if (err instanceof TokenRefusedError) refusals.push(err);
        }
      }
      client.close();
    }
    expect(sim.stats().logins).toBe(3);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'TokenRefusedError')).toHaveLength(12);
    // Nothing sleeps in a call: each comes back to try with the token held within a minute.
    expect(waits).toEqual([]);
    for (const r of refusals) {
      expect(failurePolicy(r)).toMatchObject({ kind: 'wait' });
      expect(r.retryAt).toBeLessThanOrEqual(Date.now() + 60_000);
    }
    const blocked = h.logs.events('api.login_blocked');
    expect(blocked.length).toBeGreaterThanOrEqual(4);
    expect(blocked.every((b) => b.reason === 'cap')).toBe(true);
    expect(Math.min(...blocked.map((b) => Number(b.waitMs)))).toBeGreaterThan(55 * 60_000);
    const rows = h.openDb().prepare('SELECT COUNT(*) FROM login_attempts').pluck().get();
    expect(rows).toBe(3);
  });

  it('at the cap a call is retried with the token held every minute, and logs in once the hour has passed (moved clock)', async () => {
    await setup();
    const clock = new MovedClock();
    const client = h.client({ settings: { loginsPerHour: 1 }, clock });
    await client.reference.sites();
    sim.faults.invalidateTokens();
    const start = clock.at;
    const gaps = await untilDone(() => client.reference.sites(), clock);
    expect(sim.stats().logins).toBe(2);
    expect(clock.at - start).toBeGreaterThanOrEqual(3_600_000 - 1000);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(60_000);
    expect(gaps.length).toBeGreaterThanOrEqual(59);
    // One line for the decision, not one per retry.
    expect(h.logs.events('api.login_blocked')).toHaveLength(1);
  });

  it('an hour of every token refused costs at most 6 logins; work resumes within a minute of the portal accepting tokens (moved clock)', async () => {
    const clock = new MovedClock();
    sim = await simulator({ now: () => clock.at });
    h = harness(sim, 'auth-storm');
    let client = h.client({ clock });
    await client.reference.sites();
    sim.faults.set({ refuseTokens: true });
    const start = clock.at;
    const loginTimes: number[] = [];
    const seenLogins = () => sim.stats().logins;
    let logins = seenLogins();
    const gaps: number[] = [];
    for (let round = 0; clock.at - start < 3_600_000; round++) {
      // A restart half-way: the spacing is in state.db, not in the process.
      if (round === 20) {
        client.close();
        client = h.client({ clock });
      }
      const err = await rejection(client.reference.sites());
      if (seenLogins() > logins) {
        loginTimes.push(clock.at - start);
        logins = seenLogins();
      }
      const action = failurePolicy(err);
      expect(action.kind).toBe('wait');
      if (action.kind !== 'wait') return;
      gaps.push(action.until - clock.at);
      clock.at = action.until;
    }
    expect(loginTimes.length).toBeLessThanOrEqual(6);
    // At once (the token had served calls), then 60 s, 2 min, 4 min … apart: never closer than 30 s.
    expect(loginTimes[0]).toBe(0);
    for (let i = 1; i < loginTimes.length; i++) {
      const gap = loginTimes[i]! - loginTimes[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(30_000);
      if (i > 1) expect(gap).toBeGreaterThanOrEqual(2 * (loginTimes[i - 1]! - loginTimes[i - 2]!));
    }
    // Work came back with the token held at least every minute.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(60_000);
    // Two logins of the cap are left for later.
    const attempts = h
      .openDb()
      .prepare('SELECT COUNT(*) FROM login_attempts WHERE at > ?')
      .pluck()
      .get(clock.at - 3_600_000) as number;
    expect(attempts).toBeLessThanOrEqual(10 - 2);
    expect(h.logs.events('api.token_invalidated').length).toBeGreaterThanOrEqual(loginTimes.length);
    expect(h.logs.events('api.login_blocked').every((b) => b.reason === 'spacing')).toBe(true);

    // The portal accepts tokens again: the next retry (at most a minute later) succeeds.
    sim.faults.set({ refuseTokens: false });
    const recovered = clock.at;
    const before = seenLogins();
    await untilDone(() => client.reference.sites(), clock);
    expect(clock.at - recovered).toBeLessThanOrEqual(60_000);
    expect(seenLogins()).toBe(before); // the token held was good again: no login needed
  });
});

describe('wrong credentials', () => {
  it('stop logins with a clear error, across restarts, until the password changes', async () => {
    await setup();
    const bad = h.client({ password: 'wrong-password' });
    const first = await rejection(bad.reference.sites());
    expect(first).toBeInstanceOf(LoginRejectedError);
    expect(first).toMatchObject({ code: 'E_LOGIN_REJECTED', status: 401, retryable: false });
    expect(first.message).toMatch(/refused the login/);
    expect(first.message).not.toContain('wrong-password');

    const second = await rejection(bad.reference.taxRates());
    expect(second).toBeInstanceOf(LoginBlockedError);
    expect(second).toMatchObject({ code: 'E_LOGIN_BLOCKED', retryable: false });

    for (let i = 0; i < 3; i++) {
      const restarted = h.client({ password: 'wrong-password' });
      expect(await rejection(restarted.reference.sites())).toBeInstanceOf(LoginBlockedError);
    }
    expect(sim.stats().logins).toBe(1);
    expect(h.logs.events('api.login_rejected')).toHaveLength(1);

    // fixed configuration: a different hash lifts the block
    const fixed = h.client();
    await fixed.reference.sites();
    expect(sim.stats().logins).toBe(2);
  });

  it('an operator can clear the block', async () => {
    await setup();
    const db = h.openDb();
    const bad = h.client({ password: 'wrong-password', db });
    await rejection(bad.reference.sites());
    await rejection(bad.reference.sites());
    expect(sim.stats().logins).toBe(1);
    expect(clearLoginBlock(db)).toBe(true);
    expect(await rejection(bad.reference.sites())).toBeInstanceOf(LoginRejectedError);
    expect(sim.stats().logins).toBe(2);
  });
});

describe('close', () => {
  it('a closed client refuses further calls', async () => {
    await setup();
    const client = h.client();
    await client.reference.sites();
    client.close();
    const err = await rejection(client.reference.sites());
    expect(err).toBeInstanceOf(ClientClosedError);
  });
});
