import { keyString, type StockKind } from '../domain/stock.ts';
import { MAX_OFFER_EXAMPLES, type OfferSummary, ruleIndex } from '../domain/stockRules.ts';
import type { StateDb } from './db.ts';
import { ensureStockRuleFunctions, offerSelect } from './stockRules.ts';

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
  /** What the stock rules made of the applied rows' ERP quantities. */
  readonly offers: OfferSummary;
}

const STAGE_BATCH = 5000;

/**
 * The rows of one apply are first appended to a connection-private TEMP table (a JSON array per
 * 5,000 rows: the only calls from JavaScript that grow with the rows), then merged with set-based
 * statements in key order. Per-row upserts and lookups cost three calls a row and random B-tree access; this is
 * several times faster on large files (see docs/benchmarks.md).
 */
function build(db: StateDb) {
  ensureStockRuleFunctions(db);
  db.exec(
    `DROP TABLE IF EXISTS temp.ingest_rows;
     CREATE TEMP TABLE ingest_rows (dc TEXT NOT NULL, sku TEXT NOT NULL, erp INTEGER NOT NULL,
       quantity INTEGER NOT NULL, rule TEXT, excluded INTEGER NOT NULL);
     CREATE TEMP TABLE IF NOT EXISTS ingest_differing (dc TEXT NOT NULL, sku TEXT NOT NULL);`,
  );
  return {
    clear: db.prepare('DELETE FROM temp.ingest_rows'),
    clearDiffering: db.prepare('DELETE FROM temp.ingest_differing'),
    // Rows arrive as a JSON array of [dc, sku, quantity] per batch: one call per batch. The
    // stock rules turn the ERP's quantity into the offered one here (see stockRules.ts).
    stage: db.prepare<[{ kind: StockKind; rows: string }]>(
      `INSERT INTO temp.ingest_rows (dc, sku, erp, quantity, rule, excluded)
       SELECT dc, sku, erp, quantity, rule, excluded FROM (${offerSelect(
         'json_each(@rows)',
         ['value ->> 0 AS dc', 'value ->> 1 AS sku', 'value ->> 2 AS erp'],
         { kind: '@kind', dc: 'value ->> 0', sku: 'value ->> 1', erp: 'value ->> 2' },
       )})`,
    ),
    // Rows older than what is stored (a file applied after a newer one) are dropped first.
    superseded: db.prepare<[{ kind: StockKind; sourceAt: number }]>(
      `DELETE FROM temp.ingest_rows WHERE (dc, sku) IN (
         SELECT d.dc, d.sku FROM temp.ingest_rows i
           JOIN desired_stock d ON d.kind = @kind AND d.dc = i.dc AND d.sku = i.sku
          WHERE d.source_at > @sourceAt)`,
    ),
    upsert: db.prepare<[{ kind: StockKind; source: string; now: number; sourceAt: number }]>(
      `INSERT INTO desired_stock (kind, dc, sku, quantity, source, updated_at, source_at, erp_quantity, rule, excluded)
       SELECT @kind, dc, sku, quantity, @source, @now, @sourceAt, erp, rule, excluded
         FROM temp.ingest_rows WHERE true ORDER BY dc, sku
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source, updated_at = excluded.updated_at,
             source_at = excluded.source_at, erp_quantity = excluded.erp_quantity,
             rule = excluded.rule, excluded = excluded.excluded`,
    ),
    // Excluded keys are never pushed: they never differ, and one that was pending is not now.
    differing: db.prepare<[{ kind: StockKind }]>(
      `INSERT INTO temp.ingest_differing (dc, sku)
       SELECT i.dc, i.sku FROM temp.ingest_rows i
         LEFT JOIN remote_stock r ON r.kind = @kind AND r.dc = i.dc AND r.sku = i.sku
        WHERE i.excluded = 0 AND r.quantity IS NOT i.quantity
        ORDER BY i.dc, i.sku`,
    ),
    markPending: db.prepare<[{ kind: StockKind; now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT @kind, dc, sku, @now FROM temp.ingest_differing WHERE true
       ON CONFLICT DO NOTHING`,
    ),
    settleExcluded: db.prepare<[{ kind: StockKind }]>(
      `DELETE FROM pending_stock WHERE kind = @kind AND (dc, sku) IN (
         SELECT dc, sku FROM temp.ingest_rows WHERE excluded = 1)`,
    ),
    clearFailures: db.prepare<[{ kind: StockKind }]>(
      `DELETE FROM stock_failures
        WHERE kind = @kind AND (dc, sku) IN (
          SELECT f.dc, f.sku FROM temp.ingest_rows i
            JOIN stock_failures f ON f.kind = @kind AND f.dc = i.dc AND f.sku = i.sku
           WHERE f.quantity != i.quantity OR i.excluded = 1)`,
    ),
    offerTotals: db.prepare<
      [],
      {
        erp: number | null;
        offered: number | null;
        adjusted: number | null;
        excluded: number | null;
      }
    >(
      `SELECT SUM(erp) AS erp, SUM(CASE WHEN excluded = 0 THEN quantity END) AS offered,
              SUM(excluded = 0 AND quantity != erp) AS adjusted, SUM(excluded) AS excluded
         FROM temp.ingest_rows`,
    ),
    byRule: db.prepare<[], { rule: string; keys: number }>(
      'SELECT rule, COUNT(*) AS keys FROM temp.ingest_rows WHERE rule IS NOT NULL GROUP BY rule',
    ),
    examples: db.prepare<
      [number],
      { dc: string; sku: string; erp: number; quantity: number; excluded: number; rule: string }
    >(
      'SELECT dc, sku, erp, quantity, excluded, rule FROM temp.ingest_rows WHERE rule IS NOT NULL LIMIT ?',
    ),
  };
}

/** What the rules did to the staged rows (temp.ingest_rows), for the report. */
function offerSummary(s: Statements, kind: StockKind): OfferSummary {
  const t = s.offerTotals.get();
  return {
    erpUnits: t?.erp ?? 0,
    offeredUnits: t?.offered ?? 0,
    adjusted: t?.adjusted ?? 0,
    excluded: t?.excluded ?? 0,
    byRule: s.byRule.all().sort((a, b) => ruleIndex(a.rule) - ruleIndex(b.rule)),
    examples: s.examples.all(MAX_OFFER_EXAMPLES).map((r) => ({
      key: keyString({ kind, dc: r.dc, sku: r.sku }),
      erp: r.erp,
      offered: r.excluded === 1 ? null : r.quantity,
      rule: r.rule,
    })),
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
 * - the connection's stock rules (stockRules.ts) turn the ERP's quantity into the offered one;
 * - desired_stock is upserted: erp_quantity as given, quantity as offered, the rule, excluded;
 * - when the offered quantity differs from remote_stock's (or no remote row exists) the key
 *   becomes pending (kept if already pending); an excluded key never does, and stops being so;
 * - a stored failure for the key with a different quantity (or now excluded) is deleted: the
 *   newer value replaces the one that failed (a failure with the same quantity stays, with its
 *   back-off).
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
        s.stage.run({ kind, rows: JSON.stringify(batch) });
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) s.stage.run({ kind, rows: JSON.stringify(batch) });
    count += batch.length;
    const superseded = s.superseded.run({ kind, sourceAt }).changes;
    const failuresCleared = s.clearFailures.run({ kind }).changes;
    s.upsert.run({ kind, source, now, sourceAt });
    const differing = s.differing.run({ kind }).changes;
    const newlyPending = s.markPending.run({ kind, now }).changes;
    s.settleExcluded.run({ kind });
    const offers = offerSummary(s, kind);
    s.clear.run();
    s.clearDiffering.run();
    return { rows: count, differing, newlyPending, failuresCleared, superseded, offers };
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

/** How many keys of a kind the ERP has asked for and are offered (excluded keys aside). */
export function countDesired(db: StateDb, kind: StockKind): number {
  return (
    db
      .prepare<[StockKind], { n: number }>(
        'SELECT COUNT(*) AS n FROM desired_stock WHERE kind = ? AND excluded = 0',
      )
      .get(kind)?.n ?? 0
  );
}
