import type { StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';
import type { DesiredInput } from '../stock/desiredStock.ts';
import type { RowsAside } from './heldRowsAside.ts';

/**
 * What the guard rails hold (migration 14): one row per held stock file or snapshot read, with
 * the rows it would have written kept aside in held_rows. A row is 'held' until an operator
 * decides: 'released' (applied as it stands), 'rejected' (a file moved to failed/, a snapshot
 * read dropped), or 'superseded' (a snapshot read replaced by a newer one).
 */
export type HeldStatus = 'held' | 'released' | 'rejected' | 'superseded';
export type HeldSource = 'file' | 'snapshot';

/** What an entry is made with (recordHeld). */
export interface NewHeld {
  readonly source: HeldSource;
  /** inbox_files.id of a held file; null for a snapshot read. */
  readonly fileId: number | null;
  /** The file's original name, or 'snapshot'. */
  readonly name: string;
  /** The file's name in held/; null for a snapshot read. */
  readonly storedAs: string | null;
  /** factory_stock or dc_stock for a file; null for a snapshot read (both kinds). */
  readonly kind: string | null;
  readonly contentHash: string;
  readonly reason: string;
  /** JSON of what tripped, the figures, the thresholds and example keys. */
  readonly report: string;
  /** When the ERP wrote it: the file's modification time, or the snapshot's last write. */
  readonly sourceAt: number;
  readonly heldAt: number;
}

export interface HeldEntry extends NewHeld {
  readonly id: number;
  readonly status: HeldStatus;
  readonly decidedAt: number | null;
}

interface Row {
  id: number;
  source: HeldSource;
  file_id: number | null;
  name: string;
  stored_as: string | null;
  kind: string | null;
  content_hash: string;
  reason: string;
  report: string;
  source_at: number;
  held_at: number;
  status: HeldStatus;
  decided_at: number | null;
}

const toEntry = (r: Row): HeldEntry => ({
  id: r.id,
  source: r.source,
  fileId: r.file_id,
  name: r.name,
  storedAs: r.stored_as,
  kind: r.kind,
  contentHash: r.content_hash,
  reason: r.reason,
  report: r.report,
  sourceAt: r.source_at,
  heldAt: r.held_at,
  status: r.status,
  decidedAt: r.decided_at,
});

export type HeldRowSets = ReadonlyArray<{
  readonly kind: StockKind;
  readonly rows: Iterable<DesiredInput>;
}>;

/** A row kept aside: `dc` is '' for factory stock. */
export interface HeldRow extends DesiredInput {
  readonly kind: StockKind;
}

const ROWS_BATCH = 5000;

export class HeldStore {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /**
   * Records a held set and its rows (inside the caller's transaction when there is one); returns
   * its id, which `release` and `reject` take. The rows are given, or were kept aside already
   * under the id the entry takes (heldRowsAside.ts: a staged set's, in steps).
   */
  hold(entry: NewHeld, rows: HeldRowSets | RowsAside): number {
    const insertRows = this.#db.prepare<[number, string]>(
      `INSERT OR REPLACE INTO held_rows (held_id, kind, dc, sku, quantity)
       SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
    );
    return this.#db.transaction(() => {
      const given = 'heldId' in rows ? rows.heldId : null;
      const id = Number(
        this.#db
          .prepare(
            `INSERT INTO held (id, source, file_id, name, stored_as, kind, content_hash, reason,
                               report, source_at, held_at, status)
             VALUES (@id, @source, @fileId, @name, @storedAs, @kind, @contentHash, @reason,
                     @report, @sourceAt, @heldAt, 'held')`,
          )
          .run({ ...entry, id: given }).lastInsertRowid,
      );
      if ('heldId' in rows) return id;
      for (const set of rows) {
        let batch: Array<[string, string, string, number]> = [];
        for (const r of set.rows) {
          batch.push([set.kind, r.dc, r.sku, r.quantity]);
          if (batch.length === ROWS_BATCH) {
            insertRows.run(id, JSON.stringify(batch));
            batch = [];
          }
        }
        if (batch.length > 0) insertRows.run(id, JSON.stringify(batch));
      }
      return id;
    })();
  }

  get(id: number): HeldEntry | undefined {
    const r = this.#db.prepare<[number], Row>('SELECT * FROM held WHERE id = ?').get(id);
    return r && toEntry(r);
  }

  /** Everything still held, oldest first. */
  open(): HeldEntry[] {
    return this.#db
      .prepare<[], Row>(`SELECT * FROM held WHERE status = 'held' ORDER BY id`)
      .all()
      .map(toEntry);
  }

  /** Files released or rejected whose move out of held/ a crash may have cut short. */
  decidedFiles(): HeldEntry[] {
    return this.#db
      .prepare<[], Row>(
        `SELECT * FROM held WHERE source = 'file' AND status IN ('released', 'rejected')
           AND decided_at IS NOT NULL ORDER BY id`,
      )
      .all()
      .map(toEntry);
  }

  /** The held snapshot read, if one is held. */
  openSnapshot(): HeldEntry | undefined {
    const r = this.#db
      .prepare<[], Row>(
        `SELECT * FROM held WHERE source = 'snapshot' AND status = 'held' ORDER BY id DESC LIMIT 1`,
      )
      .get();
    return r && toEntry(r);
  }

  /** The newest entry with this content and status. */
  byHash(hash: string, status: HeldStatus): HeldEntry | undefined {
    const r = this.#db
      .prepare<[string, HeldStatus], Row>(
        'SELECT * FROM held WHERE content_hash = ? AND status = ? ORDER BY id DESC LIMIT 1',
      )
      .get(hash, status);
    return r && toEntry(r);
  }

  /**
   * Sets the decision on a held entry; false when it was not 'held' any more (decided by
   * another command meanwhile). Its kept-aside rows are dropped: a snapshot release reads them
   * first, in the same transaction.
   */
  decide(id: number, status: Exclude<HeldStatus, 'held'>, now: number): boolean {
    const done =
      this.#db
        .prepare<[HeldStatus, number, number]>(
          `UPDATE held SET status = ?, decided_at = ? WHERE id = ? AND status = 'held'`,
        )
        .run(status, now, id).changes > 0;
    if (done) this.dropRows(id);
    return done;
  }

  /**
   * Rows kept aside for a held entry, in key order, read one at a time: the connection is busy
   * until the iteration ends (or is returned).
   */
  rows(id: number): IterableIterator<HeldRow> {
    return this.#db
      .prepare<[number], HeldRow>(
        'SELECT kind, dc, sku, quantity FROM held_rows WHERE held_id = ? ORDER BY kind, dc, sku',
      )
      .iterate(id);
  }

  dropRows(id: number): void {
    this.#db.prepare<[number]>('DELETE FROM held_rows WHERE held_id = ?').run(id);
  }

  /** Held now: files and snapshot reads (for status and metrics). */
  counts(): {
    readonly files: number;
    readonly snapshots: number;
    readonly oldestAt: number | null;
  } {
    const r = this.#db
      .prepare<[], { files: number; snapshots: number; oldest: number | null }>(
        `SELECT COALESCE(SUM(source = 'file'), 0) AS files,
                COALESCE(SUM(source = 'snapshot'), 0) AS snapshots,
                MIN(held_at) AS oldest
           FROM held WHERE status = 'held'`,
      )
      .get();
    return { files: r?.files ?? 0, snapshots: r?.snapshots ?? 0, oldestAt: r?.oldest ?? null };
  }

  /** The id of a held set that names this key (the newest), or undefined. */
  heldIdForKey(kind: StockKind, dc: string, sku: string): number | undefined {
    return this.#db
      .prepare<[StockKind, string, string]>(
        `SELECT r.held_id FROM held_rows r JOIN held h ON h.id = r.held_id AND h.status = 'held'
          WHERE r.kind = ? AND r.dc = ? AND r.sku = ? ORDER BY r.held_id DESC LIMIT 1`,
      )
      .pluck(true)
      .get(kind, dc, sku) as number | undefined;
  }
}
