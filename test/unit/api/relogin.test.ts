import { describe, expect, it } from 'vitest';
import { decideLogin, reloginGap } from '../../../src/api/auth/relogin.ts';
import { HOUR_MS } from '../../../src/api/budget/decide.ts';

const base = { limit: 10, baseMs: 30_000 };

/** The logins a storm of refused tokens makes from t = 0, re-logging in as soon as allowed. */
function storm(hours: number): number[] {
  const attempts: number[] = [];
  let state: { unproven: number; lastLoginAt: number } | undefined = {
    unproven: 0,
    lastLoginAt: 0,
  };
  for (let now = 0; now < hours * HOUR_MS; now += 1000) {
    const d = decideLogin({ ...base, attempts, mode: 'renew', state, now });
    if (!d.allowed) continue;
    attempts.push(now);
    state = { unproven: (state?.unproven ?? 0) + 1, lastLoginAt: now };
  }
  return attempts;
}

describe('re-login decisions', () => {
  it('space re-logins 60 s, 2 min, 4 min … after fresh tokens are refused, at most an hour', () => {
    expect([1, 2, 3, 4].map((n) => reloginGap(n, 30_000))).toEqual([
      60_000, 120_000, 240_000, 480_000,
    ]);
    expect(reloginGap(30, 30_000)).toBe(HOUR_MS);
  });

  it('an hour of refused tokens costs at most 6 logins, and any rolling hour of a long storm no more', () => {
    const first = storm(1);
    expect(first.map((t) => t / 60_000)).toEqual([0, 1, 3, 7, 15, 31]);
    const long = storm(6);
    for (const t of long) {
      expect(long.filter((u) => u >= t && u < t + HOUR_MS).length).toBeLessThanOrEqual(6);
    }
    for (let i = 1; i < long.length; i++)
      expect(long[i]! - long[i - 1]!).toBeGreaterThanOrEqual(30_000);
  });

  it('the first re-login after a token that served calls goes at once', () => {
    const d = decideLogin({
      ...base,
      attempts: [0],
      mode: 'renew',
      state: { unproven: 0, lastLoginAt: 0 },
      now: 1000,
    });
    expect(d).toEqual({ allowed: true });
  });

  it('spaced re-logins leave 2 logins of the cap; a first login may use them', () => {
    const attempts = Array.from({ length: 8 }, (_, i) => i * 1000);
    const state = { unproven: 1, lastLoginAt: 0 };
    expect(
      decideLogin({ ...base, attempts, mode: 'renew', state, now: 10 * 60_000 }),
    ).toMatchObject({ allowed: false, reason: 'cap', used: 8, retryAt: HOUR_MS });
    expect(decideLogin({ ...base, attempts, mode: 'first', state, now: 10 * 60_000 })).toEqual({
      allowed: true,
    });
    expect(
      decideLogin({
        ...base,
        attempts: [...attempts, 9000, 9500],
        mode: 'first',
        state,
        now: 10 * 60_000,
      }),
    ).toMatchObject({ allowed: false, reason: 'cap', used: 10 });
  });

  it('says when the spacing ends', () => {
    expect(
      decideLogin({
        ...base,
        attempts: [0, 60_000],
        mode: 'renew',
        state: { unproven: 2, lastLoginAt: 60_000 },
        now: 90_000,
      }),
    ).toEqual({ allowed: false, reason: 'spacing', retryAt: 180_000, used: 2 });
  });
});
