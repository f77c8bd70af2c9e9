import { describe, expect, it } from 'vitest';
import { span, when, whenDone } from '../../../src/domain/humanTime.ts';

const now = Date.parse('2026-11-23T09:44:30Z');

describe('status formatting', () => {
  it('spans read at a glance', () => {
    expect(span(12_000)).toBe('12 s');
    expect(span(5 * 60_000)).toBe('5 min');
    expect(span(200 * 60_000)).toBe('3 h 20 min');
    expect(span(3 * 3_600_000)).toBe('3 h');
    expect(span(72 * 3_600_000)).toBe('3 days');
  });

  it('times in the operator zone, with how long ago or ahead', () => {
    expect(when(null, now, 'UTC')).toBe('never');
    expect(when(now - 3 * 60_000, now, 'UTC')).toBe('09:41 (3 min ago)');
    expect(when(now - 3 * 60_000, now, 'Europe/Berlin')).toBe('10:41 (3 min ago)');
    expect(when(now + 31 * 60_000, now, 'UTC')).toBe('10:15 (in 31 min)');
    expect(when(Date.parse('2026-11-22T18:00:00Z'), now, 'UTC')).toBe(
      '2026-11-22 18:00 (15 h 45 min ago)',
    );
  });

  it('a time something happened, dated ahead of the clock (it went back since), says so', () => {
    expect(whenDone(now - 3 * 60_000, now, 'UTC')).toBe('09:41 (3 min ago)');
    expect(whenDone(now + 31 * 60_000, now, 'UTC')).toBe(
      '10:15 (dated 31 min ahead of this clock)',
    );
    expect(whenDone(now + 86_400_000, now, 'UTC')).toMatch(/ \(dated 24 h ahead of this clock\)$/);
    expect(whenDone(null, now, 'UTC')).toBe('never');
  });
});
