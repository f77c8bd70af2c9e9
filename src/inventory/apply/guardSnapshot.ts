import { createHash } from 'node:crypto';
import { decideSnapshotGuard, emptiedQueries, type GuardThresholds } from '../../domain/guard.ts';
import type { StateDb } from '../../state/db.ts';
import { keepRowsAside } from '../../state/inbox/heldRowsAside.ts';
import { type HeldEntry, HeldStore } from '../../state/inbox/heldStore.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { keyRanges } from '../../state/staging/stagedRanges.ts';
import {
  compareStagedInSteps,
  type StagedSet,
  stagedRowsInOrder,
} from '../../state/stock/guardFigures.ts';
import { type GuardReport, guardReport, passedAsReleased } from './guardFile.ts';
import { WalCheckpoints } from './walCheckpoints.ts';

/**
 * The guard rails' step before a snapshot read is applied: the percent checks over both kinds
 * together, and a query that suddenly returns no rows where the last applied read had some. A
 * held read is kept aside in state.db (its rows in held_rows) and the last applied values stay.
 */

/** A read whose accepted rows (both kinds, distinct keys) are staged in a table. */
export interface StagedSnapshotRead {
  readonly staged: StagedSet;
  readonly rowsRead: { readonly factory: number; readonly dc: number };
  readonly writtenAt: number;
}

/** What a snapshot held report says beyond a file's: the rows each query returned. */
export interface SnapshotGuardReport extends GuardReport {
  readonly rowsRead: { readonly factory: number; readonly dc: number };
  readonly lastRowsRead: { readonly factory: number; readonly dc: number } | null;
}

export type SnapshotGuardOutcome =
  | { readonly hold: false; readonly report: GuardReport | undefined }
  | {
      readonly hold: true;
      readonly heldId: number;
      /** The same content as a read already held (or rejected): no new entry was made. */
      readonly repeated: HeldEntry['status'] | false;
      readonly report: SnapshotGuardReport;
      /** The held read this one replaced (a newer read of other content), if any. */
      readonly superseded?: number;
    };

/**
 * A fingerprint of a read's accepted rows, in key order (whatever order the queries had): a
 * range of keys at a time, `pause()` awaited between them.
 */
export async function snapshotContentHash(
  db: StateDb,
  table: string,
  pause: () => Promise<void>,
): Promise<string> {
  const h = createHash('sha256');
  for (const range of keyRanges(db, table)) {
    for (const r of stagedRowsInOrder(db, { table, range })) {
      h.update(`${r.kind}\t${r.dc}\t${r.sku}\t${r.quantity}\n`);
    }
    await pause();
  }
  return `snapshot:${h.digest('hex')}`;
}

/**
 * Decides on a read whose rows are staged (`read.staged`, a table with a kind column: the
 * pipeline's staged.rows) and, when it is held, records it (one transaction: a held read of
 * other content is superseded by the new one). Undefined thresholds turn the guard rails off.
 * Every read is judged against what the portal holds now: a release applies the held read itself
 * (held/release.ts), so the same content read again later is held again (a new entry) if it
 * would again zero the range — unless it is the released read itself again (the same content,
 * as written then, and no other read applied since: the schedule re-reading an unchanged
 * snapshot before the release's pushes have landed), which changes nothing and passes. A read
 * whose content is still held or was rejected is held again under that entry, without a new one.
 * The figures, the fingerprint and the copy of a held read's rows go a range of keys at a time,
 * `pause()` awaited between them.
 */
export async function guardSnapshotStaged(
  db: StateDb,
  thresholds: GuardThresholds | undefined,
  read: StagedSnapshotRead,
  now: number,
  pause: () => Promise<void>,
): Promise<SnapshotGuardOutcome> {
  if (thresholds === undefined) return { hold: false, report: undefined };
  const held = new HeldStore(db);
  const last = new KeyValueStore(db).get('snapshot.last_rows');
  // The offered quantities (after the stock rules) are what would reach the portal.
  const cmp = await compareStagedInSteps(db, read.staged.table, pause);
  const verdict = decideSnapshotGuard(cmp, thresholds, emptiedQueries(read.rowsRead, last), last);
  const base = guardReport(cmp, verdict, thresholds);
  if (!verdict.hold) return { hold: false, report: base };
  const hash = await snapshotContentHash(db, read.staged.table, pause);
  const report: SnapshotGuardReport = {
    ...base,
    rowsRead: read.rowsRead,
    lastRowsRead: last ?? null,
  };
  const released = stillReleased(db, held, hash, read.writtenAt);
  // The read an operator released, again: it changes nothing the release did not.
  if (released !== undefined) return passedAsReleased(base, released);
  const same = held.byHash(hash, 'held') ?? held.byHash(hash, 'rejected');
  if (same !== undefined) {
    return {
      hold: true,
      heldId: same.id,
      repeated: same.status,
      report: { ...report, heldId: same.id },
    };
  }
  const aside = await keepRowsAside(db, read.staged.table, pause, (d) => WalCheckpoints.start(d));
  return db.transaction((): SnapshotGuardOutcome => {
    const previous = held.openSnapshot();
    if (previous !== undefined) held.decide(previous.id, 'superseded', now);
    const heldId = held.hold(
      {
        source: 'snapshot',
        fileId: null,
        name: 'snapshot',
        storedAs: null,
        kind: null,
        contentHash: hash,
        reason: verdict.reason,
        report: JSON.stringify(report),
        sourceAt: read.writtenAt,
        heldAt: now,
      },
      aside,
    );
    return {
      hold: true,
      heldId,
      repeated: false,
      report: { ...report, heldId },
      ...(previous === undefined ? {} : { superseded: previous.id }),
    };
  })();
}

/**
 * The released held read that a read of content `hash`, written at `writtenAt`, is again: the
 * last snapshot applies were that release and reads of the same (`snapshot.last_release`), and
 * the ERP has not written the snapshot since. Undefined otherwise.
 */
function stillReleased(
  db: StateDb,
  held: HeldStore,
  hash: string,
  writtenAt: number,
): HeldEntry | undefined {
  const last = new KeyValueStore(db).get('snapshot.last_release');
  if (last === undefined || last.writtenAt !== writtenAt) return undefined;
  const entry = held.get(last.heldId);
  return entry?.status === 'released' && entry.contentHash === hash ? entry : undefined;
}

/**
 * After a read was applied: a held read still waiting is out of date (the ERP's picture moved
 * on); it is superseded. Returns its id, if there was one.
 */
export function supersedeHeldSnapshot(db: StateDb, now: number): number | undefined {
  const held = new HeldStore(db);
  const open = held.openSnapshot();
  if (open === undefined) return undefined;
  return held.decide(open.id, 'superseded', now) ? open.id : undefined;
}
