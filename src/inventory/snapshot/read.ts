import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { type LocationMap, mapLocation, type OfferSummary } from '../../domain/stockRules.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { applyDesiredStock, type DesiredInput } from '../../state/desiredStock.ts';
import { KeyValueStore } from '../../state/kv.ts';
import type { DcDirectory } from '../dcDirectory.ts';
import { normalizeColumn } from '../validate/kinds.ts';
import { type RowError, validateStockRow } from '../validate/rows.ts';

export interface SnapshotDeps {
  readonly db: StateDb;
  readonly log: Logger;
  /** Path of the ERP's SQLite snapshot (SNAPSHOT_DB). */
  readonly snapshotDb: string;
  /** Must return columns sku, stock_quantity (SNAPSHOT_FACTORY_QUERY). */
  readonly factoryQuery: string;
  /** Must return columns distribution_centre_code, sku, stock_quantity (SNAPSHOT_DC_QUERY). */
  readonly dcQuery: string;
  readonly dcDirectory: DcDirectory;
  readonly maxSkuLength: number;
  /** ERP location code → portal DC code (STOCK_RULES_FILE), applied before the rows are checked. */
  readonly locations?: LocationMap;
  readonly clock?: Clock;
  /** How long to wait for an ERP writer's lock, in milliseconds (default 2000). */
  readonly busyTimeoutMs?: number;
}

export interface SnapshotCounts {
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  /** Rows superseded by a later row with the same key (the last one wins). */
  readonly duplicateRows: number;
  /** Rows whose location code was mapped to a portal DC code (`locations`). */
  readonly locationsMapped: number;
}

export type SnapshotOutcome =
  | {
      readonly status: 'read';
      readonly factory: SnapshotCounts;
      readonly dc: SnapshotCounts;
      /** Keys whose offered quantity now differs from the known remote one. */
      readonly pendingKeys: number;
      /** What the stock rules made of the ERP's quantities, per kind. */
      readonly offers: { readonly factory: OfferSummary; readonly dc: OfferSummary };
      readonly ms: number;
    }
  | {
      readonly status: 'failed';
      /** missing | locked | corrupt | query | changed | dc_list | error */
      readonly code: string;
      readonly reason: string;
    };

/** A rejected snapshot row; `row` counts rows of the query's result from 1. */
export interface SnapshotRejection extends RowError {
  readonly query: 'factory' | 'dc';
  readonly row: number;
}

const LOGGED_REJECTIONS = 20;

class SnapshotFailure extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

interface Gathered {
  readonly rows: Map<string, DesiredInput>;
  counts: {
    rowsRead: number;
    rowsAccepted: number;
    rowsRejected: number;
    duplicateRows: number;
    locationsMapped: number;
  };
}

/**
 * Reads the ERP snapshot: a fresh read-only connection, both queries in one read transaction
 * (one consistent picture), rows checked like file rows (bad ones logged and counted), then the
 * accepted rows written as desired stock (source 'snapshot') in one transaction. SKUs absent
 * from the snapshot are left as they are. Never throws: a missing, locked, half-written or
 * corrupt file gives `{status: 'failed'}` and a `snapshot.failed` log line; try again later.
 */
export async function readSnapshot(deps: SnapshotDeps): Promise<SnapshotOutcome> {
  const clock = deps.clock ?? systemClock;
  const started = clock.now();
  const rejections: SnapshotRejection[] = [];
  try {
    const before = fingerprint(deps.snapshotDb);
    const { factory, dc } = readBoth(deps, rejections);
    if (fingerprint(deps.snapshotDb) !== before) {
      throw new SnapshotFailure('changed', 'the snapshot changed while it was read');
    }
    await checkDcs(deps, dc, rejections);
    const now = clock.now();
    // The snapshot's rows are as new as the ERP's last write to it (file or WAL), like a file's.
    const writtenAt = snapshotWrittenAt(deps.snapshotDb);
    const pending = deps.db.transaction(() => {
      const a = applyDesiredStock(
        deps.db,
        'factory',
        factory.rows.values(),
        'snapshot',
        now,
        writtenAt,
      );
      const b = applyDesiredStock(deps.db, 'dc', dc.rows.values(), 'snapshot', now, writtenAt);
      new KeyValueStore(deps.db).set('snapshot.applied_at', now, now);
      return { keys: a.differing + b.differing, offers: { factory: a.offers, dc: b.offers } };
    })();
    const outcome: SnapshotOutcome = {
      status: 'read',
      factory: { ...factory.counts },
      dc: { ...dc.counts },
      pendingKeys: pending.keys,
      offers: pending.offers,
      ms: clock.now() - started,
    };
    if (rejections.length > 0) {
      deps.log.warn(
        {
          event: 'snapshot.rows_rejected',
          rejected: factory.counts.rowsRejected + dc.counts.rowsRejected,
          sample: rejections.slice(0, LOGGED_REJECTIONS),
        },
        'snapshot rows rejected',
      );
    }
    deps.log.info(
      {
        event: 'snapshot.read',
        file: deps.snapshotDb,
        factory: outcome.factory,
        dc: outcome.dc,
        pendingKeys: pending.keys,
        offers: pending.offers,
        ms: outcome.ms,
      },
      'snapshot read',
    );
    return outcome;
  } catch (err) {
    const failure = describe(err);
    deps.log.warn(
      {
        event: 'snapshot.failed',
        file: deps.snapshotDb,
        code: failure.code,
        reason: failure.reason,
      },
      `snapshot not read: ${failure.reason}`,
    );
    return { status: 'failed', ...failure };
  }
}

function snapshotWrittenAt(path: string): number {
  return Math.max(
    ...[path, `${path}-wal`].map((p) =>
      Math.floor(statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0),
    ),
  );
}

function fingerprint(path: string): string {
  const parts = [path, `${path}-wal`].map((p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-';
  });
  if (parts[0] === '-') throw new SnapshotFailure('missing', 'the snapshot file does not exist');
  return parts.join('|');
}

function readBoth(
  deps: SnapshotDeps,
  rejections: SnapshotRejection[],
): { factory: Gathered; dc: Gathered } {
  let snap: Database.Database;
  try {
    snap = new Database(deps.snapshotDb, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new SnapshotFailure('missing', `cannot open the snapshot: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    snap.pragma(`busy_timeout = ${deps.busyTimeoutMs ?? 2000}`);
    snap.exec('BEGIN');
    try {
      const factory = gather(snap, deps, 'factory', deps.factoryQuery, rejections);
      const dc = gather(snap, deps, 'dc', deps.dcQuery, rejections);
      return { factory, dc };
    } finally {
      if (snap.inTransaction) snap.exec('COMMIT');
    }
  } finally {
    snap.close();
  }
}

function gather(
  snap: Database.Database,
  deps: SnapshotDeps,
  which: 'factory' | 'dc',
  sql: string,
  rejections: SnapshotRejection[],
): Gathered {
  let stmt: Database.Statement;
  try {
    stmt = snap.prepare(sql);
  } catch (err) {
    throw queryFailure(which, err);
  }
  if (!stmt.reader) throw new SnapshotFailure('query', `the ${which} query returns no rows`);
  const columns = stmt.columns().map((c) => normalizeColumn(c.name));
  const need =
    which === 'dc'
      ? ['distribution_centre_code', 'sku', 'stock_quantity']
      : ['sku', 'stock_quantity'];
  const missing = need.filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    throw new SnapshotFailure(
      'query',
      `the ${which} query must return columns ${need.join(', ')} (missing: ${missing.join(', ')})`,
    );
  }
  const kind = which === 'dc' ? 'dc_stock' : 'factory_stock';
  const rows = new Map<string, DesiredInput>();
  const counts = {
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    duplicateRows: 0,
    locationsMapped: 0,
  };
  const locations = which === 'dc' ? deps.locations : undefined;
  try {
    for (const raw of stmt.raw(true).iterate() as Iterable<unknown[]>) {
      counts.rowsRead++;
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) fields[columns[i]!] = raw[i];
      if (locations !== undefined) {
        const m = mapLocation(fields.distribution_centre_code, locations);
        if (m.mapped) {
          fields.distribution_centre_code = m.value;
          counts.locationsMapped++;
        }
      }
      const r = validateStockRow(kind, fields, deps);
      if (!r.ok) {
        counts.rowsRejected++;
        if (rejections.length < LOGGED_REJECTIONS) {
          rejections.push({
            query: which,
            row: counts.rowsRead,
            field: r.field,
            reason: r.reason,
            ...(r.value === undefined ? {} : { value: r.value }),
          });
        }
        continue;
      }
      counts.rowsAccepted++;
      const key = `${r.row.dc}\u0000${r.row.sku}`;
      if (rows.has(key)) {
        counts.duplicateRows++;
        rows.delete(key);
      }
      rows.set(key, r.row);
    }
  } catch (err) {
    if (err instanceof SnapshotFailure) throw err;
    throw queryFailure(which, err);
  }
  return { rows, counts };
}

/** Rejects DC rows whose centre is unknown or inactive (refreshing the list once if needed). */
async function checkDcs(
  deps: SnapshotDeps,
  dc: Gathered,
  rejections: SnapshotRejection[],
): Promise<void> {
  const codes = new Set([...dc.rows.values()].map((r) => r.dc));
  const dir = deps.dcDirectory;
  if ([...codes].some((c) => dir.status(c) === 'unknown') && dir.canRefresh) {
    try {
      await dir.refresh();
    } catch (err) {
      throw new SnapshotFailure(
        'dc_list',
        `unknown distribution centres and the list could not be refreshed: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
  for (const [key, row] of dc.rows) {
    const status = dir.status(row.dc);
    if (status === 'active') continue;
    dc.rows.delete(key);
    dc.counts.rowsAccepted--;
    dc.counts.rowsRejected++;
    if (rejections.length < LOGGED_REJECTIONS) {
      rejections.push({
        query: 'dc',
        row: 0,
        field: 'distribution_centre_code',
        reason: `${status} distribution centre`,
        value: row.dc,
      });
    }
  }
}

function queryFailure(which: string, err: unknown): SnapshotFailure {
  const f = describe(err);
  if (f.code !== 'error') return new SnapshotFailure(f.code, f.reason, { cause: err });
  return new SnapshotFailure('query', `the ${which} query failed: ${(err as Error).message}`, {
    cause: err,
  });
}

function describe(err: unknown): { code: string; reason: string } {
  if (err instanceof SnapshotFailure) return { code: err.code, reason: err.message };
  const code = String((err as { code?: unknown }).code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { code: 'locked', reason: `the snapshot is locked by another process: ${message}` };
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')
    return {
      code: 'corrupt',
      reason: `the snapshot is corrupt or not a SQLite database: ${message}`,
    };
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOENT')
    return { code: 'missing', reason: `the snapshot cannot be opened: ${message}` };
  return { code: 'error', reason: message };
}
