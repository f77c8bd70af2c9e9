import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { moveNoClobber, writeFileAtomic } from '../../files/durable.ts';
import type { StateDb } from '../../state/db.ts';
import { type HeldEntry, HeldStore } from '../../state/inbox/heldStore.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { reportPathFor } from '../inbox/storedNames.ts';
import type { FileReport } from '../ingest/report.ts';
import { alreadyDecided, type DecisionDeps, heldPathOf, lookUp } from './heldLookup.ts';

/** `reject ID`: see heldLookup.ts for the order of state and moves. */

export interface RejectResult {
  readonly source: 'file' | 'snapshot';
  readonly id: number;
  readonly file: string;
  /** Where the file now is (failed/…); null for a snapshot read or a file already gone. */
  readonly destination: string | null;
  readonly resumed: boolean;
}

export async function rejectHeld(deps: DecisionDeps, id: number): Promise<RejectResult> {
  const store = new HeldStore(deps.db);
  const entry = lookUp(store, id);
  if (entry.source === 'snapshot') {
    if (!store.decide(id, 'rejected', deps.now())) throw alreadyDecided(store.get(id)!);
    deps.log?.info(
      { event: 'held.rejected', heldId: id, file: 'snapshot' },
      `held snapshot read ${id} rejected and dropped`,
    );
    return { source: 'snapshot', id, file: 'snapshot', destination: null, resumed: false };
  }
  const heldPath = heldPathOf(deps.dataDir, entry);
  if (entry.status === 'rejected' && existsSync(heldPath)) {
    return { ...(await moveToFailed(deps, entry)), resumed: true };
  }
  if (entry.status !== 'held') throw alreadyDecided(entry);
  const ledger = new InboxLedger(deps.db);
  const decided = deps.db.transaction(() => {
    const now = deps.now();
    if (!store.decide(id, 'rejected', now)) return false;
    if (entry.fileId !== null) {
      ledger.decideHeld(
        entry.fileId,
        'failed',
        JSON.stringify(rejectedReport(deps.db, entry, now)),
        now,
      );
    }
    return true;
  })();
  if (!decided) throw alreadyDecided(store.get(id)!);
  const moved = await moveToFailed(deps, entry);
  deps.log?.info(
    { event: 'held.rejected', heldId: id, file: entry.name, destination: moved.destination },
    `held file ${id} (${entry.name}) rejected: ${moved.destination ?? 'no longer in held/'}`,
  );
  return { ...moved, resumed: false };
}

function rejectedReport(
  db: StateDb,
  entry: HeldEntry,
  now: number,
): FileReport | Record<string, unknown> {
  const row = entry.fileId === null ? undefined : new InboxLedger(db).get(entry.fileId);
  const report = row?.report ? (JSON.parse(row.report) as FileReport) : { file: entry.name };
  return {
    ...report,
    outcome: 'failed',
    held: false,
    reason: `rejected by an operator after the guard rails held it: ${entry.reason}`,
    rejectedAt: new Date(now).toISOString(),
  };
}

/** held/ → failed/ (same stored name), the report first, then the file, then the held report. */
export async function moveToFailed(
  deps: DecisionDeps,
  entry: HeldEntry,
): Promise<Omit<RejectResult, 'resumed'>> {
  const paths = dataPaths(deps.dataDir);
  const heldPath = heldPathOf(deps.dataDir, entry);
  const base = { source: 'file' as const, id: entry.id, file: entry.name };
  if (!existsSync(heldPath)) return { ...base, destination: null };
  const destination = join(paths.failed, entry.storedAs!);
  const row = entry.fileId === null ? undefined : new InboxLedger(deps.db).get(entry.fileId);
  const report = row?.report ?? JSON.stringify(rejectedReport(deps.db, entry, deps.now()));
  await writeFileAtomic(
    reportPathFor(destination),
    `${JSON.stringify(JSON.parse(report), null, 2)}\n`,
  );
  await moveNoClobber(heldPath, destination);
  await rm(reportPathFor(heldPath), { force: true });
  return { ...base, destination };
}
