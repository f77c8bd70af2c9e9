import type { StockKind } from '../domain/stock.ts';
import type { StateDb } from './db.ts';
import type { ApplyResult } from './desiredStock.ts';

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
 * The merge follows the sync engine's rule for each key, as applyDesiredStock does: rows older
 * than the stored one (`source_at`) are skipped; a stored failure with another quantity is
 * removed; desired_stock is upserted (with `source_file_id`, `source_line`); a key whose desired
 * quantity differs from the known remote one becomes pending.
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
  // One chunk of the set, with what each key meets in state.db, looked up once.
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS apply_chunk (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, quantity INTEGER NOT NULL,
       line INTEGER NOT NULL, superseded INTEGER NOT NULL, remote INTEGER, failure INTEGER)`,
  );
  return {
    get: db.prepare<[number], Row>('SELECT * FROM staged_applies WHERE id = ?'),
    clear: db.prepare('DELETE FROM temp.apply_chunk'),
    fill: db.prepare<[{ k: string; d: string; s: string; limit: number; sourceAt: number }]>(
      `INSERT INTO temp.apply_chunk (kind, dc, sku, quantity, line, superseded, remote, failure)
       SELECT s.kind, s.dc, s.sku, s.quantity, s.line,
              coalesce(d.source_at > @sourceAt, 0), r.quantity, f.quantity
         FROM (SELECT * FROM staged.rows WHERE (kind, dc, sku) > (@k, @d, @s)
                ORDER BY kind, dc, sku LIMIT @limit) s
         LEFT JOIN desired_stock d ON d.kind = s.kind AND d.dc = s.dc AND d.sku = s.sku
         LEFT JOIN remote_stock r ON r.kind = s.kind AND r.dc = s.dc AND r.sku = s.sku
         LEFT JOIN stock_failures f ON f.kind = s.kind AND f.dc = s.dc AND f.sku = s.sku
        ORDER BY s.kind, s.dc, s.sku`,
    ),
    tally: db.prepare<
      [],
      {
        last_kind: string;
        last_dc: string;
        last_sku: string;
        superseded: number;
        differing: number;
        failing: number;
      }
    >(
      `SELECT (SELECT kind FROM temp.apply_chunk ORDER BY rowid DESC LIMIT 1) AS last_kind,
              (SELECT dc FROM temp.apply_chunk ORDER BY rowid DESC LIMIT 1) AS last_dc,
              (SELECT sku FROM temp.apply_chunk ORDER BY rowid DESC LIMIT 1) AS last_sku,
              coalesce(SUM(superseded), 0) AS superseded,
              coalesce(SUM(NOT superseded AND remote IS NOT quantity), 0) AS differing,
              coalesce(SUM(NOT superseded AND failure IS NOT NULL AND failure != quantity), 0) AS failing
         FROM temp.apply_chunk`,
    ),
    clearFailures: db.prepare(
      `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
         SELECT kind, dc, sku FROM temp.apply_chunk
          WHERE NOT superseded AND failure IS NOT NULL AND failure != quantity)`,
    ),
    upsert: db.prepare<[{ source: string; now: number; sourceAt: number; fileId: number | null }]>(
      `INSERT INTO desired_stock
         (kind, dc, sku, quantity, source, updated_at, source_at, source_file_id, source_line)
       SELECT kind, dc, sku, quantity, @source, @now, @sourceAt, @fileId, line
         FROM temp.apply_chunk WHERE NOT superseded ORDER BY rowid
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source,
             updated_at = excluded.updated_at, source_at = excluded.source_at,
             source_file_id = excluded.source_file_id, source_line = excluded.source_line`,
    ),
    markPending: db.prepare<[{ now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, @now FROM temp.apply_chunk
        WHERE NOT superseded AND remote IS NOT quantity ORDER BY rowid
       ON CONFLICT DO NOTHING`,
    ),
    advance: db.prepare(
      `UPDATE staged_applies
          SET after_kind = @kind, after_dc = @dc, after_sku = @sku,
              rows = rows + @rows, differing = differing + @differing,
              newly_pending = newly_pending + @newlyPending,
              failures_cleared = failures_cleared + @failuresCleared,
              superseded = superseded + @superseded
        WHERE id = @id`,
    ),
    remove: db.prepare<[number]>('DELETE FROM staged_applies WHERE id = ?'),
    // The fast path: straight from the staged range, when no key of the range is newer in
    // desired_stock and none has a stored failure (the usual case).
    upTo: db.prepare<[Cursor & { limit: number }], Key>(
      `SELECT kind, dc, sku FROM staged.rows WHERE (kind, dc, sku) > (@k, @d, @s)
        ORDER BY kind, dc, sku LIMIT 1 OFFSET @limit - 1`,
    ),
    lastKey: db.prepare<[Cursor], Key>(
      `SELECT kind, dc, sku FROM staged.rows WHERE (kind, dc, sku) > (@k, @d, @s)
        ORDER BY kind DESC, dc DESC, sku DESC LIMIT 1`,
    ),
    newerCount: db
      .prepare<[Range & { sourceAt: number }]>(
        `SELECT COUNT(*) FROM desired_stock WHERE ${RANGE} AND source_at > @sourceAt`,
      )
      .pluck(true),
    failureCount: db
      .prepare<[Range]>(`SELECT COUNT(*) FROM stock_failures WHERE ${RANGE}`)
      .pluck(true),
    remoteCount: db
      .prepare<[Range]>(`SELECT COUNT(*) FROM remote_stock WHERE ${RANGE}`)
      .pluck(true),
    upsertRange: db.prepare<
      [Range & { source: string; now: number; sourceAt: number; fileId: number | null }]
    >(
      `INSERT INTO desired_stock
         (kind, dc, sku, quantity, source, updated_at, source_at, source_file_id, source_line)
       SELECT kind, dc, sku, quantity, @source, @now, @sourceAt, @fileId, line
         FROM staged.rows WHERE ${RANGE} ORDER BY kind, dc, sku
       ON CONFLICT (kind, dc, sku) DO UPDATE
         SET quantity = excluded.quantity, source = excluded.source,
             updated_at = excluded.updated_at, source_at = excluded.source_at,
             source_file_id = excluded.source_file_id, source_line = excluded.source_line`,
    ),
    pendingAll: db.prepare<[Range & { now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, @now FROM staged.rows WHERE ${RANGE} ORDER BY kind, dc, sku
       ON CONFLICT DO NOTHING`,
    ),
    differingCount: db
      .prepare<[Range]>(
        `SELECT COUNT(*) FROM staged.rows s
           LEFT JOIN remote_stock r ON r.kind = s.kind AND r.dc = s.dc AND r.sku = s.sku
          WHERE ${S_RANGE} AND r.quantity IS NOT s.quantity`,
      )
      .pluck(true),
    pendingDiffering: db.prepare<[Range & { now: number }]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT s.kind, s.dc, s.sku, @now FROM staged.rows s
         LEFT JOIN remote_stock r ON r.kind = s.kind AND r.dc = s.dc AND r.sku = s.sku
        WHERE ${S_RANGE} AND r.quantity IS NOT s.quantity ORDER BY s.kind, s.dc, s.sku
       ON CONFLICT DO NOTHING`,
    ),
  };
}

interface Key {
  kind: string;
  dc: string;
  sku: string;
}
interface Cursor {
  k: string;
  d: string;
  s: string;
}
type Range = Cursor & { hk: string; hd: string; hs: string };
/** Keys after the cursor, up to and including the chunk's last key. */
const RANGE = '(kind, dc, sku) > (@k, @d, @s) AND (kind, dc, sku) <= (@hk, @hd, @hs)';
const S_RANGE = '(s.kind, s.dc, s.sku) > (@k, @d, @s) AND (s.kind, s.dc, s.sku) <= (@hk, @hd, @hs)';

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
  const s = cached(db);
  const tx = db.transaction((): ChunkResult => {
    const row = s.get.get(id);
    if (row === undefined) throw new Error(`staged apply ${id} is not recorded`);
    const cursor: Cursor = {
      k: row.after_kind ?? '',
      d: row.after_dc ?? '',
      s: row.after_sku ?? '',
    };
    const hi = s.upTo.get({ ...cursor, limit }) ?? s.lastKey.get(cursor);
    if (hi !== undefined) {
      const range: Range = { ...cursor, hk: hi.kind, hd: hi.dc, hs: hi.sku };
      if (
        (s.newerCount.get({ ...range, sourceAt: row.source_at }) as number) === 0 &&
        (s.failureCount.get(range) as number) === 0
      ) {
        return fastChunk(s, row, range);
      }
    }
    s.clear.run();
    const filled = s.fill.run({
      k: row.after_kind ?? '',
      d: row.after_dc ?? '',
      s: row.after_sku ?? '',
      limit,
      sourceAt: row.source_at,
    }).changes;
    if (filled === 0) {
      s.remove.run(id);
      const totals = totalsOf(row);
      onDone?.(totals);
      return { done: true, totals };
    }
    const t = s.tally.get()!;
    const failuresCleared = t.failing > 0 ? s.clearFailures.run().changes : 0;
    s.upsert.run({
      source: row.source,
      now: row.applied_at,
      sourceAt: row.source_at,
      fileId: row.file_id,
    });
    const newlyPending = t.differing > 0 ? s.markPending.run({ now: row.applied_at }).changes : 0;
    s.clear.run();
    const counts = {
      // As applyDesiredStock counts: every key of the set, superseded ones included.
      rows: filled,
      differing: t.differing,
      newlyPending,
      failuresCleared,
      superseded: t.superseded,
    };
    s.advance.run({ id, kind: t.last_kind, dc: t.last_dc, sku: t.last_sku, ...counts });
    const before = totalsOf(row);
    return {
      done: false,
      totals: {
        rows: before.rows + counts.rows,
        differing: before.differing + counts.differing,
        newlyPending: before.newlyPending + counts.newlyPending,
        failuresCleared: before.failuresCleared + counts.failuresCleared,
        superseded: before.superseded + counts.superseded,
      },
    };
  });
  return tx.immediate();
}

/** A chunk with nothing newer in desired_stock and no stored failure: no per-key lookups there. */
function fastChunk(s: Statements, row: Row, range: Range): ChunkResult {
  // Every key of the range is written (no newer row, so the upsert updates or inserts each).
  const n = s.upsertRange.run({
    ...range,
    source: row.source,
    now: row.applied_at,
    sourceAt: row.source_at,
    fileId: row.file_id,
  }).changes;
  let differing: number;
  let newlyPending: number;
  if ((s.remoteCount.get(range) as number) === 0) {
    // Nothing known of these keys on the portal: every one differs.
    differing = n;
    newlyPending = s.pendingAll.run({ ...range, now: row.applied_at }).changes;
  } else {
    differing = s.differingCount.get(range) as number;
    newlyPending = s.pendingDiffering.run({ ...range, now: row.applied_at }).changes;
  }
  const counts = { rows: n, differing, newlyPending, failuresCleared: 0, superseded: 0 };
  s.advance.run({ id: row.id, kind: range.hk, dc: range.hd, sku: range.hs, ...counts });
  const before = totalsOf(row);
  return {
    done: false,
    totals: {
      rows: before.rows + n,
      differing: before.differing + differing,
      newlyPending: before.newlyPending + newlyPending,
      failuresCleared: before.failuresCleared,
      superseded: before.superseded,
    },
  };
}

type Statements = ReturnType<typeof statements>;

/**
 * Prepared once per connection: a statement lives (and holds SQLite memory) until the garbage
 * collector finalizes it, so preparing per chunk made the memory grow with the file. Statements
 * naming `staged` are recompiled by SQLite when another scratch file is attached.
 */
const prepared = new WeakMap<StateDb, Statements>();

function cached(db: StateDb): Statements {
  let s = prepared.get(db);
  if (s === undefined) {
    s = statements(db);
    prepared.set(db, s);
  }
  return s;
}

/** The kinds present in the attached staged set. */
export function stagedKinds(db: StateDb): StockKind[] {
  return db.prepare('SELECT DISTINCT kind FROM staged.rows').pluck(true).all() as StockKind[];
}
