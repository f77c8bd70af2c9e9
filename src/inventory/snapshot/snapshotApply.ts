import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { recordStagedApply } from '../../state/staging/stagedApplyTable.ts';

/** How many rows each of the snapshot's queries returned. */
export interface SnapshotRowsRead {
  readonly factory: number;
  readonly dc: number;
}

/** One snapshot apply: what `recordSnapshotApply` records. */
export interface SnapshotApply {
  readonly stagedFile: string;
  readonly rowsRead: SnapshotRowsRead;
  /** When the ERP last wrote the snapshot: the rows' time. */
  readonly writtenAt: number;
  readonly now: number;
  /** The held read this apply releases (an operator's `release`). */
  readonly releases?: number;
  /** The read is the released one again (guardSnapshot.ts, `stillReleased`): the mark stays. */
  readonly restatesRelease?: boolean;
}

/**
 * The commit point of a snapshot's staged apply (run inside applyStagedSet's `decide`), for a
 * read and for a held read an operator releases alike: records the apply (source 'snapshot', its
 * rows as new as the ERP's last write to the snapshot: keys a newer file set since keep theirs)
 * and, in kv, when it was applied, how many rows each query returned (the guard rails compare
 * the next read's with them: an emptied table) and which released read it was, if it was one
 * (`snapshot.last_release`: a read of that same content again passes the guard rails). Returns
 * the apply's id.
 */
export function recordSnapshotApply(db: StateDb, apply: SnapshotApply): number {
  const { now, rowsRead } = apply;
  const applyId = recordStagedApply(db, {
    stagedFile: apply.stagedFile,
    source: 'snapshot',
    fileId: null,
    sourceAt: apply.writtenAt,
    appliedAt: now,
    heldId: apply.releases ?? null,
  });
  const kv = new KeyValueStore(db);
  kv.set('snapshot.applied_at', now, now);
  kv.set('snapshot.last_rows', { factory: rowsRead.factory, dc: rowsRead.dc }, now);
  if (apply.releases !== undefined) {
    kv.set('snapshot.last_release', { heldId: apply.releases, writtenAt: apply.writtenAt }, now);
  } else if (apply.restatesRelease !== true) {
    kv.delete('snapshot.last_release');
  }
  return applyId;
}
