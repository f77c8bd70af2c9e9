import type { StateDb } from '../../state/db.ts';
import { applyDesiredStock, type DesiredInput } from '../../state/desiredStock.ts';
import { KeyValueStore } from '../../state/kv.ts';

export interface SnapshotRows {
  readonly factory: Iterable<DesiredInput>;
  readonly dc: Iterable<DesiredInput>;
}

export interface SnapshotApplied {
  /** Keys whose desired quantity now differs from the known remote one. */
  readonly pendingKeys: number;
  /** Rows not applied because a newer file had set their key since the read. */
  readonly superseded: number;
}

/**
 * Writes a held snapshot read's rows, kept aside in state.db, as desired stock (source
 * 'snapshot') in one transaction when an operator releases it, and records when, and how many
 * rows each query returned (the guard rails compare the next read's with them), as a read does.
 * Its rows are in state.db already, so this is one transaction (an operator's one-off, run by the
 * `release` command) rather than the staged, chunked merge of a read.
 */
export function applySnapshotRows(
  db: StateDb,
  rows: SnapshotRows,
  rowsRead: { readonly factory: number; readonly dc: number },
  now: number,
  /** When the ERP wrote the snapshot: rows of keys a newer file set since lose. */
  writtenAt: number,
): SnapshotApplied {
  return db.transaction(() => {
    const a = applyDesiredStock(db, 'factory', rows.factory, 'snapshot', now, writtenAt);
    const b = applyDesiredStock(db, 'dc', rows.dc, 'snapshot', now, writtenAt);
    const kv = new KeyValueStore(db);
    kv.set('snapshot.applied_at', now, now);
    kv.set('snapshot.last_rows', { factory: rowsRead.factory, dc: rowsRead.dc }, now);
    return { pendingKeys: a.differing + b.differing, superseded: a.superseded + b.superseded };
  })();
}
