import type { PendingKey, StockKey, StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';

/** The one statement that makes a key pending (a pending key stays as it was). */
export const MARK_PENDING_SQL =
  'INSERT INTO pending_stock (kind, dc, sku, since) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING';

interface PendingRow {
  kind: StockKind;
  dc: string;
  sku: string;
  desired: number | null;
  remote: number | null;
  failure_quantity: number | null;
  next_attempt_at: number | null;
}

/**
 * The pending keys (`pending_stock`): keys that may still owe a push, and the only ones a push
 * looks at. A push reads them in key order, a batch at a time, and settles each one it has sent
 * or found equal, so a one-row change costs one row.
 */
export class PendingStock {
  readonly #db: StateDb;
  readonly #next;
  readonly #settle;
  readonly #mark;
  readonly #count;
  readonly #oldest;
  readonly #settleIfDesired;

  constructor(db: StateDb) {
    this.#db = db;
    this.#next = db.prepare<[StockKind, string, string, number], PendingRow>(
      `SELECT k.kind, k.dc, k.sku, d.quantity AS desired, r.quantity AS remote,
              f.quantity AS failure_quantity, f.next_attempt_at
         FROM pending_stock k
         LEFT JOIN desired_stock d ON d.kind = k.kind AND d.dc = k.dc AND d.sku = k.sku AND d.excluded = 0
         LEFT JOIN remote_stock r ON r.kind = k.kind AND r.dc = k.dc AND r.sku = k.sku
         LEFT JOIN stock_failures f ON f.kind = k.kind AND f.dc = k.dc AND f.sku = k.sku
        WHERE k.kind = ? AND (k.dc, k.sku) > (?, ?)
        ORDER BY k.kind, k.dc, k.sku
        LIMIT ?`,
    );
    this.#settle = db.prepare<[StockKind, string, string]>(
      'DELETE FROM pending_stock WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#mark = db.prepare<[StockKind, string, string, number]>(MARK_PENDING_SQL);
    this.#count = db.prepare<[], { kind: StockKind; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM pending_stock GROUP BY kind',
    );
    this.#settleIfDesired = db.prepare<
      [StockKind, string, string, StockKind, string, string, number]
    >(
      `DELETE FROM pending_stock WHERE kind = ? AND dc = ? AND sku = ?
         AND NOT EXISTS (SELECT 1 FROM desired_stock d WHERE d.kind = ? AND d.dc = ? AND d.sku = ? AND d.quantity != ?)`,
    );
    this.#oldest = db.prepare<[], { since: number | null }>(
      'SELECT MIN(since) AS since FROM pending_stock',
    );
  }

  /**
   * Up to `limit` pending keys of a kind after the key `after` (exclusive), with their desired,
   * remote and failure facts. Keys without a desired row (never expected) and excluded keys
   * (stock rules: never pushed) come back with desired = remote so that the push settles them.
   */
  next(
    kind: StockKind,
    limit: number,
    after: { dc: string; sku: string } = { dc: '', sku: '' },
  ): PendingKey[] {
    return this.#next.all(kind, after.dc, after.sku, limit).map((r) => ({
      kind: r.kind,
      dc: r.dc,
      sku: r.sku,
      desired: r.desired ?? r.remote ?? 0,
      remote: r.desired === null ? (r.remote ?? 0) : r.remote,
      failure:
        r.failure_quantity === null || r.next_attempt_at === null
          ? null
          : { quantity: r.failure_quantity, nextAttemptAt: r.next_attempt_at },
    }));
  }

  /** These keys owe nothing now. */
  settle(keys: readonly StockKey[]): void {
    this.#db.transaction(() => {
      for (const k of keys) this.#settle.run(k.kind, k.dc, k.sku);
    })();
  }

  /**
   * Settles a key that was sent with `quantity`, unless the ERP has asked for another quantity
   * since (then the key stays pending and the next push sends the newer value).
   */
  settleSent(key: StockKey, quantity: number): void {
    this.#settleIfDesired.run(key.kind, key.dc, key.sku, key.kind, key.dc, key.sku, quantity);
  }

  mark(keys: readonly StockKey[], now: number): void {
    this.#db.transaction(() => {
      for (const k of keys) this.#mark.run(k.kind, k.dc, k.sku, now);
    })();
  }

  counts(): Record<StockKind, number> {
    const out: Record<StockKind, number> = { factory: 0, dc: 0 };
    for (const r of this.#count.all()) out[r.kind] = r.n;
    return out;
  }

  /** When the oldest pending key became pending; null when nothing is pending. */
  oldestSince(): number | null {
    return this.#oldest.get()?.since ?? null;
  }
}
