import { perConnection, type StateDb, withoutFlush } from '../db.ts';
import { IN_RANGE, keyRanges } from '../staging/stagedRanges.ts';
import type { BackgroundCheckpoints } from '../walCheckpointer.ts';

/**
 * A staged set's rows kept aside for an entry the guard rails are about to hold (heldStore.ts),
 * a range of keys at a time with the event loop let in between: a million rows copied by one
 * statement held the loop for over a second.
 *
 * The rows go into held_rows under the id the entry will be given — one above every entry's —
 * and belong to no entry until HeldStore.hold records it with that id, in the transaction that
 * decides the hold: nothing reads held_rows but by an entry, so an entry has all of its rows or
 * does not exist. Rows a crash left without their entry (always above every entry's id, since an
 * entry is only ever recorded after its rows) are removed first, the same way.
 *
 * Each step commits without a flush (`withoutFlush`: the entry's own commit flushes the WAL, and
 * every step before it with it); a large copy has the WAL checkpointed by a thread of
 * its own, as a merge does.
 */
export interface RowsAside {
  /** The id the held entry must be recorded with. */
  readonly heldId: number;
}

const STEP_ROWS = 5000;
const CHECKPOINT_THREAD_AFTER_STEPS = 4;

const statements = perConnection((db: StateDb) => ({
  lastId: db.prepare<[], number>('SELECT COALESCE(MAX(id), 0) FROM held').pluck(true),
  dropLeft: db.prepare<[{ after: number; limit: number }]>(
    `DELETE FROM held_rows WHERE (held_id, kind, dc, sku) IN (
       SELECT held_id, kind, dc, sku FROM held_rows WHERE held_id > @after LIMIT @limit)`,
  ),
}));

const copies = perConnection((): Map<string, ReturnType<StateDb['prepare']>> => new Map());

/** The copy of one range of `table` (a staged set's rows, with a kind column). */
function copyRange(db: StateDb, table: string) {
  const cache = copies(db);
  let st = cache.get(table);
  if (st === undefined) {
    st = db.prepare(
      `INSERT OR REPLACE INTO held_rows (held_id, kind, dc, sku, quantity)
       SELECT @id, s.kind, s.dc, s.sku, s.quantity FROM ${table} s WHERE ${IN_RANGE('s')}`,
    );
    cache.set(table, st);
  }
  return st;
}

/**
 * Copies the rows of `table` (checked by keyRanges to be a plain table name) into held_rows
 * for the entry to come; returns its id for HeldStore.hold.
 */
export async function keepRowsAside(
  db: StateDb,
  table: string,
  pause: () => Promise<void>,
  startCheckpoints: (db: StateDb) => BackgroundCheckpoints | undefined,
): Promise<RowsAside> {
  const s = statements(db);
  const heldId = s.lastId.get()! + 1;
  const step = (run: () => number): number => withoutFlush(db, run);
  let checkpoints: BackgroundCheckpoints | undefined;
  let steps = 0;
  try {
    // Rows of an entry a crash never let be recorded.
    while (step(() => s.dropLeft.run({ after: heldId - 1, limit: STEP_ROWS }).changes) > 0) {
      await pause();
    }
    const copy = copyRange(db, table);
    for (const range of keyRanges(db, table, STEP_ROWS)) {
      step(() => copy.run({ id: heldId, ...range }).changes);
      // A large set: its pages checkpointed by a thread of their own (not for a few rows).
      if (++steps >= CHECKPOINT_THREAD_AFTER_STEPS) checkpoints ??= startCheckpoints(db);
      await checkpoints?.afterChunk();
      await pause();
    }
    await checkpoints?.finish();
  } finally {
    checkpoints?.stop();
  }
  return { heldId };
}
