import { basename } from 'node:path';
import type { Statement } from 'better-sqlite3';
import {
  emptyOfferSummary,
  mergeOfferSummaries,
  type OfferSummary,
} from '../../domain/stockRules.ts';
import { perConnection, type StateDb } from '../db.ts';
import type { ApplyResult } from '../stock/desiredStock.ts';
import { type Cursor, mergeChunk } from './stagedMerge.ts';

/**
 * The apply of a staged set (see src/inventory/staging/stagingFile.ts) to desired stock, in short transactions.
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
 * The merge follows the sync engine's rule for each key: the stock rules (stock/ruleOffers.ts) turn
 * each staged ERP quantity into the offered one as the chunk is taken; rows older than the
 * stored one (`source_at`) are skipped; a stored failure with another quantity (or of a key now
 * excluded) is removed; desired_stock is upserted (`erp_quantity`, offered `quantity`, `rule`,
 * `excluded`, `source_file_id`, `source_line`); a key whose offered quantity differs from the
 * known remote one becomes pending, an excluded key never (and stops being pending). What the
 * rules did is summed up per chunk in `offers`, for the report.
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
  /** The held snapshot read whose release this apply is, if it is one. */
  readonly heldId?: number | null;
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
  held_id: number | null;
}

const toApply = (r: Row): StagedApply => ({
  id: r.id,
  stagedFile: r.staged_file,
  source: r.source,
  fileId: r.file_id,
  sourceAt: r.source_at,
  appliedAt: r.applied_at,
  heldId: r.held_id,
});

const totalsOf = (r: Row): ApplyResult => ({
  rows: r.rows,
  differing: r.differing,
  newlyPending: r.newly_pending,
  failuresCleared: r.failures_cleared,
  superseded: r.superseded,
  offers: r.offers === null ? emptyOfferSummary() : (JSON.parse(r.offers) as OfferSummary),
});

/**
 * Records the decision to apply a staged set (call inside the commit transaction). Ids are never
 * given twice (AUTOINCREMENT), even once the row of a finished apply is gone.
 */
export function recordStagedApply(db: StateDb, a: NewStagedApply): number {
  return Number(
    db
      .prepare(
        `INSERT INTO staged_applies (staged_file, source, file_id, source_at, applied_at, held_id)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(a.stagedFile, a.source, a.fileId, a.sourceAt, a.appliedAt, a.heldId ?? null)
      .lastInsertRowid,
  );
}

/** Applies decided but not yet merged to the end, oldest first. */
export function unfinishedStagedApplies(db: StateDb): StagedApply[] {
  return db.prepare<[], Row>('SELECT * FROM staged_applies ORDER BY id').all().map(toApply);
}

/** An unfinished apply as `status` shows it. */
export interface UnfinishedApply {
  readonly id: number;
  /** `file:<ledger id>` or `snapshot`. */
  readonly source: string;
  readonly fileId: number | null;
  /** The held snapshot read it releases, if it is a release. */
  readonly heldId: number | null;
  /** When its apply was decided (the commit point), epoch ms. */
  readonly decidedAt: number;
  /** Keys merged so far. */
  readonly keysMerged: number;
}

/** Applies decided and not merged to the end (one being merged, or one a writer left), oldest first. */
export function unfinishedApplies(db: StateDb): UnfinishedApply[] {
  return db
    .prepare<[], UnfinishedApply>(
      `SELECT id, source, file_id AS fileId, held_id AS heldId, applied_at AS decidedAt,
              rows AS keysMerged
         FROM staged_applies ORDER BY id`,
    )
    .all();
}

/** The unfinished apply of an inbox file, if any. */
export function stagedApplyOfFile(db: StateDb, fileId: number): StagedApply | undefined {
  const r = db.prepare<[number], Row>('SELECT * FROM staged_applies WHERE file_id = ?').get(fileId);
  return r && toApply(r);
}

/**
 * Makes a scratch file's tables reachable from the state connection as schema `staged`, read
 * once in key order (a small cache will do; the state connection's is 16 MiB). `fresh`: the set
 * was just staged and is not yet decided, so a crash loses nothing it holds (no syncs).
 */
export function attachStaged(db: StateDb, path: string, opts: { fresh?: boolean } = {}): void {
  db.prepare('ATTACH DATABASE ? AS staged').run(path);
  if (opts.fresh) db.exec('PRAGMA staged.synchronous = OFF');
  db.exec('PRAGMA staged.cache_size = -2048');
}

/** Drops the record of an apply that cannot finish (its scratch file is gone). */
export function dropStagedApply(db: StateDb, id: number): void {
  db.prepare('DELETE FROM staged_applies WHERE id = ?').run(id);
}

export function detachStaged(db: StateDb): void {
  if (db.prepare("SELECT 1 FROM pragma_database_list WHERE name = 'staged'").get() !== undefined) {
    db.exec('DETACH DATABASE staged');
  }
}

export interface ChunkResult {
  readonly done: boolean;
  /** Counts so far (all of them once done). */
  readonly totals: ApplyResult;
}

interface Statements {
  synchronous: Statement;
  autocheckpoint: Statement;
  /** A setting's statement, prepared once per text (a chunk sets four: db.pragma() prepares each time). */
  pragma(setting: string): Statement;
  get: Statement<[number], Row>;
  attached: Statement<[], string | undefined>;
  more: Statement<[{ k: string; d: string; s: string }]>;
  advance: Statement;
  remove: Statement<[number]>;
}

const prepared = perConnection((db): Statements => {
  const settings = new Map<string, Statement>();
  return {
    synchronous: db.prepare('PRAGMA synchronous').pluck(true),
    autocheckpoint: db.prepare('PRAGMA wal_autocheckpoint').pluck(true),
    pragma(setting) {
      let st = settings.get(setting);
      if (st === undefined) {
        st = db.prepare(`PRAGMA ${setting}`);
        settings.set(setting, st);
      }
      return st;
    },
    get: db.prepare<[number], Row>('SELECT * FROM staged_applies WHERE id = ?'),
    attached: db
      .prepare<[], string>("SELECT file FROM pragma_database_list WHERE name = 'staged'")
      .pluck(true),
    more: db.prepare<[{ k: string; d: string; s: string }]>(
      'SELECT 1 FROM staged.rows WHERE (kind, dc, sku) > (@k, @d, @s) LIMIT 1',
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
});

const cursorOf = (r: Row): Cursor => ({
  kind: r.after_kind ?? '',
  dc: r.after_dc ?? '',
  sku: r.after_sku ?? '',
});

/**
 * Merges the next `limit` keys of the apply `id` (its scratch file ATTACHed as `staged`) in one
 * IMMEDIATE transaction (stagedMerge.ts). When none is left, the same transaction deletes the
 * apply's row and runs `onDone` with the totals (the caller's own records: the file's report).
 *
 * Durability: a chunk that leaves keys to merge commits with `synchronous = NORMAL` (no flush of
 * the WAL): lost by a power cut, it is merged again from the durable cursor, which moves in the
 * same transaction. The transaction that ends the apply commits as the connection is set (FULL),
 * which flushes every chunk before it. Such a chunk also checkpoints less often
 * (MERGE_CHECKPOINT_PAGES), or not at all while a thread of its own checkpoints the WAL
 * (walCheckpoints.ts: the connection's wal_autocheckpoint is 0 then). Both settings are back
 * before anything else runs.
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
    checkOwnership(s, row);
    const chunk = mergeChunk(db, {
      after: cursorOf(row),
      limit,
      source: row.source,
      now: row.applied_at,
      sourceAt: row.source_at,
      fileId: row.file_id,
    });
    if (chunk === undefined) {
      s.remove.run(id);
      const totals = totalsOf(row);
      onDone?.(totals);
      return { done: true, totals };
    }
    const offers = mergeOfferSummaries(totalsOf(row).offers, chunk.offers);
    s.advance.run({
      id,
      kind: chunk.last.kind,
      dc: chunk.last.dc,
      sku: chunk.last.sku,
      rows: chunk.rows,
      differing: chunk.differing,
      newlyPending: chunk.newlyPending,
      failuresCleared: chunk.failuresCleared,
      superseded: chunk.superseded,
      offers: JSON.stringify(offers),
    });
    return {
      done: false,
      totals: {
        rows: row.rows + chunk.rows,
        differing: row.differing + chunk.differing,
        newlyPending: row.newly_pending + chunk.newlyPending,
        failuresCleared: row.failures_cleared + chunk.failuresCleared,
        superseded: row.superseded + chunk.superseded,
        offers,
      },
    };
  });
  const row = s.get.get(id);
  if (row !== undefined) checkOwnership(s, row);
  const more = row !== undefined && s.more.get(keyParams(cursorOf(row))) !== undefined;
  if (!more) return tx.immediate();
  const sync = s.synchronous.get() as number;
  const checkpoint = s.autocheckpoint.get() as number;
  s.pragma(`synchronous = ${SYNCHRONOUS_NORMAL}`).run();
  // Off (0) stays off: a checkpoint thread takes them meanwhile (walCheckpoints.ts).
  if (checkpoint > 0) {
    s.pragma(`wal_autocheckpoint = ${Math.max(checkpoint, MERGE_CHECKPOINT_PAGES)}`).run();
  }
  try {
    return tx.immediate();
  } finally {
    s.pragma(`synchronous = ${sync}`).run();
    s.pragma(`wal_autocheckpoint = ${checkpoint}`).run();
  }
}

/**
 * A chunk is merged only from the scratch file its apply recorded: a writer holding another set
 * (an id it took for its own, a set attached for another apply) would otherwise relabel that
 * set's keys with this apply's source and finish this apply with none of its own rows.
 */
function checkOwnership(s: Statements, row: Row): void {
  const attached = s.attached.get();
  if (attached === undefined || basename(attached) !== row.staged_file) {
    throw new Error(
      `staged apply ${row.id} belongs to the scratch file ${row.staged_file}, but ${attached === undefined ? 'none' : basename(attached)} is attached: nothing merged`,
    );
  }
}

const SYNCHRONOUS_NORMAL = 1;

/**
 * WAL pages a chunk's commit lets pile up before it copies them into state.db (8 MiB; SQLite's
 * default, kept for every other commit, is 1,000). Each copy flushes both files, and pages the
 * next chunks write again (the B-trees' right edges) are copied once instead of twice;
 * 0.2 s less for 1M DC rows, each copy under 40 ms (4,096 pages: no faster, 50 ms). The WAL file
 * keeps the size it reached.
 */
const MERGE_CHECKPOINT_PAGES = 2048;

const keyParams = (c: Cursor) => ({ k: c.kind, d: c.dc, s: c.sku });
