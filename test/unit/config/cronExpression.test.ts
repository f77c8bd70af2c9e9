import { describe, expect, it } from 'vitest';
import { cronProblem, cronSlots } from '../../../src/config/cronExpression.ts';

const utc = (iso: string) => Date.parse(`${iso}Z`);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString().slice(0, 19));

/** The first `n` slots after `from`. */
function slots(
  expression: string,
  timezone: string,
  from: number,
  n: number,
): Array<string | null> {
  const s = cronSlots(expression, timezone);
  const out: Array<string | null> = [];
  let t: number | null = from;
  for (let i = 0; i < n && t !== null; i++) {
    t = s.next(t);
    out.push(iso(t));
  }
  return out;
}

describe('the next slot after a time, in a zone', () => {
  it('is strictly after it, to the second, with 5 fields or 6 with seconds first', () => {
    expect(slots('*/10 * * * * *', 'UTC', utc('2026-01-01T00:00:10'), 2)).toEqual([
      '2026-01-01T00:00:20',
      '2026-01-01T00:00:30',
    ]);
    expect(slots('*/5 * * * *', 'UTC', utc('2026-01-01T00:00:10') + 500, 1)).toEqual([
      '2026-01-01T00:05:00',
    ]);
  });

  it('reads the time of day in SYNC_TIMEZONE', () => {
    // 03:17 in London in summer is 02:17 UTC; in New York in winter 08:17 UTC.
    expect(slots('17 3 * * *', 'Europe/London', utc('2026-07-01T12:00:00'), 1)).toEqual([
      '2026-07-02T02:17:00',
    ]);
    expect(slots('17 3 * * *', 'America/New_York', utc('2026-01-01T12:00:00'), 1)).toEqual([
      '2026-01-02T08:17:00',
    ]);
  });

  it('keeps every 15 minutes through the hour that repeats when summer time ends', () => {
    // London, 2026-10-25: 01:00–02:00 local happens twice (00:00–01:00 and 01:00–02:00 UTC).
    expect(slots('*/15 * * * *', 'Europe/London', utc('2026-10-25T00:30:00'), 4)).toEqual([
      '2026-10-25T00:45:00',
      '2026-10-25T01:00:00',
      '2026-10-25T01:15:00',
      '2026-10-25T01:30:00',
    ]);
    // A fixed time of day in that hour runs once.
    expect(slots('30 1 * * *', 'Europe/London', utc('2026-10-24T12:00:00'), 2)).toEqual([
      '2026-10-25T00:30:00',
      '2026-10-26T01:30:00',
    ]);
  });

  it('runs a time of day the change to summer time skips at the end of the gap', () => {
    // London, 2026-03-29: 01:00 local becomes 02:00; 01:30 does not exist that day.
    expect(slots('30 1 * * *', 'Europe/London', utc('2026-03-28T12:00:00'), 2)).toEqual([
      '2026-03-29T01:00:00',
      '2026-03-30T00:30:00',
    ]);
  });

  it('wants day of month and day of week both, when both are given', () => {
    // The 1st of a month that is a Monday: June 2026, then February 2027.
    expect(slots('0 9 1 * 1', 'UTC', utc('2026-01-01T00:00:00'), 2)).toEqual([
      '2026-06-01T09:00:00',
      '2027-02-01T09:00:00',
    ]);
  });

  it('takes day and month names, short or full', () => {
    const monday = slots('0 9 * * mon', 'UTC', utc('2026-01-01T00:00:00'), 1);
    expect(monday).toEqual(['2026-01-05T09:00:00']);
    expect(slots('0 9 * * monday', 'UTC', utc('2026-01-01T00:00:00'), 1)).toEqual(monday);
    expect(slots('0 0 1 february *', 'UTC', utc('2026-01-01T00:00:00'), 1)).toEqual([
      '2026-02-01T00:00:00',
    ]);
  });
});

describe('what is wrong with an expression', () => {
  it('is nothing for the expressions the settings use', () => {
    for (const e of ['*/5 * * * *', '17 3 * * *', '* * * * *', '0 * * * *', '*/1 * * * * *'])
      expect(cronProblem(e)).toBeUndefined();
  });

  it('names a value out of range, a wrong number of fields, and a day that never comes', () => {
    expect(cronProblem('61 * * * *')).toMatch(/minute/);
    expect(cronProblem('* * * *')).toMatch(/parts/);
    expect(cronProblem('0 0 * * * * *')).toMatch(/parts/);
    expect(cronProblem('0 0 30 2 *')).toBe('it never runs');
    expect(cronProblem('every minute')).toBeDefined();
  });
});
