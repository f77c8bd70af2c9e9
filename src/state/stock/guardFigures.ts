import type { GuardFigures } from '../../domain/guard.ts';
import type { StockKind } from '../../domain/stock.ts';
import type { StateDb } from '../db.ts';
import { IN_RANGE, type KeyRange, keyRanges } from '../staging/stagedRanges.ts';
import type { DesiredInput } from './desiredStock.ts';
import { ensureStockRuleFunctions, hasStockRules, offerSelect } from './ruleOffers.ts';

/**
 * The figures of the guard rails: a staged set of stock rows compared with what the portal is
 * known to hold (remote_stock), in one query. Keys with no remote row are unknown: counted as
 * named and unknown, never as stock that would vanish.
 *
 * The staged set is a table of rows `(kind, dc, sku, quantity)` with distinct keys, reachable
 * from the connection: the pipeline's own staging table, or `temp.guard_rows` filled by
 * stageGuardRows. `quantity` is the quantity that would be offered (after stock rules).
 */

/** The connection-private table stageGuardRows fills. */
export const GUARD_STAGE = 'temp.guard_rows';

/** Most example keys a held set's report names. */
export const GUARD_EXAMPLES = 20;

export interface StagedSet {
  /** A table or view with columns dc, sku, quantity (and kind, unless `kind` is given). */
  readonly table: string;
  /** Every row is of this kind (the table then needs no kind column). */
  readonly kind?: StockKind;
  /**
   * SQL for the quantity that would be offered, over the staged row `s` (default `s.quantity`):
   * where stock rules derive the offered quantity at apply, the same derivation goes here.
   */
  readonly quantity?: string;
  /** A derived table's SQL instead of `table` (built by offeredSet only, never from input). */
  readonly query?: string;
  /** Only the keys of this range (a table with a kind column; see compareStagedInSteps). */
  readonly range?: KeyRange;
}

/** A key the set would lower: zeroed ones first, then the largest drops. */
export interface GuardExample {
  readonly kind: StockKind;
  readonly dc: string;
  readonly sku: string;
  readonly portal: number;
  readonly quantity: number;
}

export interface StagedComparison extends GuardFigures {
  readonly examples: readonly GuardExample[];
}

const TABLE_NAME = /^(temp\.|main\.|staged\.)?[a-z_][a-z0-9_]*$/i;

/** The staged table (checked to be a plain name) and the SQL of a row's kind in it (`s`). */
export function stagedFrom(set: StagedSet): { table: string; kind: string } {
  const kind = set.kind === undefined ? 's.kind' : '@kind';
  if (set.query !== undefined) return { table: `(${set.query})`, kind };
  if (!TABLE_NAME.test(set.table)) throw new Error(`not a table name: ${set.table}`);
  if (set.range !== undefined) {
    return { table: `(SELECT * FROM ${set.table} t WHERE ${IN_RANGE('t')})`, kind };
  }
  return { table: set.table, kind };
}

/** The parameters a set's SQL binds: its kind, its range. */
const paramsOf = (set: StagedSet) => ({
  ...(set.kind === undefined ? {} : { kind: set.kind }),
  ...set.range,
});

/**
 * The staged set as the portal would be offered it: each row's quantity under the stock rules in
 * force on this connection (state/stock/ruleOffers.ts; none: as the ERP counts it), and the keys the
 * rules exclude left out (never pushed, so nothing to protect).
 */
export function offeredSet(db: StateDb, set: StagedSet): StagedSet {
  ensureStockRuleFunctions(db);
  // No rules: every quantity is offered as the ERP gave it, and none is excluded.
  if (!hasStockRules(db)) return set;
  const f = stagedFrom({
    table: set.table,
    ...(set.range === undefined ? {} : { range: set.range }),
  });
  const kind = set.kind === undefined ? 'kind' : `'${set.kind === 'dc' ? 'dc' : 'factory'}'`;
  const offers = offerSelect(f.table, [`${kind} AS kind`, 'dc', 'sku'], {
    kind,
    dc: 'dc',
    sku: 'sku',
    erp: 'quantity',
  });
  return {
    table: set.table,
    query: `SELECT kind, dc, sku, quantity FROM (${offers}) WHERE excluded = 0`,
    ...(set.range === undefined ? {} : { range: set.range }),
  };
}

function from(set: StagedSet): { sql: string; kind: string } {
  const f = stagedFrom(set);
  return {
    sql: `${f.table} s LEFT JOIN remote_stock r ON r.kind = ${f.kind} AND r.dc = s.dc AND r.sku = s.sku`,
    kind: f.kind,
  };
}

/**
 * The rows of a staged set in key order, a page at a time (for a fingerprint of its content
 * without holding it in memory).
 */
export function* stagedRowsInOrder(
  db: StateDb,
  set: StagedSet,
): Generator<{ kind: string; dc: string; sku: string; quantity: number }> {
  const f = stagedFrom(set);
  const params = paramsOf(set);
  yield* db
    .prepare(
      `SELECT ${f.kind} AS kind, s.dc AS dc, s.sku AS sku, s.quantity AS quantity
         FROM ${f.table} s ORDER BY 1, 2, 3`,
    )
    .iterate(params) as Iterable<{ kind: string; dc: string; sku: string; quantity: number }>;
}

/** The figures and up to GUARD_EXAMPLES example keys of a staged set (read-only). */
export function compareStaged(db: StateDb, set: StagedSet): StagedComparison {
  const f = from(set);
  const q = set.quantity ?? 's.quantity';
  const params = paramsOf(set);
  const figures = db
    .prepare(
      `SELECT COUNT(*) AS keysNamed,
              COUNT(*) - COUNT(r.quantity) AS keysUnknown,
              COALESCE(SUM(r.quantity > 0), 0) AS keysInStock,
              COALESCE(SUM(r.quantity > 0 AND ${q} = 0), 0) AS keysZeroed,
              COALESCE(SUM(r.quantity), 0) AS sumBefore,
              COALESCE(SUM(CASE WHEN r.quantity IS NOT NULL THEN ${q} END), 0) AS sumAfter
         FROM ${f.sql}`,
    )
    .get(params) as GuardFigures;
  const examples = db
    .prepare(
      `SELECT ${f.kind} AS kind, s.dc AS dc, s.sku AS sku, r.quantity AS portal, ${q} AS quantity
         FROM ${f.sql}
        WHERE r.quantity > ${q}
        ORDER BY ${q} = 0 DESC, r.quantity - ${q} DESC, 1, 2, 3
        LIMIT ${GUARD_EXAMPLES}`,
    )
    .all(params) as GuardExample[];
  return { ...figures, examples };
}

/**
 * compareStaged over a staged set of any size without holding the event loop: the set's keys
 * in ranges of `keys` (state/staging/stagedRanges.ts), one query per range, `pause()` awaited
 * between them; the figures are summed and the examples of every range ranked together. Over a
 * table with a kind column (the pipeline's staged.rows), offered under the rules in force.
 * Each range sees the portal's stock as it is then (the sync may store a read in between).
 */
export async function compareStagedInSteps(
  db: StateDb,
  table: string,
  pause: () => Promise<void>,
  keys?: number,
): Promise<StagedComparison> {
  const sum: Record<keyof GuardFigures, number> = {
    keysNamed: 0,
    keysUnknown: 0,
    keysInStock: 0,
    keysZeroed: 0,
    sumBefore: 0,
    sumAfter: 0,
  };
  let examples: GuardExample[] = [];
  for (const range of keyRanges(db, table, keys)) {
    const part = compareStaged(db, offeredSet(db, { table, range }));
    for (const k of Object.keys(sum) as Array<keyof GuardFigures>) sum[k] += part[k];
    examples = [...examples, ...part.examples].sort(byExampleRank).slice(0, GUARD_EXAMPLES);
    await pause();
  }
  return { ...sum, examples };
}

/** compareStaged's order of examples: zeroed first, the largest drop first, then by key. */
function byExampleRank(a: GuardExample, b: GuardExample): number {
  return (
    Number(b.quantity === 0) - Number(a.quantity === 0) ||
    b.portal - b.quantity - (a.portal - a.quantity) ||
    bytewise(a.kind, b.kind) ||
    bytewise(a.dc, b.dc) ||
    bytewise(a.sku, b.sku)
  );
}

/** SQLite's BINARY order of two texts (their UTF-8 bytes). */
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const STAGE_BATCH = 5000;

/**
 * Fills temp.guard_rows with the given rows (replacing what it held): for sources whose rows are
 * in memory (a snapshot read, `plan`). Keys must be distinct (the collectors deduplicate: the
 * last row of a key wins). Works on a read-only connection (TEMP is private).
 */
export function stageGuardRows(
  db: StateDb,
  sets: ReadonlyArray<{ readonly kind: StockKind; readonly rows: Iterable<DesiredInput> }>,
): void {
  db.exec(
    // No key index: the rows arrive with distinct keys, and the query walks them once, looking
    // each up in remote_stock's primary key.
    `CREATE TEMP TABLE IF NOT EXISTS guard_rows (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, quantity INTEGER NOT NULL);
     DELETE FROM temp.guard_rows;`,
  );
  const stage = db.prepare<[string]>(
    `INSERT INTO temp.guard_rows (kind, dc, sku, quantity)
     SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
  );
  const run = db.transaction(() => {
    for (const set of sets) {
      let batch: Array<[StockKind, string, string, number]> = [];
      for (const r of set.rows) {
        batch.push([set.kind, r.dc, r.sku, r.quantity]);
        if (batch.length === STAGE_BATCH) {
          stage.run(JSON.stringify(batch));
          batch = [];
        }
      }
      if (batch.length > 0) stage.run(JSON.stringify(batch));
    }
  });
  run();
}

/** Empties temp.guard_rows (after a check, so a large set does not stay in memory). */
export function clearGuardRows(db: StateDb): void {
  db.exec('DELETE FROM temp.guard_rows');
}

/** Stages the rows, compares them with the portal, and clears the stage. */
export function compareRows(
  db: StateDb,
  sets: ReadonlyArray<{ readonly kind: StockKind; readonly rows: Iterable<DesiredInput> }>,
): StagedComparison {
  stageGuardRows(db, sets);
  try {
    return compareStaged(db, { table: GUARD_STAGE });
  } finally {
    clearGuardRows(db);
  }
}
