import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from './db.ts';

/** One desired position as ingestion hands it over; `dc` is '' for factory stock. */
export interface DesiredInput {
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
}

export interface ApplyResult {
  /** Rows written to desired_stock. */
  readonly rows: number;
  /** Keys whose desired quantity differs from the known remote one (or no remote is known). */
  readonly differing: number;
  /** Keys newly made pending (the rest of `differing` was already pending). */
  readonly newlyPending: number;
  /** Stored failures removed because a newer, different quantity replaces them. */
  readonly failuresCleared: number;
  /** Rows not applied because a newer source already set their key. */
  readonly superseded: number;
}

const STAGE_BATCH = 5000;

/**
 * The rows of one apply are first appended to a connection-private TEMP table (a JSON array per
 * 5,000 rows: the only calls from JavaScript that grow with the rows), then merged with set-based statements in key
 * order. Per-row upserts and lookups cost three calls a row and random B-tree access; this is
 * several times faster on large files (see docs/benchmarks.md).
 */
function build(db: StateDb) {
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ingest_rows (dc TEXT NOT NULL, sku TEXT NOT NULL, quantity INTEGER NOT NULL);
     CREATE TEMP TABLE IF NOT EXISTS ingest_differing (dc TEXT NOT NULL, sku TEXT NOT NULL);`,
  );
  return {
    clear: db.prepare('DELETE FROM temp.ingest_rows'),
    clearDiffering: db.prepare('DELETE FROM temp.ingest_differing'),
    // Rows arrive as a JSON array of [dc, sku, quantity] per batch: one call per batch.
    stage: db.prepare<[string]>(
      `INSERT INTO temp.ingest_rows (dc, sku, quantity)
       SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)`,
    ),
    // Rows older than what is stored (a file applied after a newer one) are dropped first.
    superseded: db.prepare<[{ kind: StockKind; sourceAt: number }]>(
      `DELETE FROM temp.ingest_rows WHERE (dc, sku) IN (
         SELECT d.dc, d.sku FROM temp.ingest_rows i
           JOIN desired_stock d ON d.kind = @kind AND d.dc = i.dc AND d.sku = i.sku
          WHERE d.source_at > @sourceAt)`,
    ),
    upsert: db.prepare<[{ kind: StockKind; source: string; now: number; sourceAt: number }]>(
      `INSERT INTO desired_stock (kind, dc, sku, quantity, source, updated_at, source_at)
       SELECT @kind, dc, sku, quantity, @source, @now, @sourceAt FROM temp.ingest_rows WHERE true ORDER BY dc, sku
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source, updated_at = excluded.updated_at,
             source_at = excluded.source_at`,
    ),
    differing: db.prepare<[{ kind: StockKind }]>(
      `INSERT INTO temp.ingest_differing (dc, sku)
       SELECT i.dc, i.sku FROM temp.ingest_rows i
         LEFT JOIN remote_stock r ON r.kind = @kind AND r.dc = i.dc AND r.sku = i.sku
        WHERE r.quantity IS NOT i.quantity
        ORDER BY i.dc, i.sku`,
    ),
    markPending: db.prepare<[{ kind: StockKind; now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT @kind, dc, sku, @now FROM temp.ingest_differing WHERE true
       ON CONFLICT DO NOTHING`,
    ),
    clearFailures: db.prepare<[{ kind: StockKind }]>(
      `DELETE FROM stock_failures
        WHERE kind = @kind AND (dc, sku) IN (
          SELECT f.dc, f.sku FROM temp.ingest_rows i
            JOIN stock_failures f ON f.kind = @kind AND f.dc = i.dc AND f.sku = i.sku
           WHERE f.quantity != i.quantity)`,
    ),
  };
}

type Statements = ReturnType<typeof build>;

const cache = new WeakMap<StateDb, Statements>();

function statements(db: StateDb): Statements {
  let s = cache.get(db);
  if (s === undefined) {
    s = build(db);
    cache.set(db, s);
  }
  return s;
}

/**
 * Writes desired quantities for one source (a file, a snapshot) in one transaction (a savepoint
 * when the caller already holds one), following the sync engine's rule for each key:
 * - desired_stock is upserted;
 * - when the quantity differs from remote_stock's (or no remote row exists) the key goes into
 *   is pending (kept if already pending);
 * - a stored failure for the key with a different quantity is deleted: the newer value replaces
 *   the one that failed (a failure with the same quantity stays, with its back-off).
 * Rows must have distinct keys (ingestion deduplicates: the last row of a key wins).
 */
export function applyDesiredStock(
  db: StateDb,
  kind: StockKind,
  rows: Iterable<DesiredInput>,
  source: string,
  now: number,
  /** When the ERP wrote the source (a file's mtime); rows of an older source than stored lose. */
  sourceAt: number = now,
): ApplyResult {
  const s = statements(db);
  const run = db.transaction(() => {
    s.clear.run();
    s.clearDiffering.run();
    let count = 0;
    let batch: Array<[string, string, number]> = [];
    for (const r of rows) {
      batch.push([r.dc, r.sku, r.quantity]);
      if (batch.length === STAGE_BATCH) {
        s.stage.run(JSON.stringify(batch));
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) s.stage.run(JSON.stringify(batch));
    count += batch.length;
    const superseded = s.superseded.run({ kind, sourceAt }).changes;
    const failuresCleared = s.clearFailures.run({ kind }).changes;
    s.upsert.run({ kind, source, now, sourceAt });
    const differing = s.differing.run({ kind }).changes;
    const newlyPending = s.markPending.run({ kind, now }).changes;
    s.clear.run();
    s.clearDiffering.run();
    return { rows: count, differing, newlyPending, failuresCleared, superseded };
  });
  return run();
}

export interface RemoteComparison {
  /** The portal is known to hold another quantity. */
  readonly changed: number;
  /** The portal is known to hold this quantity already. */
  readonly unchanged: number;
  /** Nothing is known of this key on the portal (never read, or not a product there). */
  readonly unknown: number;
}

/**
 * Read-only: compares desired rows with the known remote stock, for dry runs. Works on a
 * read-only connection.
 */
export function compareWithRemote(
  db: StateDb,
  kind: StockKind,
  rows: Iterable<DesiredInput>,
): RemoteComparison {
  const get = db
    .prepare('SELECT quantity FROM remote_stock WHERE kind = ? AND dc = ? AND sku = ?')
    .pluck(true);
  let changed = 0;
  let unchanged = 0;
  let unknown = 0;
  for (const r of rows) {
    const remote = get.get(kind, r.dc, r.sku) as number | undefined;
    if (remote === undefined) unknown++;
    else if (remote === r.quantity) unchanged++;
    else changed++;
  }
  return { changed, unchanged, unknown };
}

/** How many keys of a kind the ERP has asked for. */
export function countDesired(db: StateDb, kind: StockKind): number {
  return (
    db
      .prepare<[StockKind], { n: number }>('SELECT COUNT(*) AS n FROM desired_stock WHERE kind = ?')
      .get(kind)?.n ?? 0
  );
}
