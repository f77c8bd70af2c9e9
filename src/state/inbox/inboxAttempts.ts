import type { StateDb } from '../db.ts';

export interface InboxAttempt {
  readonly name: string;
  readonly attempts: number;
  readonly lastError: string;
  readonly firstAt: number;
  readonly lastAt: number;
}

interface Row {
  name: string;
  attempts: number;
  last_error: string;
  first_at: number;
  last_at: number;
}

/**
 * Failed attempts at an inbox file, by the file's identity (see migration 11): counted so that a
 * file that fails the same way every time is given up on instead of offered for ever.
 */
export class InboxAttempts {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  get(identity: string): InboxAttempt | undefined {
    const r = this.#db
      .prepare<[string], Row>(
        'SELECT name, attempts, last_error, first_at, last_at FROM inbox_attempts WHERE identity = ?',
      )
      .get(identity);
    return r === undefined
      ? undefined
      : {
          name: r.name,
          attempts: r.attempts,
          lastError: r.last_error,
          firstAt: r.first_at,
          lastAt: r.last_at,
        };
  }

  /** Counts one more failed attempt; returns the number of attempts so far. */
  record(identity: string, name: string, error: string, now: number): number {
    const r = this.#db
      .prepare<[string, string, string, number, number], { attempts: number }>(
        `INSERT INTO inbox_attempts (identity, name, attempts, last_error, first_at, last_at)
         VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT (identity) DO UPDATE SET attempts = attempts + 1,
           last_error = excluded.last_error, last_at = excluded.last_at
         RETURNING attempts`,
      )
      .get(identity, name, error, now, now);
    return r!.attempts;
  }

  /** Takes back one attempt counted ahead (record) that did not end the way it was counted as. */
  undo(identity: string): void {
    this.#db.transaction(() => {
      this.#db
        .prepare('UPDATE inbox_attempts SET attempts = attempts - 1 WHERE identity = ?')
        .run(identity);
      this.#db
        .prepare('DELETE FROM inbox_attempts WHERE identity = ? AND attempts <= 0')
        .run(identity);
    })();
  }

  /** Forgets the attempts at every file of this name (it was handled, or is gone). */
  clear(name: string): void {
    this.#db.prepare('DELETE FROM inbox_attempts WHERE name = ?').run(name);
  }
}
