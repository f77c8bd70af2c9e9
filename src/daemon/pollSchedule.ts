import { cronSlots } from '../config/cronExpression.ts';
import { CLOCK_JUMP_MS } from '../domain/clockWatch.ts';

/** The ready-to-ship poll's schedule as `status` judges it. */
export interface PollSchedule {
  /** The daemon's schedule (daemon/schedulePlan.ts) and its expression, SHIPMENTS_POLL_CRON. */
  readonly schedule: 'shipments-poll';
  readonly expression: string;
  /** When the poll last ran (epoch ms); null: never. */
  readonly lastAt: number | null;
  /** The slot it is due at next (or was due at, when late); null: never ran, or no slot. */
  readonly dueAt: number | null;
  /**
   * Late by more than two intervals (the third slot after the last run has passed), or its last
   * run is dated ahead of the clock, which then went back: it counts as long ago.
   */
  readonly overdue: boolean;
  readonly datedAhead: boolean;
}

/** Whether the shipment polls keep their schedule, pure (`now`: the reader's wall clock). */
export function pollSchedule(
  expression: string,
  timezone: string,
  lastAt: number | null,
  now: number,
): PollSchedule {
  const base = { schedule: 'shipments-poll', expression, lastAt } as const;
  if (lastAt === null) return { ...base, dueAt: null, overdue: false, datedAhead: false };
  if (lastAt - now > CLOCK_JUMP_MS)
    return { ...base, dueAt: null, overdue: true, datedAhead: true };
  const slots = cronSlots(expression, timezone);
  const dueAt = slots.next(lastAt);
  const second = dueAt === null ? null : slots.next(dueAt);
  const third = second === null ? null : slots.next(second);
  return { ...base, dueAt, overdue: third !== null && third <= now, datedAhead: false };
}
