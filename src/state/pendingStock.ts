import type { StockKey, StockKind } from '../domain/stock.ts';
import type { PushCandidate } from '../sync/plan/pushPlan.ts';
import type { StateDb } from './db.ts';

interface CandidateRow {
  kind: StockKind;
  dc: string;
  sku: string;
  desired: number | null;
  remote: number | null;
  failure_quantity: number | null;
  next_attempt_at: number | null;
}

/**
 * The touched keys (`stock_dirty`): what a push looks at. A push reads them in key order, a batch
 * at a time, and settles each one it has sent or found equal, so a one-row change costs one row.
 */
export class PendingStock {
  readonly #db: StateDb;
  readonly #candidates;
  readonly #settle;
  readonly #mark;
  readonly #count;
  readonly #oldest;
  readonly #settleIfDesired;

  constructor(db: StateDb) {
    this.#db = db;
    this.#candidates = db.prepare<[StockKind, string, string, number], CandidateRow>(
      `SELECT k.kind, k.dc, k.sku, d.quantity AS desired, r.quantity AS remote,
              f.quantity AS failure_quantity, f.next_attempt_at
         FROM stock_dirty k
         LEFT JOIN desired_stock d ON d.kind = k.kind AND d.dc = k.dc AND d.sku = k.sku
         LEFT JOIN remote_stock r ON r.kind = k.kind AND r.dc = k.dc AND r.sku = k.sku
         LEFT JOIN stock_failures f ON f.kind = k.kind AND f.dc = k.dc AND f.sku = k.sku
        WHERE k.kind = ? AND (k.dc, k.sku) > (?, ?)
        ORDER BY k.kind, k.dc, k.sku
        LIMIT ?`,
    );
    this.#settle = db.prepare<[StockKind, string, string]>(
      'DELETE FROM stock_dirty WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#mark = db.prepare<[StockKind, string, string, number]>(
      'INSERT INTO stock_dirty (kind, dc, sku, since) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.#count = db.prepare<[], { kind: StockKind; n: number }>(
      'SELECT kind, COUNT(*) AS n FROM stock_dirty GROUP BY kind',
    );
    this.#settleIfDesired = db.prepare<
      [StockKind, string, string, StockKind, string, string, number]
    >(
      `DELETE FROM stock_dirty WHERE kind = ? AND dc = ? AND sku = ?
         AND NOT EXISTS (SELECT 1 FROM desired_stock d WHERE d.kind = ? AND d.dc = ? AND d.sku = ? AND d.quantity != ?)`,
    );
    this.#oldest = db.prepare<[], { since: number | null }>(
      'SELECT MIN(since) AS since FROM stock_dirty',
    );
  }

  /**
   * Up to `limit` touched keys of a kind after the key `after` (exclusive), with their desired,
   * remote and failure facts. Keys without a desired row (never expected) come back with
   * desired = remote so that the plan settles them.
   */
  candidates(
    kind: StockKind,
    limit: number,
    after: { dc: string; sku: string } = { dc: '', sku: '' },
  ): PushCandidate[] {
    return this.#candidates.all(kind, after.dc, after.sku, limit).map((r) => ({
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

  settle(keys: readonly StockKey[]): void {
    this.#db.transaction(() => {
      for (const k of keys) this.#settle.run(k.kind, k.dc, k.sku);
    })();
  }

  /**
   * Settles a key that was sent with `quantity`, unless the ERP has asked for another quantity
   * since (then the key stays touched and the next push sends the newer value).
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

  /** When the oldest touched key was touched; null when nothing is pending. */
  oldestSince(): number | null {
    return this.#oldest.get()?.since ?? null;
  }
}
