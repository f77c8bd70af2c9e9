import type { StateDb } from './db.ts';

/** The retries kept in state.db, each by the column that says when it is due. */
const DUE_COLUMNS = [
  ['stock_failures', 'next_attempt_at'],
  ['shipment_confirmations', 'next_attempt_at'],
  ['notify_outbox', 'next_at'],
] as const;

/**
 * Retries due at a time still to come — stock failures, shipment confirmations, notifications —
 * move with a jump of the wall clock back by `jumpMs` (negative), noticed at `now`: what was due
 * in a minute is due in a minute still, not a minute after the clock has caught up again (never
 * before `now`). Returns how many moved.
 */
export function carryDueTimes(db: StateDb, jumpMs: number, now: number): number {
  if (jumpMs >= 0) return 0;
  const statements = DUE_COLUMNS.map(([table, column]) =>
    db.prepare<{ now: number; jumpMs: number }>(
      `UPDATE ${table} SET ${column} = MAX(@now, ${column} + @jumpMs) WHERE ${column} > @now`,
    ),
  );
  return db
    .transaction(() => statements.reduce((n, s) => n + s.run({ now, jumpMs }).changes, 0))
    .immediate();
}
