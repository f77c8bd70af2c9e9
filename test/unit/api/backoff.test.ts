import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../../src/api/backoff.ts';

describe('backoffDelay', () => {
  const base = { base: 1000, max: 60_000 };

  it('doubles from the base: 1 s, 2 s, 4 s, 8 s', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, base))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('is capped at max, also for huge attempt numbers', () => {
    expect(backoffDelay(7, base)).toBe(60_000);
    expect(backoffDelay(5000, base)).toBe(60_000);
  });

  it('treats attempts below 1 as the first', () => {
    expect(backoffDelay(0, base)).toBe(1000);
    expect(backoffDelay(-3, base)).toBe(1000);
  });

  it('jitter takes at most that share off, driven by the random source', () => {
    expect(backoffDelay(3, { ...base, jitter: 0.5, random: () => 0 })).toBe(4000);
    expect(backoffDelay(3, { ...base, jitter: 0.5, random: () => 0.999999 })).toBe(2000);
    expect(backoffDelay(3, { ...base, jitter: 0.5, random: () => 0.5 })).toBe(3000);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(4, { ...base, jitter: 0.3 });
      expect(d).toBeGreaterThanOrEqual(5600);
      expect(d).toBeLessThanOrEqual(8000);
    }
  });

  it('jitter outside 0..1 is clamped', () => {
    expect(backoffDelay(1, { ...base, jitter: 5, random: () => 0.5 })).toBe(500);
    expect(backoffDelay(1, { ...base, jitter: -1, random: () => 0.5 })).toBe(1000);
  });

  it('never waits less than Retry-After; max caps only our own back-off', () => {
    expect(backoffDelay(1, { ...base, retryAfter: 5000 })).toBe(5000);
    expect(backoffDelay(4, { ...base, retryAfter: 5000 })).toBe(8000);
    expect(backoffDelay(1, { ...base, retryAfter: 3_600_000 })).toBe(3_600_000);
    expect(backoffDelay(30, { ...base, retryAfter: 1000 })).toBe(60_000);
    expect(backoffDelay(1, { ...base, retryAfter: 0 })).toBe(1000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date relative to now, past dates as 0', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
