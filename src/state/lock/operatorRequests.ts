import type { StateDb } from '../db.ts';

/**
 * The work a command asks of the daemon that holds the writer lock (migration 31): one row per
 * request, taken by the daemon (`taken_at`), answered (`answer`, JSON, `done_at`), or cancelled by
 * the command before it was taken (it gave up waiting, or found the daemon gone and does the work
 * itself). Times are the wall clock of the process that writes them.
 */
export interface OperatorRequestRow {
  readonly id: number;
  readonly action: string;
  /** JSON. */
  readonly args: string;
  readonly askedAt: number;
  readonly takenAt: number | null;
  readonly doneAt: number | null;
  /** JSON, once done. */
  readonly answer: string | null;
  readonly cancelledAt: number | null;
}

const COLUMNS = `id, action, args, asked_at AS askedAt, taken_at AS takenAt, done_at AS doneAt,
                 answer, cancelled_at AS cancelledAt`;

const OPEN = 'taken_at IS NULL AND cancelled_at IS NULL';

/** Answered requests are kept this long (for a look afterwards), then deleted. */
const KEEP_MS = 24 * 60 * 60_000;

export class OperatorRequests {
  private readonly db: StateDb;

  constructor(db: StateDb) {
    this.db = db;
  }

  ask(action: string, args: unknown, now: number): number {
    return Number(
      this.db
        .prepare('INSERT INTO operator_requests (action, args, asked_at) VALUES (?, ?, ?)')
        .run(action, JSON.stringify(args ?? null), now).lastInsertRowid,
    );
  }

  get(id: number): OperatorRequestRow | undefined {
    return this.db
      .prepare<[number], OperatorRequestRow>(
        `SELECT ${COLUMNS} FROM operator_requests WHERE id = ?`,
      )
      .get(id);
  }

  /**
   * The oldest request nobody took, marked taken; requests asked before `now - maxAgeMs` are
   * cancelled instead (their command is gone: it waits far less).
   */
  takeNext(now: number, maxAgeMs: number): OperatorRequestRow | undefined {
    // A plain read first: a look (every second, and on each wake) takes no write lock while
    // nothing is asked.
    if (
      this.db.prepare(`SELECT 1 FROM operator_requests WHERE ${OPEN} LIMIT 1`).get() === undefined
    )
      return undefined;
    return this.db
      .transaction(() => {
        this.db
          .prepare(
            `UPDATE operator_requests SET cancelled_at = ?
              WHERE taken_at IS NULL AND cancelled_at IS NULL AND asked_at < ?`,
          )
          .run(now, now - maxAgeMs);
        const row = this.db
          .prepare<[], OperatorRequestRow>(
            `SELECT ${COLUMNS} FROM operator_requests
              WHERE taken_at IS NULL AND cancelled_at IS NULL ORDER BY id LIMIT 1`,
          )
          .get();
        if (row === undefined) return undefined;
        this.db.prepare('UPDATE operator_requests SET taken_at = ? WHERE id = ?').run(now, row.id);
        return { ...row, takenAt: now };
      })
      .immediate();
  }

  answer(id: number, answer: unknown, now: number): void {
    this.db
      .prepare('UPDATE operator_requests SET answer = ?, done_at = ? WHERE id = ?')
      .run(JSON.stringify(answer), now, id);
    this.db
      .prepare(
        'DELETE FROM operator_requests WHERE coalesce(done_at, cancelled_at, asked_at) < ? AND id <> ?',
      )
      .run(now - KEEP_MS, id);
  }

  /** Cancels a request nobody took yet; false when it was taken (or is unknown). */
  cancel(id: number, now: number): boolean {
    return (
      this.db
        .prepare(
          'UPDATE operator_requests SET cancelled_at = ? WHERE id = ? AND taken_at IS NULL AND cancelled_at IS NULL',
        )
        .run(now, id).changes === 1
    );
  }
}
