import type { StateDb } from '../db.ts';

/** Typed queries on api_calls: one row per call to the portal (all but login), for the budget. */
export class CallLog {
  readonly #since;
  readonly #insert;
  readonly #prune;
  readonly #byLane;
  readonly #restamp;
  readonly #shift;

  constructor(db: StateDb) {
    this.#since = db
      .prepare<[number], number>('SELECT at FROM api_calls WHERE at > ? ORDER BY at')
      .pluck();
    this.#insert = db.prepare<[number, string]>('INSERT INTO api_calls (at, lane) VALUES (?, ?)');
    this.#prune = db.prepare<[number]>('DELETE FROM api_calls WHERE at <= ?');
    this.#byLane = db.prepare<[number], { lane: string; n: number }>(
      'SELECT lane, COUNT(*) AS n FROM api_calls WHERE at > ? GROUP BY lane',
    );
    this.#restamp = db.prepare<{ now: number }>('UPDATE api_calls SET at = @now WHERE at > @now');
    this.#shift = db.prepare<{ after: number; upTo: number; ms: number; cap: number }>(
      'UPDATE api_calls SET at = MIN(at + @ms, @cap) WHERE at > @after AND at <= @upTo',
    );
  }

  /** Times of the calls made after `since` (epoch ms), oldest first. */
  timesSince(since: number): number[] {
    return this.#since.all(since);
  }

  /** Calls made after `since` per lane (lanes without calls are absent). */
  countByLaneSince(since: number): Record<string, number> {
    return Object.fromEntries(this.#byLane.all(since).map((r) => [r.lane, r.n]));
  }

  record(at: number, lane: string): void {
    this.#insert.run(at, lane);
  }

  /** Calls stamped after `now` (the clock went back) are stamped `now`; returns how many. */
  restampAhead(now: number): number {
    return this.#restamp.run({ now }).changes;
  }

  /**
   * Calls stamped in (`after`, `upTo`] are moved `ms` later, never past `cap` (the clock jumped
   * forward by `ms`: they keep the age they really have); returns how many.
   */
  shift(after: number, upTo: number, ms: number, cap: number): number {
    return this.#shift.run({ after, upTo, ms, cap }).changes;
  }

  /** Deletes the calls made at or before `before`; returns how many went. */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }
}
