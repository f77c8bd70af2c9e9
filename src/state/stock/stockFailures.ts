import { nextAttemptAt, type RetrySettings } from '../../domain/retrySchedule.ts';
import { keyString, type StockKey, type StockKind, type StockRow } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';
import { MARK_PENDING_SQL } from './pendingStock.ts';
import type { StockFailureRow } from './stockTables.ts';

export interface StockFailure extends StockRow {
  readonly key: string;
  readonly error: string;
  readonly notFound: boolean;
  readonly attempts: number;
  readonly firstFailedAt: number;
  readonly lastFailedAt: number;
  readonly nextAttemptAt: number;
}

const toFailure = (r: StockFailureRow): StockFailure => ({
  key: keyString(r),
  kind: r.kind,
  dc: r.dc,
  sku: r.sku,
  quantity: r.quantity,
  error: r.error,
  notFound: r.not_found === 1,
  attempts: r.attempts,
  firstFailedAt: r.first_failed_at,
  lastFailedAt: r.last_failed_at,
  nextAttemptAt: r.next_attempt_at,
});

/**
 * Items the portal rejected, with their error, attempts and next attempt. A failure lives until
 * the item lands or a newer desired quantity replaces it; nothing here is ever dropped silently.
 */
export class StockFailures {
  readonly #db: StateDb;
  readonly #get;
  readonly #upsert;
  readonly #delete;
  readonly #list;
  readonly #count;
  readonly #dueKeys;
  readonly #markPending;
  readonly #retryOne;
  readonly #retryAll;

  constructor(db: StateDb) {
    this.#db = db;
    this.#get = db.prepare<[StockKind, string, string], StockFailureRow>(
      'SELECT * FROM stock_failures WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#upsert = db.prepare<
      [StockKind, string, string, number, string, number, number, number, number, number]
    >(
      `INSERT INTO stock_failures (kind, dc, sku, quantity, error, not_found, attempts, first_failed_at, last_failed_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = excluded.quantity, error = excluded.error,
         not_found = excluded.not_found, attempts = excluded.attempts, first_failed_at = excluded.first_failed_at,
         last_failed_at = excluded.last_failed_at, next_attempt_at = excluded.next_attempt_at`,
    );
    this.#delete = db.prepare<[StockKind, string, string]>(
      'DELETE FROM stock_failures WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#list = db.prepare<[number], StockFailureRow>(
      'SELECT * FROM stock_failures ORDER BY first_failed_at, kind, dc, sku LIMIT ?',
    );
    this.#count = db.prepare<[], { n: number; not_found: number | null }>(
      `SELECT (SELECT COUNT(*) FROM stock_failures) AS n,
              (SELECT COUNT(*) FROM stock_failures WHERE not_found = 1) AS not_found`,
    );
    this.#dueKeys = db.prepare<[number], StockKey>(
      'SELECT kind, dc, sku FROM stock_failures WHERE next_attempt_at <= ?',
    );
    this.#markPending = db.prepare<[StockKind, string, string, number]>(MARK_PENDING_SQL);
    this.#retryOne = db.prepare<[number, StockKind, string, string]>(
      'UPDATE stock_failures SET next_attempt_at = ? WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#retryAll = db.prepare<[number]>('UPDATE stock_failures SET next_attempt_at = ?');
  }

  /**
   * Records a rejection: a repeat of the same quantity counts one more attempt and backs off
   * further; a different quantity starts over at attempt 1.
   */
  record(
    row: StockRow,
    error: string,
    notFound: boolean,
    now: number,
    schedule: RetrySettings,
  ): void {
    const prev = this.#get.get(row.kind, row.dc, row.sku);
    const same = prev !== undefined && prev.quantity === row.quantity;
    const attempts = same ? prev.attempts + 1 : 1;
    this.#upsert.run(
      row.kind,
      row.dc,
      row.sku,
      row.quantity,
      error,
      notFound ? 1 : 0,
      attempts,
      same ? prev.first_failed_at : now,
      now,
      nextAttemptAt(attempts, notFound, now, schedule),
    );
  }

  /** The item landed: its failure, if any, is over. */
  resolve(key: StockKey): void {
    this.#delete.run(key.kind, key.dc, key.sku);
  }

  list(limit = 10_000): StockFailure[] {
    return this.#list.all(limit).map(toFailure);
  }

  /** Whether some item waits for a product the portal lacks ("Product not found"). */
  anyNotFound(): boolean {
    return (
      this.#db.prepare('SELECT 1 FROM stock_failures WHERE not_found = 1 LIMIT 1').get() !==
      undefined
    );
  }

  /** Which of `skus` have an item waiting for their product ("Product not found"). */
  notFoundAmong(skus: readonly string[]): Set<string> {
    if (skus.length === 0) return new Set();
    const rows = this.#db
      .prepare<string[], string>(
        `SELECT DISTINCT sku FROM stock_failures
          WHERE not_found = 1 AND sku IN (${skus.map(() => '?').join(', ')})`,
      )
      .pluck()
      .all(...skus);
    return new Set(rows);
  }

  count(): { total: number; notFound: number } {
    const r = this.#count.get();
    return { total: r?.n ?? 0, notFound: r?.not_found ?? 0 };
  }

  /**
   * A product the portal now has: its failures that waited for it ("Product not found") are due
   * at once and pending, except where the portal now holds the quantity offered (those are over).
   * Returns how many are pending now.
   */
  productAppeared(sku: string, now: number): number {
    return this.#db.transaction(() => {
      // Over: the portal holds what is offered. Nothing is owed either (a read that showed the
      // product may have marked the key pending as it woke the failure).
      const over = `SELECT f.kind, f.dc, f.sku FROM stock_failures f
          JOIN remote_stock r ON r.kind = f.kind AND r.dc = f.dc AND r.sku = f.sku
          JOIN desired_stock d ON d.kind = f.kind AND d.dc = f.dc AND d.sku = f.sku
         WHERE f.sku = @sku AND f.not_found = 1 AND d.quantity = r.quantity`;
      this.#db
        .prepare<[{ sku: string }]>(`DELETE FROM pending_stock WHERE (kind, dc, sku) IN (${over})`)
        .run({ sku });
      this.#db
        .prepare<[{ sku: string }]>(`DELETE FROM stock_failures WHERE (kind, dc, sku) IN (${over})`)
        .run({ sku });
      const keys = this.#db
        .prepare<[number, string], StockKey>(
          `UPDATE stock_failures SET next_attempt_at = ? WHERE sku = ? AND not_found = 1
           RETURNING kind, dc, sku`,
        )
        .all(now, sku);
      for (const k of keys) this.#markPending.run(k.kind, k.dc, k.sku, now);
      return keys.length;
    })();
  }

  /** Makes every failure whose next attempt is due pending, so the next push sends it. Returns how many. */
  markDuePending(now: number): number {
    return this.#db.transaction(() => {
      const due = this.#dueKeys.all(now);
      for (const k of due) this.#markPending.run(k.kind, k.dc, k.sku, now);
      return due.length;
    })();
  }

  /**
   * Puts failures back in line at once (`failures retry`): all of them, or the given keys.
   * Returns the keys that were found.
   */
  retryNow(keys: readonly StockKey[] | 'all', now: number): number {
    return this.#db.transaction(() => {
      if (keys === 'all') {
        this.#retryAll.run(now);
        return this.markDuePending(now);
      }
      let found = 0;
      for (const k of keys) {
        if (this.#retryOne.run(now, k.kind, k.dc, k.sku).changes > 0) {
          this.#markPending.run(k.kind, k.dc, k.sku, now);
          found++;
        }
      }
      return found;
    })();
  }
}
