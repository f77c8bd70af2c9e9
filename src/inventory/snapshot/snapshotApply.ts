import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { recordStagedApply } from '../../state/staging/stagedApply.ts';

/** How many rows each of the snapshot's queries returned. */
export interface SnapshotRowsRead {
  readonly factory: number;
  readonly dc: number;
}

/**
 * The commit point of a snapshot's staged apply (run inside applyStagedSet's `decide`), for a
 * read and for a held read an operator releases alike: records the apply (source 'snapshot', its
 * rows as new as the ERP's last write to the snapshot: keys a newer file set since keep theirs)
 * and, in kv, when it was applied and how many rows each query returned (the guard rails compare
 * the next read's with them: an emptied table). `heldId`: the held read this apply releases.
 * Returns the apply's id.
 */
export function recordSnapshotApply(
  db: StateDb,
  stagedFile: string,
  rowsRead: SnapshotRowsRead,
  writtenAt: number,
  now: number,
  heldId: number | null = null,
): number {
  const applyId = recordStagedApply(db, {
    stagedFile,
    source: 'snapshot',
    fileId: null,
    sourceAt: writtenAt,
    appliedAt: now,
    heldId,
  });
  const kv = new KeyValueStore(db);
  kv.set('snapshot.applied_at', now, now);
  kv.set('snapshot.last_rows', { factory: rowsRead.factory, dc: rowsRead.dc }, now);
  return applyId;
}
