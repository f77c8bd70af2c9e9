import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type LocationMap, mapLocation } from '../../domain/stockRules.ts';
import { normalizeColumn } from '../parse/header.ts';
import { createYielder } from '../parse/yielder.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import { createDcCheck, type DcCheck, dcRejection } from '../validate/dcCheck.ts';
import { type DcDirectory, DcListUnavailableError } from '../validate/dcDirectory.ts';
import { type RowError, validateStockRow } from '../validate/rows.ts';
import { queryFailure, SnapshotFailure } from './snapshotFailure.ts';

/** Reading the ERP's SQLite snapshot: its files, both queries, each row checked and staged. */

/** What reading the snapshot's rows needs. */
export interface SnapshotQueryDeps {
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
  /** How long to wait for an ERP writer's lock, in milliseconds (default 2000). */
  readonly busyTimeoutMs?: number;
}

/** A rejected snapshot row; `row` counts rows of the query's result from 1. */
export interface SnapshotRejection extends RowError {
  readonly query: 'factory' | 'dc';
  readonly row: number;
}

export const LOGGED_REJECTIONS = 20;

/**
 * The file and its WAL; an empty WAL counts as none: opening a WAL database whose writer closed
 * cleanly (its WAL checkpointed and removed) creates an empty one, even read-only.
 */
function snapshotFiles(path: string) {
  return [path, `${path}-wal`].map((p, i) => {
    const st = statSync(p, { throwIfNoEntry: false });
    return st === undefined || (i === 1 && st.size === 0) ? undefined : st;
  });
}

export function snapshotWrittenAt(path: string): number {
  return Math.max(...snapshotFiles(path).map((st) => Math.floor(st?.mtimeMs ?? 0)));
}

export function fingerprint(path: string): string {
  const parts = snapshotFiles(path).map((st) => (st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-'));
  if (parts[0] === '-') throw new SnapshotFailure('missing', 'the snapshot file does not exist');
  return parts.join('|');
}

export type Counts = {
  rowsRead: number;
  rowsAccepted: number;
  rowsRejected: number;
  duplicateRows: number;
  locationsMapped: number;
};

export async function readBoth(
  deps: SnapshotQueryDeps,
  staging: StagingFile,
  rejections: SnapshotRejection[],
): Promise<{ factory: Counts; dc: Counts }> {
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
      const dcCheck = createDcCheck(deps.dcDirectory);
      const factory = await gather(snap, deps, 'factory', deps.factoryQuery, staging, rejections);
      const dc = await gather(snap, deps, 'dc', deps.dcQuery, staging, rejections, dcCheck);
      return { factory, dc };
    } finally {
      if (snap.inTransaction) snap.exec('COMMIT');
    }
  } finally {
    snap.close();
  }
}

async function gather(
  snap: Database.Database,
  deps: SnapshotQueryDeps,
  which: 'factory' | 'dc',
  sql: string,
  staging: StagingFile,
  rejections: SnapshotRejection[],
  dcCheck?: DcCheck,
): Promise<Counts> {
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
  const counts: Counts = {
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    duplicateRows: 0,
    locationsMapped: 0,
  };
  const locations = which === 'dc' ? deps.locations : undefined;
  const reject = (e: RowError) => {
    counts.rowsRejected++;
    if (rejections.length < LOGGED_REJECTIONS) {
      rejections.push({
        query: which,
        row: counts.rowsRead,
        field: e.field,
        reason: e.reason,
        ...(e.value === undefined ? {} : { value: e.value }),
      });
    }
  };
  const rows = stmt.raw(true).iterate() as IterableIterator<unknown[]>;
  try {
    const yielder = createYielder();
    for (;;) {
      // The event loop runs every 10 ms of reading (the read transaction stays open).
      if (yielder.due()) {
        staging.flush();
        await staging.ready();
        await yielder.pause();
      }
      const next = rows.next();
      if (next.done) break;
      const raw = next.value;
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
        reject(r);
        continue;
      }
      const row = r.row;
      if (dcCheck !== undefined) {
        const checked = dcCheck.status(row.dc);
        const status = typeof checked === 'string' ? checked : await checked;
        if (status !== 'active') {
          reject({
            field: 'distribution_centre_code',
            reason: dcRejection(status),
            value: row.dc,
          });
          continue;
        }
      }
      counts.rowsAccepted++;
      staging.put(which, row.dc, row.sku, row.quantity, counts.rowsRead);
    }
    staging.flush();
  } catch (err) {
    rows.return?.();
    if (err instanceof SnapshotFailure) throw err;
    if (err instanceof DcListUnavailableError) {
      throw new SnapshotFailure(
        'dc_list',
        `unknown distribution centres and the list could not be refreshed: ${(err.cause as Error | undefined)?.message ?? err.message}`,
        { cause: err },
      );
    }
    throw queryFailure(which, err);
  }
  return counts;
}
