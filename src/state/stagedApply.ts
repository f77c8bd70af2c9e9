import { keyString, type StockKind } from '../domain/stock.ts';
import {
  emptyOfferSummary,
  MAX_OFFER_EXAMPLES,
  mergeOfferSummaries,
  type OfferSummary,
  ruleIndex,
} from '../domain/stockRules.ts';
import type { StateDb } from './db.ts';
import type { ApplyResult } from './desiredStock.ts';
import { ensureStockRuleFunctions, offerSelect } from './stockRules.ts';

/**
 * The apply of a staged set (see src/state/staging.ts) to desired stock, in short transactions.
 *
 * All or nothing, under a kill at any point:
 * 1. Before the commit point the rows exist only in the scratch file: nothing in state.db
 *    refers to them, and a crash leaves state.db as it was (the scratch file is deleted at start).
 * 2. The commit point is one short transaction that records the apply in `staged_applies` (with
 *    the file's ledger row, or the snapshot's time). The scratch file was fsynced before it.
 * 3. The merge then copies the set into desired_stock in key order, `limit` keys per transaction;
 *    each transaction also moves the row's cursor (`after_*`) and adds its counts, so a crash
 *    between two of them resumes after the last key merged, never merging a key twice.
 * 4. The last transaction deletes the `staged_applies` row (and the caller finishes its own
 *    records in it). A row found at start is merged to the end before anything else is applied.
 *
 * The merge follows the sync engine's rule for each key, as applyDesiredStock does: the stock
 * rules (stockRules.ts) turn each staged ERP quantity into the offered one as the chunk is
 * taken; rows older than the stored one (`source_at`) are skipped; a stored failure with another
 * quantity (or of a key now excluded) is removed; desired_stock is upserted (`erp_quantity`,
 * offered `quantity`, `rule`, `excluded`, `source_file_id`, `source_line`); a key whose offered
 * quantity differs from the known remote one becomes pending, an excluded key never (and stops
 * being pending). What the rules did is summed up per chunk in `offers`, for the report.
 */
export interface NewStagedApply {
  /** The scratch file's name under `<data dir>/staging/`. */
  readonly stagedFile: string;
  /** `file:<ledger id>` or `snapshot`: desired_stock.source. */
  readonly source: string;
  /** inbox_files.id, null for the snapshot. */
  readonly fileId: number | null;
  /** When the ERP wrote the source; rows of an older source than the stored one lose. */
  readonly sourceAt: number;
  readonly appliedAt: number;
}

export interface StagedApply extends NewStagedApply {
  readonly id: number;
}

interface Row {
  id: number;
  staged_file: string;
  source: string;
  file_id: number | null;
  source_at: number;
  applied_at: number;
  after_kind: string | null;
  after_dc: string | null;
  after_sku: string | null;
  rows: number;
  differing: number;
  newly_pending: number;
  failures_cleared: number;
  superseded: number;
  offers: string | null;
}

const toApply = (r: Row): StagedApply => ({
  id: r.id,
  stagedFile: r.staged_file,
  source: r.source,
  fileId: r.file_id,
  sourceAt: r.source_at,
  appliedAt: r.applied_at,
});

const totalsOf = (r: Row): ApplyResult => ({
  rows: r.rows,
  differing: r.differing,
  newlyPending: r.newly_pending,
  failuresCleared: r.failures_cleared,
  superseded: r.superseded,
  offers: r.offers === null ? emptyOfferSummary() : (JSON.parse(r.offers) as OfferSummary),
});

/** Records the decision to apply a staged set (call inside the commit transaction). */
export function recordStagedApply(db: StateDb, a: NewStagedApply): number {
  return Number(
    db
      .prepare(
        `INSERT INTO staged_applies (staged_file, source, file_id, source_at, applied_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(a.stagedFile, a.source, a.fileId, a.sourceAt, a.appliedAt).lastInsertRowid,
  );
}

/** Applies decided but not yet merged to the end, oldest first. */
export function unfinishedStagedApplies(db: StateDb): StagedApply[] {
  return db.prepare<[], Row>('SELECT * FROM staged_applies ORDER BY id').all().map(toApply);
}

/** The unfinished apply of an inbox file, if any. */
export function stagedApplyOfFile(db: StateDb, fileId: number): StagedApply | undefined {
  const r = db.prepare<[number], Row>('SELECT * FROM staged_applies WHERE file_id = ?').get(fileId);
  return r && toApply(r);
}

/** Makes a scratch file's tables reachable from the state connection as schema `staged`. */
export function attachStaged(db: StateDb, path: string): void {
  db.prepare('ATTACH DATABASE ? AS staged').run(path);
}

export function detachStaged(db: StateDb): void {
  if (db.prepare("SELECT 1 FROM pragma_database_list WHERE name = 'staged'").get() !== undefined) {
    db.exec('DETACH DATABASE staged');
  }
}

/** Keys in the attached staged set. */
export function countStaged(db: StateDb): number {
  return db.prepare('SELECT COUNT(*) FROM staged.rows').pluck(true).get() as number;
}

export interface ChunkResult {
  readonly done: boolean;
  /** Counts so far (all of them once done). */
  readonly totals: ApplyResult;
}

function statements(db: StateDb) {
  ensureStockRuleFunctions(db);
  db.exec(
    `DROP TABLE IF EXISTS temp.apply_chunk;
     CREATE TEMP TABLE apply_chunk (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, erp INTEGER NOT NULL,
       quantity INTEGER NOT NULL, rule TEXT, excluded INTEGER NOT NULL,
       line INTEGER NOT NULL, PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID;
     CREATE TEMP TABLE IF NOT EXISTS apply_differing (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL,
       PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID;`,
  );
  return {
    get: db.prepare<[number], Row>('SELECT * FROM staged_applies WHERE id = ?'),
    clear: db.prepare('DELETE FROM temp.apply_chunk'),
    clearDiffering: db.prepare('DELETE FROM temp.apply_differing'),
    // The chunk's keys in order, with what the stock rules offer for each (one call per row).
    fill: db.prepare<[{ k: string; d: string; s: string; limit: number }]>(
      `INSERT INTO temp.apply_chunk (kind, dc, sku, erp, quantity, rule, excluded, line)
       SELECT kind, dc, sku, erp, quantity, rule, excluded, line FROM (${offerSelect(
         `(SELECT kind, dc, sku, quantity AS erp, line FROM staged.rows
            WHERE (kind, dc, sku) > (@k, @d, @s) ORDER BY kind, dc, sku LIMIT @limit)`,
         ['kind', 'dc', 'sku', 'erp', 'line'],
         { kind: 'kind', dc: 'dc', sku: 'sku', erp: 'erp' },
       )})`,
    ),
    last: db.prepare<[], { kind: string; dc: string; sku: string }>(
      'SELECT kind, dc, sku FROM temp.apply_chunk ORDER BY kind DESC, dc DESC, sku DESC LIMIT 1',
    ),
    superseded: db.prepare<[{ sourceAt: number }]>(
      `DELETE FROM temp.apply_chunk WHERE EXISTS (
         SELECT 1 FROM desired_stock d
          WHERE d.kind = apply_chunk.kind AND d.dc = apply_chunk.dc AND d.sku = apply_chunk.sku
            AND d.source_at > @sourceAt)`,
    ),
    clearFailures: db.prepare(
      `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
         SELECT f.kind, f.dc, f.sku FROM temp.apply_chunk c
           JOIN stock_failures f ON f.kind = c.kind AND f.dc = c.dc AND f.sku = c.sku
          WHERE f.quantity != c.quantity OR c.excluded = 1)`,
    ),
    upsert: db.prepare<[{ source: string; now: number; sourceAt: number; fileId: number | null }]>(
      `INSERT INTO desired_stock
         (kind, dc, sku, quantity, source, updated_at, source_at, source_file_id, source_line,
          erp_quantity, rule, excluded)
       SELECT kind, dc, sku, quantity, @source, @now, @sourceAt, @fileId, line, erp, rule, excluded
         FROM temp.apply_chunk WHERE true ORDER BY kind, dc, sku
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source,
             updated_at = excluded.updated_at, source_at = excluded.source_at,
             source_file_id = excluded.source_file_id, source_line = excluded.source_line,
             erp_quantity = excluded.erp_quantity, rule = excluded.rule,
             excluded = excluded.excluded`,
    ),
    // Excluded keys are never pushed: they never differ, and one that was pending is not now.
    differing: db.prepare(
      `INSERT INTO temp.apply_differing (kind, dc, sku)
       SELECT c.kind, c.dc, c.sku FROM temp.apply_chunk c
         LEFT JOIN remote_stock r ON r.kind = c.kind AND r.dc = c.dc AND r.sku = c.sku
        WHERE c.excluded = 0 AND r.quantity IS NOT c.quantity`,
    ),
    markPending: db.prepare<[{ now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, @now FROM temp.apply_differing WHERE true
       ON CONFLICT DO NOTHING`,
    ),
    settleExcluded: db.prepare(
      `DELETE FROM pending_stock WHERE (kind, dc, sku) IN (
         SELECT kind, dc, sku FROM temp.apply_chunk WHERE excluded = 1)`,
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
         FROM temp.apply_chunk`,
    ),
    byRule: db.prepare<[], { rule: string; keys: number }>(
      'SELECT rule, COUNT(*) AS keys FROM temp.apply_chunk WHERE rule IS NOT NULL GROUP BY rule',
    ),
    examples: db.prepare<
      [number],
      {
        kind: StockKind;
        dc: string;
        sku: string;
        erp: number;
        quantity: number;
        excluded: number;
        rule: string;
      }
    >(
      `SELECT kind, dc, sku, erp, quantity, excluded, rule FROM temp.apply_chunk
        WHERE rule IS NOT NULL ORDER BY kind, dc, sku LIMIT ?`,
    ),
    advance: db.prepare(
      `UPDATE staged_applies
          SET after_kind = @kind, after_dc = @dc, after_sku = @sku,
              rows = rows + @rows, differing = differing + @differing,
              newly_pending = newly_pending + @newlyPending,
              failures_cleared = failures_cleared + @failuresCleared,
              superseded = superseded + @superseded, offers = @offers
        WHERE id = @id`,
    ),
    remove: db.prepare<[number]>('DELETE FROM staged_applies WHERE id = ?'),
  };
}

type Statements = ReturnType<typeof statements>;

const cache = new WeakMap<StateDb, Statements>();

/** The merge's statements, prepared once per connection. */
function prepared(db: StateDb): Statements {
  let s = cache.get(db);
  if (s === undefined) {
    s = statements(db);
    cache.set(db, s);
  }
  return s;
}

/** What the rules did to the keys of the chunk being merged (superseded ones left out). */
function chunkOffers(s: Statements): OfferSummary {
  const t = s.offerTotals.get();
  return {
    erpUnits: t?.erp ?? 0,
    offeredUnits: t?.offered ?? 0,
    adjusted: t?.adjusted ?? 0,
    excluded: t?.excluded ?? 0,
    byRule: s.byRule.all().sort((a, b) => ruleIndex(a.rule) - ruleIndex(b.rule)),
    examples: s.examples.all(MAX_OFFER_EXAMPLES).map((r) => ({
      key: keyString(r),
      erp: r.erp,
      offered: r.excluded === 1 ? null : r.quantity,
      rule: r.rule,
    })),
  };
}

/**
 * Merges the next `limit` keys of the apply `id` (its scratch file ATTACHed as `staged`) in one
 * IMMEDIATE transaction. When none is left, the same transaction deletes the apply's row and
 * runs `onDone` with the totals (the caller's own records: the file's report).
 */
export function mergeStagedChunk(
  db: StateDb,
  id: number,
  limit: number,
  onDone?: (totals: ApplyResult) => void,
): ChunkResult {
  const s = prepared(db);
  const tx = db.transaction((): ChunkResult => {
    const row = s.get.get(id);
    if (row === undefined) throw new Error(`staged apply ${id} is not recorded`);
    s.clear.run();
    s.clearDiffering.run();
    const filled = s.fill.run({
      k: row.after_kind ?? '',
      d: row.after_dc ?? '',
      s: row.after_sku ?? '',
      limit,
    }).changes;
    if (filled === 0) {
      s.remove.run(id);
      const totals = totalsOf(row);
      onDone?.(totals);
      return { done: true, totals };
    }
    const last = s.last.get()!;
    const superseded = s.superseded.run({ sourceAt: row.source_at }).changes;
    const failuresCleared = s.clearFailures.run().changes;
    s.upsert.run({
      source: row.source,
      now: row.applied_at,
      sourceAt: row.source_at,
      fileId: row.file_id,
    });
    // As applyDesiredStock counts: every key of the set, superseded ones included.
    const rows = filled;
    const differing = s.differing.run().changes;
    const newlyPending = s.markPending.run({ now: row.applied_at }).changes;
    s.settleExcluded.run();
    const offers = mergeOfferSummaries(totalsOf(row).offers, chunkOffers(s));
    s.clear.run();
    s.clearDiffering.run();
    s.advance.run({
      id,
      kind: last.kind,
      dc: last.dc,
      sku: last.sku,
      rows,
      differing,
      newlyPending,
      failuresCleared,
      superseded,
      offers: JSON.stringify(offers),
    });
    return {
      done: false,
      totals: {
        rows: row.rows + rows,
        differing: row.differing + differing,
        newlyPending: row.newly_pending + newlyPending,
        failuresCleared: row.failures_cleared + failuresCleared,
        superseded: row.superseded + superseded,
        offers,
      },
    };
  });
  return tx.immediate();
}

/** The kinds present in the attached staged set. */
export function stagedKinds(db: StateDb): StockKind[] {
  return db.prepare('SELECT DISTINCT kind FROM staged.rows').pluck(true).all() as StockKind[];
}
