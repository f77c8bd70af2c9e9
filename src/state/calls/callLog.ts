import type { StateDb } from '../db.ts';

/** Typed queries on api_calls: one row per call to the portal (all but login), for the budget. */
export class CallLog {
  readonly #since;
  readonly #insert;
  readonly #prune;
  readonly #byLane;

  constructor(db: StateDb) {
    this.#since = db
      .prepare<[number], number>('SELECT at FROM api_calls WHERE at > ? ORDER BY at')
      .pluck();
    this.#insert = db.prepare<[number, string]>('INSERT INTO api_calls (at, lane) VALUES (?, ?)');
    this.#prune = db.prepare<[number]>('DELETE FROM api_calls WHERE at <= ?');
    this.#byLane = db.prepare<[number], { lane: string; n: number }>(
      'SELECT lane, COUNT(*) AS n FROM api_calls WHERE at > ? GROUP BY lane',
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

  /** Deletes the calls made at or before `before`; returns how many went. */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }
}
