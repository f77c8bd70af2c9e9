import { keyString, type StockKind } from '../../domain/stock.ts';
import {
  emptyOfferSummary,
  MAX_OFFER_EXAMPLES,
  type OfferSummary,
  ruleIndex,
} from '../../domain/stockRules.ts';
import { perConnection, type StateDb } from '../db.ts';
import type { ApplyResult } from '../stock/desiredStock.ts';
import { ensureStockRuleFunctions, hasStockRules, offerSelect } from '../stock/ruleOffers.ts';

/**
 * One chunk of a staged apply's merge (see stagedApply.ts): the next `limit` keys of
 * `staged.rows` after the cursor, merged into desired_stock by the sync engine's rule for each
 * key. Runs inside the caller's transaction. Two ways, the same result:
 *
 * - **plain**, when the connection has no stock rules: every key is offered as the ERP gave it,
 *   so the chunk is merged straight from its key range in `staged.rows` by a few set-based
 *   statements, each one pass over the range. Rows older than the stored one (`source_at`) are
 *   skipped by the upsert's own condition; the statements that must leave them out (pending
 *   keys, failures, the sums) check for a newer row only when the upsert skipped some.
 * - **ruled**: the chunk is first copied to a TEMP table with what the rules offer for each key
 *   (one rule evaluation per row), and the same steps read it from there, adding the exclusions
 *   (an excluded key is never pending) and what each rule did, for the report.
 */
export interface Cursor {
  readonly kind: string;
  readonly dc: string;
  readonly sku: string;
}

export interface ChunkArgs {
  /** The last key merged so far ('' × 3 before the first). */
  readonly after: Cursor;
  readonly limit: number;
  readonly source: string;
  readonly now: number;
  readonly sourceAt: number;
  readonly fileId: number | null;
}

/** What merging one chunk did (its `rows` are the chunk's keys, superseded ones included). */
export interface ChunkCounts extends ApplyResult {
  /** The chunk's last key: the cursor for the next one. */
  readonly last: Cursor;
}

/** Merges the next chunk; undefined when no key is left after `a.after`. */
export function mergeChunk(db: StateDb, a: ChunkArgs): ChunkCounts | undefined {
  ensureStockRuleFunctions(db);
  return hasStockRules(db) ? mergeRuled(db, a) : mergePlain(db, a);
}

const KEY = (t: string) => `${t}.kind = s.kind AND ${t}.dc = s.dc AND ${t}.sku = s.sku`;
/**
 * The chunk's key range over alias `t`: one kind and dc (a chunk never spans two), SKUs after
 * `@s` up to and with `@es`. (A row-value range, `(kind, dc, sku) > (…)`, reads the same rows but
 * costs about four times as much a row.)
 */
const RANGE = (t: string) =>
  `${t}.kind = @k AND ${t}.dc = @d AND ${t}.sku > @s AND ${t}.sku <= @es`;
/** The staged row `s` lost to a newer source (only asked when the upsert skipped some). */
const NEWER = `EXISTS (SELECT 1 FROM desired_stock n WHERE ${KEY('n')} AND n.source_at > @sourceAt)`;

const UPSERT_SET = `ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source,
             updated_at = excluded.updated_at, source_at = excluded.source_at,
             source_file_id = excluded.source_file_id, source_line = excluded.source_line,
             erp_quantity = excluded.erp_quantity, rule = excluded.rule,
             excluded = excluded.excluded`;

type Range = Record<'k' | 'd' | 's' | 'es', string>;

const plainStatements = perConnection((db: StateDb) => {
  // With and without the check for newer rows (asked only when the upsert skipped some).
  const anyInRange = (table: string) =>
    db.prepare(`SELECT 1 FROM ${table} t WHERE ${RANGE('t')} LIMIT 1`);
  const both = <T>(make: (newer: string) => T) => ({
    all: make(''),
    applied: make(`AND NOT ${NEWER}`),
  });
  return {
    // The first key after the cursor: where the chunk starts (maybe in the next kind or dc).
    next: db.prepare<[{ k: string; d: string; s: string }], Cursor>(
      `SELECT kind, dc, sku FROM staged.rows WHERE (kind, dc, sku) > (@k, @d, @s)
        ORDER BY kind, dc, sku LIMIT 1`,
    ),
    // The chunk in one pass: its last SKU, its keys and their units.
    span: db.prepare<
      [{ k: string; d: string; s: string; limit: number }],
      { es: string | null; rows: number; units: number | null }
    >(
      `SELECT MAX(sku) AS es, COUNT(*) AS rows, SUM(quantity) AS units FROM (
         SELECT sku, quantity FROM staged.rows WHERE kind = @k AND dc = @d AND sku > @s
          ORDER BY sku LIMIT @limit)`,
    ),
    // Inserted or updated rows count as changes; a row skipped for a newer one does not.
    upsert: db.prepare(
      `INSERT INTO desired_stock
         (kind, dc, sku, quantity, source, updated_at, source_at, source_file_id, source_line,
          erp_quantity, rule, excluded)
       SELECT kind, dc, sku, quantity, @source, @now, @sourceAt, @fileId, line, quantity, NULL, 0
         FROM staged.rows s WHERE ${RANGE('s')} ORDER BY kind, dc, sku
       ${UPSERT_SET} WHERE desired_stock.source_at <= excluded.source_at`,
    ),
    // Whether the range holds a stored failure, a pending key (most chunks hold neither: the
    // statements below are then not run at all).
    anyFailure: anyInRange('stock_failures'),
    anyPending: anyInRange('pending_stock'),
    // Driven by the failures in the range (CROSS JOIN keeps that order): few, as a rule.
    clearFailures: db.prepare(
      `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
         SELECT f.kind, f.dc, f.sku FROM stock_failures f CROSS JOIN staged.rows s ON ${KEY('f')}
          WHERE ${RANGE('f')} AND f.quantity != s.quantity AND NOT ${NEWER})`,
    ),
    // Keys already pending that differ: driven by the pending keys in the range.
    pendingDiffering: both((newer) =>
      db
        .prepare(
          `SELECT COUNT(*) FROM pending_stock p CROSS JOIN staged.rows s ON ${KEY('p')}
             LEFT JOIN remote_stock r ON ${KEY('r')}
            WHERE ${RANGE('p')} AND r.quantity IS NOT s.quantity ${newer}`,
        )
        .pluck(true),
    ),
    markPending: both((newer) =>
      db.prepare(
        `INSERT INTO pending_stock (kind, dc, sku, since)
         SELECT s.kind, s.dc, s.sku, @now FROM staged.rows s
           LEFT JOIN remote_stock r ON ${KEY('r')}
          WHERE ${RANGE('s')} AND r.quantity IS NOT s.quantity ${newer}
         ON CONFLICT DO NOTHING`,
      ),
    ),
    // No quantity of the range known on the portal (a first file, new SKUs): every key differs.
    markAllPending: both((newer) =>
      db.prepare(
        `INSERT INTO pending_stock (kind, dc, sku, since)
         SELECT s.kind, s.dc, s.sku, @now FROM staged.rows s WHERE ${RANGE('s')} ${newer}
         ON CONFLICT DO NOTHING`,
      ),
    ),
    anyRemote: anyInRange('remote_stock'),
    // The units of the rows a newer source kept (only asked when the upsert skipped some).
    supersededUnits: db
      .prepare(`SELECT SUM(quantity) FROM staged.rows s WHERE ${RANGE('s')} AND ${NEWER}`)
      .pluck(true),
  };
});

function mergePlain(db: StateDb, a: ChunkArgs): ChunkCounts | undefined {
  const s = plainStatements(db);
  const first = s.next.get({ k: a.after.kind, d: a.after.dc, s: a.after.sku });
  if (first === undefined) return undefined;
  // Within the cursor's kind and dc, after its SKU; in the next ones, from their first SKU.
  const same = first.kind === a.after.kind && first.dc === a.after.dc;
  const start = { k: first.kind, d: first.dc, s: same ? a.after.sku : '' };
  const span = s.span.get({ ...start, limit: a.limit })!;
  const range: Range = { ...start, es: span.es! };
  const rows = span.rows;
  const applied = s.upsert.run({
    ...range,
    source: a.source,
    now: a.now,
    sourceAt: a.sourceAt,
    fileId: a.fileId,
  }).changes;
  const superseded = rows - applied;
  const which = superseded > 0 ? 'applied' : 'all';
  const withTime = { ...range, sourceAt: a.sourceAt };
  const failuresCleared =
    s.anyFailure.get(range) === undefined ? 0 : s.clearFailures.run(withTime).changes;
  const alreadyPending =
    s.anyPending.get(range) === undefined ? 0 : (s.pendingDiffering[which].get(withTime) as number);
  const mark = s.anyRemote.get(range) === undefined ? s.markAllPending : s.markPending;
  const newlyPending = mark[which].run({ ...withTime, now: a.now }).changes;
  const units =
    (span.units ?? 0) -
    (superseded > 0 ? ((s.supersededUnits.get(withTime) as number | null) ?? 0) : 0);
  return {
    rows,
    differing: alreadyPending + newlyPending,
    newlyPending,
    failuresCleared,
    superseded,
    offers: { ...emptyOfferSummary(), erpUnits: units, offeredUnits: units },
    last: { kind: start.k, dc: start.d, sku: range.es },
  };
}

const ruledStatements = perConnection((db: StateDb) => {
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
    last: db.prepare<[], Cursor>(
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
       ${UPSERT_SET}`,
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
  };
});

type RuledStatements = ReturnType<typeof ruledStatements>;

/** What the rules did to the keys of the chunk being merged (superseded ones left out). */
function chunkOffers(s: RuledStatements): OfferSummary {
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

function mergeRuled(db: StateDb, a: ChunkArgs): ChunkCounts | undefined {
  const s = ruledStatements(db);
  s.clear.run();
  s.clearDiffering.run();
  const rows = s.fill.run({
    k: a.after.kind,
    d: a.after.dc,
    s: a.after.sku,
    limit: a.limit,
  }).changes;
  if (rows === 0) return undefined;
  const last = s.last.get()!;
  const superseded = s.superseded.run({ sourceAt: a.sourceAt }).changes;
  const failuresCleared = s.clearFailures.run().changes;
  s.upsert.run({ source: a.source, now: a.now, sourceAt: a.sourceAt, fileId: a.fileId });
  const differing = s.differing.run().changes;
  const newlyPending = s.markPending.run({ now: a.now }).changes;
  s.settleExcluded.run();
  const offers = chunkOffers(s);
  s.clear.run();
  s.clearDiffering.run();
  return { rows, differing, newlyPending, failuresCleared, superseded, offers, last };
}
