import { describe, expect, it } from 'vitest';
import { deadlineCron, deadlineOn } from '../../../src/shipments/watch.ts';

describe('shipment deadline', () => {
  it('fires daily at the local time, seconds optional', () => {
    expect(deadlineCron('17:30')).toBe('0 30 17 * * *');
    expect(deadlineCron('08:05:09')).toBe('9 5 8 * * *');
  });

  it('is the instant of that local time on the day of now, in the zone', () => {
    const now = Date.parse('2026-11-23T09:00:00Z');
    expect(new Date(deadlineOn(now, 'UTC', '17:30')).toISOString()).toBe(
      '2026-11-23T17:30:00.000Z',
    );
    expect(new Date(deadlineOn(now, 'Europe/Berlin', '17:30')).toISOString()).toBe(
      '2026-11-23T16:30:00.000Z',
    );
    // Late evening in New York is already the next day in UTC.
    const evening = Date.parse('2026-11-24T03:00:00Z');
    expect(new Date(deadlineOn(evening, 'America/New_York', '21:00:15')).toISOString()).toBe(
      '2026-11-24T02:00:15.000Z',
    );
  });
});
