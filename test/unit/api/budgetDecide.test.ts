import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideCall,
  effectiveReserve,
  HOUR_MS,
  nextHint,
  probeDelay,
  staleHintMs,
} from '../../../src/api/budget/decide.ts';

const now = 10 * HOUR_MS;

describe('decideCall, client view', () => {
  it('allows while fewer than limit − reserve calls are in the last hour', () => {
    const calls = [now - 10, now - 20, now - 30];
    expect(decideCall({ calls, limit: 5, reserve: 0, now })).toMatchObject({
      allowed: true,
      retryAt: now,
      used: 3,
      remaining: 2,
    });
    expect(decideCall({ calls, limit: 5, reserve: 2, now })).toMatchObject({
      allowed: false,
      used: 3,
      remaining: 0,
      limitedBy: 'client',
    });
  });

  it('ignores calls that left the window (at or before now − 1 h)', () => {
    const calls = [now - HOUR_MS, now - HOUR_MS - 5, now - 1];
    expect(decideCall({ calls, limit: 2, reserve: 0, now })).toMatchObject({
      allowed: true,
      used: 1,
    });
  });

  it('retryAt is when enough old calls leave for one slot of this lane', () => {
    const calls = [now - 1000, now - 3000, now - 2000, now - 4000]; // unsorted on purpose
    // limit 4, no reserve: the oldest (now − 4000) must leave
    expect(decideCall({ calls, limit: 4, reserve: 0, now }).retryAt).toBe(now - 4000 + HOUR_MS);
    // reserve 2 (allowance 2): 3 must leave, the third oldest is now − 2000
    expect(decideCall({ calls, limit: 4, reserve: 2, now }).retryAt).toBe(now - 2000 + HOUR_MS);
  });

  it('clamps a reserve to limit − 1 so every lane can progress', () => {
    expect(effectiveReserve(10, 300)).toBe(9);
    expect(effectiveReserve(10, -1)).toBe(0);
    expect(decideCall({ calls: [], limit: 10, reserve: 300, now }).allowed).toBe(true);
    expect(decideCall({ calls: [now - 1], limit: 10, reserve: 300, now }).allowed).toBe(false);
  });

  it('never lets a lane exceed limit − reserve (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 2 * HOUR_MS }), { maxLength: 60 }),
        (limit, reserve, offsets) => {
          const calls = offsets.map((o) => now - o);
          const plan = decideCall({ calls, limit, reserve, now });
          const inWindow = calls.filter((t) => t > now - HOUR_MS).length;
          const allowance = limit - effectiveReserve(limit, reserve);
          expect(plan.allowed).toBe(inWindow < allowance);
          if (!plan.allowed) {
            // at retryAt the lane is allowed, a moment before it is not
            expect(decideCall({ calls, limit, reserve, now: plan.retryAt }).allowed).toBe(true);
            expect(decideCall({ calls, limit, reserve, now: plan.retryAt - 1 }).allowed).toBe(
              false,
            );
          }
        },
      ),
    );
  });
});

describe('decideCall, server view', () => {
  const hint = (remaining: number, at: number, zeroStreak = 0, limit?: number) => ({
    remaining,
    at,
    zeroStreak,
    limit,
  });

  it('the server wins when it says fewer calls remain, counting calls made since', () => {
    const server = hint(2, now - 100);
    expect(decideCall({ calls: [now - 50], limit: 100, reserve: 0, now, server })).toMatchObject({
      allowed: true,
      remaining: 1,
    });
    const spent = decideCall({ calls: [now - 50, now - 40], limit: 100, reserve: 0, now, server });
    expect(spent).toMatchObject({ allowed: false, limitedBy: 'server' });
    expect(spent.retryAt).toBe(now - 40 + probeDelay(0));
  });

  it('a higher server count does not loosen the client budget', () => {
    const server = hint(1000, now - 100);
    expect(decideCall({ calls: [now - 5], limit: 1, reserve: 0, now, server }).allowed).toBe(false);
  });

  it('at 0 remaining waits a probe back-off that doubles with each 0 in a row, then lets one call probe', () => {
    const probe = { baseMs: 1000, maxMs: 5000 };
    const server = hint(0, now - 500, 1);
    const first = decideCall({ calls: [], limit: 10, reserve: 0, now, server, probe });
    expect(first).toMatchObject({ allowed: false, retryAt: now + 500 });
    expect(
      decideCall({ calls: [], limit: 10, reserve: 0, now: now + 500, server, probe }).allowed,
    ).toBe(true);
    const third = decideCall({
      calls: [],
      limit: 10,
      reserve: 0,
      now,
      server: hint(0, now, 3),
      probe,
    });
    expect(third.retryAt).toBe(now + 4000);
    const capped = decideCall({
      calls: [],
      limit: 10,
      reserve: 0,
      now,
      server: hint(0, now, 9),
      probe,
    });
    expect(capped.retryAt).toBe(now + 5000);
  });

  it('after a probe went, the next waits again from that call', () => {
    const probe = { baseMs: 1000, maxMs: 5000 };
    const server = hint(0, now - 5000, 1);
    const plan = decideCall({ calls: [now - 10], limit: 10, reserve: 0, now, server, probe });
    expect(plan).toMatchObject({ allowed: false, retryAt: now - 10 + 1000 });
  });

  it('a hint older than the window is ignored', () => {
    const server = hint(0, now - HOUR_MS - 1, 5);
    expect(decideCall({ calls: [], limit: 10, reserve: 0, now, server }).allowed).toBe(true);
  });

  it('ignoreServer lets a back-off retry through', () => {
    const server = hint(0, now - 1, 1);
    expect(
      decideCall({ calls: [], limit: 10, reserve: 0, now, server, ignoreServer: true }).allowed,
    ).toBe(true);
  });

  it('lanes keep their reserve against the server count, scaled to a smaller server limit', () => {
    // client 100/h with reserve 20; server limit 10 → reserve 2 of its count
    const server = hint(3, now - 1, 0, 10);
    expect(decideCall({ calls: [], limit: 100, reserve: 20, now, server }).allowed).toBe(true);
    expect(decideCall({ calls: [now], limit: 100, reserve: 20, now, server }).allowed).toBe(false);
    expect(decideCall({ calls: [now], limit: 100, reserve: 0, now, server }).allowed).toBe(true);
  });

  it('a lane stopped only by its reserve waits for a fresher count, until the count is stale', () => {
    // The server said 4 left, the stock lane must leave 4: no call while the count is fresh.
    const probe = { baseMs: 60_000, maxMs: 900_000 };
    const stale = staleHintMs(probe);
    expect(stale).toBe(120_000);
    const server = hint(4, now, 0, 60);
    for (const later of [0, 59_000, 61_000, stale - 1]) {
      const plan = decideCall({
        calls: [],
        limit: 60,
        reserve: 4,
        now: now + later,
        server,
        probe,
      });
      expect(plan.allowed).toBe(false);
      expect(plan.limitedBy).toBe('server');
      expect(plan.remaining).toBe(0);
      expect(plan.retryAt).toBe(Math.min(now + later + probe.baseMs, now + stale));
    }
    // Nobody brought a fresher count for `stale`: one call may go to learn it (issue #28: a
    // portal restart left such a count, and the stock lane at 0, for minutes).
    for (const later of [stale, 5 * 60_000, 20 * 60_000]) {
      const plan = decideCall({
        calls: [],
        limit: 60,
        reserve: 4,
        now: now + later,
        server,
        probe,
      });
      expect(plan).toMatchObject({ allowed: true, remaining: 1 });
    }
    // That call made, and its answer not (yet) a fresher count: wait `stale` from it again.
    const called = now + 5 * 60_000;
    const after = decideCall({
      calls: [called],
      limit: 60,
      reserve: 4,
      now: called + 1000,
      server,
      probe,
    });
    expect(after).toMatchObject({ allowed: false, retryAt: called + 1000 + probe.baseMs });
    expect(
      decideCall({ calls: [called], limit: 60, reserve: 4, now: called + stale, server, probe })
        .allowed,
    ).toBe(true);
    // Never past the window, and shipments (no reserve) still go at once.
    const old = hint(4, now - HOUR_MS + 30_000, 0, 60);
    expect(decideCall({ calls: [], limit: 60, reserve: 4, now, server: old, probe }).allowed).toBe(
      true,
    );
    expect(decideCall({ calls: [], limit: 60, reserve: 0, now, server, probe }).allowed).toBe(true);
  });

  it('counts the calls of ours that left the hour since the hint as given back by the server', () => {
    // The hour was full when the portal said 4 left (the stock lane's reserve): 50 calls of ours
    // made 55 to 5 minutes before that. 20 minutes later, those older than an hour are back.
    const at = now - 20 * 60_000;
    const calls = Array.from({ length: 50 }, (_, i) => at - 55 * 60_000 + i * 60_000);
    const server = hint(4, at, 0, 60);
    const plan = decideCall({ calls, limit: 60, reserve: 4, now, server });
    const givenBack = calls.filter((t) => t <= now - HOUR_MS).length;
    expect(givenBack).toBe(16);
    expect(plan).toMatchObject({ allowed: true, remaining: 16 });
    // Right when the hint came, nothing was back yet.
    expect(decideCall({ calls, limit: 60, reserve: 4, now: at, server }).allowed).toBe(false);
  });
});

describe('nextHint', () => {
  it('counts consecutive zeros and resets on a positive count', () => {
    const a = nextHint(undefined, 0, 10, 1);
    const b = nextHint(a, 0, 10, 2);
    const c = nextHint(b, 4, 10, 3);
    expect([a.zeroStreak, b.zeroStreak, c.zeroStreak]).toEqual([1, 2, 0]);
    expect(c).toEqual({ remaining: 4, limit: 10, at: 3, zeroStreak: 0 });
  });
});
