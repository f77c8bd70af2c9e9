import type { StockKind, StockRow } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';
import { MARK_PENDING_SQL } from './pendingStock.ts';

export interface RemoteRow extends StockRow {
  readonly platformSku: string | null;
}

/** A key whose portal quantity is not what the daemon believed, nor what the ERP asks for. */
export interface DriftedKey {
  readonly kind: StockKind;
  readonly dc: string;
  readonly sku: string;
  readonly was: number;
  readonly portal: number;
  readonly desired: number;
}

export interface StoredRead {
  /** Keys where the portal differs from the desired (offered) quantity: now pending. */
  readonly differences: number;
  /**
   * Those of them the daemon believed held something else than the portal shows: changed
   * behind its back (an edit in the portal's web interface, the portal moving stock).
   */
  readonly drifted: readonly DriftedKey[];
}

/** What the portal is known to hold: written by pushes that landed and by reconciliation reads. */
export class RemoteStock {
  readonly #db: StateDb;
  readonly #upsert;
  readonly #desired;
  readonly #markPending;
  readonly #wakeNotFound;
  readonly #count;
  readonly #deleteUnseen;
  readonly #unknown;
  readonly #known;

  constructor(db: StateDb) {
    this.#db = db;
    this.#upsert = db.prepare<[StockKind, string, string, number, string | null, number]>(
      `INSERT INTO remote_stock (kind, dc, sku, quantity, platform_sku, seen_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = excluded.quantity,
         platform_sku = COALESCE(excluded.platform_sku, remote_stock.platform_sku), seen_at = excluded.seen_at`,
    );
    this.#desired = db.prepare<[StockKind, string, string], { quantity: number }>(
      'SELECT quantity FROM desired_stock WHERE kind = ? AND dc = ? AND sku = ? AND excluded = 0',
    );
    this.#known = db.prepare<[StockKind, string, string], { quantity: number; seenAt: number }>(
      'SELECT quantity, seen_at AS seenAt FROM remote_stock WHERE kind = ? AND dc = ? AND sku = ?',
    );
    this.#markPending = db.prepare<[StockKind, string, string, number]>(MARK_PENDING_SQL);
    this.#wakeNotFound = db.prepare<[number, StockKind, string, string]>(
      `UPDATE stock_failures SET next_attempt_at = ?
        WHERE kind = ? AND dc = ? AND sku = ? AND not_found = 1`,
    );
    this.#count = db.prepare<[StockKind], { n: number }>(
      'SELECT COUNT(*) AS n FROM remote_stock WHERE kind = ?',
    );
    this.#deleteUnseen = db.prepare<[StockKind, number]>(
      'DELETE FROM remote_stock WHERE kind = ? AND seen_at < ?',
    );
    this.#unknown = db.prepare<[StockKind, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM desired_stock d
        LEFT JOIN remote_stock r ON r.kind = d.kind AND r.dc = d.dc AND r.sku = d.sku
        WHERE d.kind = ? AND d.excluded = 0 AND (r.sku IS NULL OR r.seen_at < ?)`,
    );
  }

  /**
   * Stores rows read from the portal (one page, one transaction) and makes every key pending whose
   * offered quantity differs from what the portal holds (excluded keys never). A "Product not
   * found" failure for a SKU the portal now shows is due at once. Says how many differ, and which
   * of them drifted: the portal holds neither what the daemon believed nor what the ERP asks for.
   * `askedAt`: when the page was asked for. A key whose push landed after that is left as the
   * push left it: the page may show it from before the push, and the push's answer is the newer
   * word (without this, a push-back landing while a page was on its way made the same drift
   * count twice and be pushed again).
   */
  storeRead(rows: readonly RemoteRow[], now: number, askedAt: number = now): StoredRead {
    let differences = 0;
    const drifted: DriftedKey[] = [];
    this.#db.transaction(() => {
      for (const r of rows) {
        const known = this.#known.get(r.kind, r.dc, r.sku);
        if (known !== undefined && known.seenAt > askedAt) continue;
        const was = known?.quantity;
        this.#upsert.run(r.kind, r.dc, r.sku, r.quantity, r.platformSku, now);
        if (this.#wakeNotFound.run(now, r.kind, r.dc, r.sku).changes > 0) {
          this.#markPending.run(r.kind, r.dc, r.sku, now);
        }
        const desired = this.#desired.get(r.kind, r.dc, r.sku);
        if (desired !== undefined && desired.quantity !== r.quantity) {
          differences++;
          this.#markPending.run(r.kind, r.dc, r.sku, now);
          if (was !== undefined && was !== r.quantity) {
            drifted.push({
              kind: r.kind,
              dc: r.dc,
              sku: r.sku,
              was,
              portal: r.quantity,
              desired: desired.quantity,
            });
          }
        }
      }
    })();
    return { differences, drifted };
  }

  /** A push landed: the portal now holds what was sent. */
  storePushed(row: StockRow, platformSku: string | null, now: number): void {
    this.#upsert.run(row.kind, row.dc, row.sku, row.quantity, platformSku, now);
  }

  count(kind: StockKind): number {
    return this.#count.get(kind)?.n ?? 0;
  }

  /** After a complete read: forgets rows the portal no longer has, so they count as unknown. */
  forgetUnseen(kind: StockKind, since: number): number {
    return this.#deleteUnseen.run(kind, since).changes;
  }

  /** Desired keys the portal did not show in a read that started at `since`. */
  unknownToPortal(kind: StockKind, since: number): number {
    return this.#unknown.get(kind, since)?.n ?? 0;
  }
}
