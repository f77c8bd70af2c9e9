import { describe, expect, it } from 'vitest';
import { afterFailure, NOTIFY_GIVE_UP_MS } from '../../../src/notifications/retryPolicy.ts';
import { signBody, verifySignature } from '../../../src/notifications/signature.ts';

const policy = { baseMs: 10_000, maxMs: 3_600_000, giveUpAfterMs: NOTIFY_GIVE_UP_MS };
const t0 = 1_800_000_000_000;

describe('notification retry policy', () => {
  it('doubles the wait from the base up to the longest', () => {
    const waits = [0, 1, 2, 3, 8, 9, 20].map((attempts) => {
      const next = afterFailure({ createdAt: t0, attempts }, t0 + 1000, policy);
      return next.drop ? 'drop' : next.nextAt - (t0 + 1000);
    });
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000, 3_600_000]);
  });

  it('makes the last attempt at the 24 h mark, then drops', () => {
    const late = t0 + NOTIFY_GIVE_UP_MS - 60_000;
    expect(afterFailure({ createdAt: t0, attempts: 30 }, late, policy)).toEqual({
      drop: false,
      nextAt: t0 + NOTIFY_GIVE_UP_MS,
    });
    expect(afterFailure({ createdAt: t0, attempts: 31 }, t0 + NOTIFY_GIVE_UP_MS, policy)).toEqual({
      drop: true,
    });
  });
});

describe('notification signature', () => {
  it('is sha256=<hex> of the HMAC-SHA256 of the body', () => {
    // Known answer: HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog").
    expect(signBody('The quick brown fox jumps over the lazy dog', 'key')).toBe(
      'sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
    const body = '{"event":"file.failed"}';
    expect(verifySignature(body, signBody(body, 's'), 's')).toBe(true);
    expect(verifySignature(`${body} `, signBody(body, 's'), 's')).toBe(false);
    expect(verifySignature(body, signBody(body, 's'), 't')).toBe(false);
    expect(verifySignature(body, undefined, 's')).toBe(false);
  });
});
