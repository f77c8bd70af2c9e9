import { existsSync, lstatSync } from 'node:fs';
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { moveNoClobber, syncFolder } from '../../files/durable.ts';
import { createLogger } from '../../log/logger.ts';
import { type HeldEntry, HeldStore } from '../../state/inbox/heldStore.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { applyRows, resumeStagedApplies } from '../apply/applyStaged.ts';
import { fitName } from '../inbox/inboxNames.ts';
import { reportPathFor } from '../inbox/storedNames.ts';
import type { FileReport } from '../ingest/report.ts';
import { recordSnapshotApply, type SnapshotRowsRead } from '../snapshot/snapshotApply.ts';
import {
  alreadyDecided,
  type DecisionDeps,
  HeldDecisionError,
  heldPathOf,
  lookUp,
} from './heldLookup.ts';

/** `release ID`: see heldLookup.ts for the order of state and moves. */

export type ReleaseResult =
  | {
      readonly source: 'file';
      readonly id: number;
      readonly file: string;
      /** Its name back in inbox/ (the original name unless another file has it). */
      readonly inboxName: string;
      readonly contentHash: string;
      /** The release had been recorded before and only its move was finished now. */
      readonly resumed: boolean;
    }
  | {
      readonly source: 'snapshot';
      readonly id: number;
      readonly keys: number;
      readonly pendingKeys: number;
      /** Rows not applied because a newer file had set their key since the read. */
      readonly superseded: number;
      /** Its apply had been cut short (a killed `release`) and was finished now. */
      readonly resumed?: boolean;
    };

export async function releaseHeld(deps: DecisionDeps, id: number): Promise<ReleaseResult> {
  const store = new HeldStore(deps.db);
  const entry = lookUp(store, id);
  // An apply an interrupted writer left half merged is finished first (this one's among them).
  const resumed = await finishUnfinished(deps, id);
  if (resumed !== undefined) return resumed;
  if (entry.source === 'snapshot') return releaseSnapshot(deps, store, entry);
  const heldPath = heldPathOf(deps.dataDir, entry);
  if (entry.status === 'released' && existsSync(heldPath)) {
    return fileReleased(entry, await moveBack(deps.dataDir, entry), true);
  }
  if (entry.status !== 'held') throw alreadyDecided(entry);
  if (!existsSync(heldPath)) {
    throw new HeldDecisionError(
      'E_HELD_FILE_GONE',
      `held file ${id} (${entry.name}) is no longer in held/ (${entry.storedAs} was moved or removed): nothing to release; \`reject ${id}\` clears it`,
    );
  }
  const ledger = new InboxLedger(deps.db);
  const decided = deps.db.transaction(() => {
    const now = deps.now();
    if (!store.decide(id, 'released', now)) return false;
    if (entry.fileId !== null) {
      const row = ledger.get(entry.fileId);
      const report = row?.report ? (JSON.parse(row.report) as FileReport) : undefined;
      ledger.decideHeld(
        entry.fileId,
        'released',
        JSON.stringify({ ...report, releasedAt: new Date(now).toISOString() }),
        now,
      );
    }
    return true;
  })();
  if (!decided) throw alreadyDecided(store.get(id)!);
  const inboxName = await moveBack(deps.dataDir, entry);
  deps.log?.info(
    { event: 'held.released', heldId: id, file: entry.name, inboxName },
    `held file ${id} (${entry.name}) released: back in inbox/ as ${inboxName}`,
  );
  return fileReleased(entry, inboxName, false);
}

/** The result of releasing a held file, back in inbox/ as `inboxName`. */
function fileReleased(entry: HeldEntry, inboxName: string, resumed: boolean): ReleaseResult {
  return {
    source: 'file',
    id: entry.id,
    file: entry.name,
    inboxName,
    contentHash: entry.contentHash,
    resumed,
  };
}

/**
 * Finishes every apply left unfinished (a `release` killed mid-merge, a crash); when one of them
 * released the held snapshot read `id`, its result (the release is complete now).
 */
async function finishUnfinished(
  deps: DecisionDeps,
  id: number,
): Promise<ReleaseResult | undefined> {
  let result: ReleaseResult | undefined;
  const log = deps.log ?? createLogger({ level: 'silent', pretty: false });
  await resumeStagedApplies({ db: deps.db, log, dataDir: deps.dataDir }, undefined, (a, t) => {
    if (a.heldId !== id) return;
    result = {
      source: 'snapshot',
      id,
      keys: t.rows,
      pendingKeys: t.differing,
      superseded: t.superseded,
      resumed: true,
    };
    deps.log?.info(
      { event: 'held.released', heldId: id, file: 'snapshot', resumed: true, keys: t.rows },
      `held snapshot read ${id}: its interrupted apply finished`,
    );
  });
  return result;
}

/** A name in inbox/ for the released file: its own, unless another file has it meanwhile. */
function inboxNameFor(inbox: string, heldPath: string, entry: HeldEntry): string {
  const held = lstatSync(heldPath);
  for (let n = 0; ; n++) {
    const name =
      n === 0
        ? entry.name
        : fitName(`released-${entry.id}${n > 1 ? `-${n}` : ''}-${entry.name}`, 255);
    const there = lstatSync(join(inbox, name), { throwIfNoEntry: false });
    if (there === undefined) return name;
    if (there.ino === held.ino && there.dev === held.dev) return name;
  }
}

/** held/ → inbox/, never over another file; its held report goes (a new one comes). */
export async function moveBack(dataDir: string, entry: HeldEntry): Promise<string> {
  const paths = dataPaths(dataDir);
  const heldPath = heldPathOf(dataDir, entry);
  const st = lstatSync(heldPath);
  let name: string;
  if (st.nlink > 1) {
    // The link into inbox/ was made before a crash (it may be read already): only the held
    // name is left to remove.
    name = entry.name;
    await unlink(heldPath);
    await syncFolder(paths.held);
  } else {
    name = inboxNameFor(paths.inbox, heldPath, entry);
    await moveNoClobber(heldPath, join(paths.inbox, name));
  }
  await rm(reportPathFor(heldPath), { force: true });
  return name;
}

/**
 * A held snapshot read's kept-aside rows, staged one at a time, then applied through the staged
 * apply (src/inventory/apply/applyStaged.ts) with no "before apply" checks: the operator has decided.
 * Its commit point marks the entry released (dropping its kept-aside rows) and records the apply
 * as a read's is recorded; a release or reject that got there first leaves nothing applied.
 */
async function releaseSnapshot(
  deps: DecisionDeps,
  store: HeldStore,
  entry: HeldEntry,
): Promise<ReleaseResult> {
  if (entry.status !== 'held') throw alreadyDecided(entry);
  const report = JSON.parse(entry.report) as { rowsRead?: SnapshotRowsRead };
  const named = { factory: 0, dc: 0 };
  function* counted() {
    for (const row of store.rows(entry.id)) {
      named[row.kind]++;
      yield row;
    }
  }
  const log = deps.log ?? createLogger({ level: 'silent', pretty: false });
  const applied = await applyRows(
    { db: deps.db, log, dataDir: deps.dataDir },
    counted(),
    { type: 'snapshot' },
    (stagedFile) => {
      const now = deps.now();
      if (!store.decide(entry.id, 'released', now)) return { applyId: undefined };
      const rowsRead = report.rowsRead ?? named;
      return {
        applyId: recordSnapshotApply(deps.db, {
          stagedFile,
          rowsRead,
          writtenAt: entry.sourceAt,
          now,
          releases: entry.id,
        }),
      };
    },
  );
  if (applied.status !== 'applied') throw alreadyDecided(store.get(entry.id)!);
  const result = {
    keys: named.factory + named.dc,
    pendingKeys: applied.totals.differing,
    superseded: applied.totals.superseded,
  };
  deps.log?.info(
    { event: 'held.released', heldId: entry.id, file: 'snapshot', ...result },
    `held snapshot read ${entry.id} released and applied`,
  );
  return { source: 'snapshot', id: entry.id, ...result };
}
