import { describe, expect, it } from 'vitest';
import { pollSchedule } from '../../../src/daemon/pollSchedule.ts';

const at = (iso: string) => Date.parse(`${iso}Z`);

describe('whether the shipment polls keep their schedule', () => {
  it('is overdue once the third slot after the last poll has passed', () => {
    const last = at('2026-11-29T10:00:00');
    const check = (now: string) => pollSchedule('*/5 * * * *', 'UTC', last, at(now));
    expect(check('2026-11-29T10:04:00')).toMatchObject({
      dueAt: at('2026-11-29T10:05:00'),
      overdue: false,
    });
    // Due at 10:05; two intervals late at 10:15.
    expect(check('2026-11-29T10:14:59').overdue).toBe(false);
    expect(check('2026-11-29T10:15:00')).toMatchObject({ overdue: true, datedAhead: false });
  });

  it('reads seconds and the zone of the schedule', () => {
    const last = at('2026-11-29T10:00:00');
    expect(pollSchedule('*/10 * * * * *', 'Europe/London', last, last + 29_000).overdue).toBe(
      false,
    );
    expect(pollSchedule('*/10 * * * * *', 'Europe/London', last, last + 30_000).overdue).toBe(true);
  });

  it('counts a last poll dated ahead of the clock as long ago, and no poll yet as nothing late', () => {
    const now = at('2026-11-29T10:00:00');
    expect(pollSchedule('*/5 * * * *', 'UTC', now + 86_400_000, now)).toMatchObject({
      overdue: true,
      datedAhead: true,
    });
    expect(pollSchedule('*/5 * * * *', 'UTC', now + 20_000, now).overdue).toBe(false);
    expect(pollSchedule('*/5 * * * *', 'UTC', null, now)).toMatchObject({
      lastAt: null,
      overdue: false,
    });
  });
});
