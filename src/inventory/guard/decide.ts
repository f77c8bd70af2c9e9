import { existsSync, lstatSync } from 'node:fs';
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { moveNoClobber, syncFolder, writeFileAtomic } from '../../files/durable.ts';
import { createLogger, type Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { type HeldEntry, HeldStore } from '../../state/held.ts';
import { InboxLedger } from '../../state/inboxFiles.ts';
import { applyRows } from '../ingest/apply.ts';
import { type FileReport, reportPathFor } from '../ingest/report.ts';
import { fitName } from '../names.ts';
import { recordSnapshotApply, type SnapshotRowsRead } from '../snapshot/apply.ts';

/**
 * An operator's decision on what the guard rails hold (`release ID`, `reject ID`):
 * - release of a file: the entry is marked released in state.db, then the file goes back into
 *   inbox/ (never over another file) and is read again like any file, its content passing the
 *   guard rails; it keeps its modification time, so keys a newer file set since keep the newer
 *   values, and its report in processed/ counts them (`stock.supersededByNewerFile`);
 * - release of a snapshot read: its kept-aside rows are applied through the staged apply (the
 *   decision and the apply recorded in one transaction, the merge in chunks after it), with the
 *   snapshot's time, so the same rule holds;
 * - reject: a file goes to failed/ with its report saying so; a snapshot read is dropped.
 * State first, then the move: a crash in between leaves the decision recorded and the file in
 * held/, and the move is finished by the same command again or at the daemon's next start.
 */

export type HeldProblem = 'unknown' | 'decided' | 'file_gone';

export class HeldDecisionError extends Error {
  readonly code: HeldProblem;

  constructor(code: HeldProblem, message: string) {
    super(message);
    this.name = 'HeldDecisionError';
    this.code = code;
  }
}

export interface DecisionDeps {
  readonly db: StateDb;
  readonly dataDir: string;
  readonly now: () => number;
  readonly log?: Logger;
}

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
    };

export interface RejectResult {
  readonly source: 'file' | 'snapshot';
  readonly id: number;
  readonly file: string;
  /** Where the file now is (failed/…); null for a snapshot read or a file already gone. */
  readonly destination: string | null;
  readonly resumed: boolean;
}

function lookUp(store: HeldStore, id: number): HeldEntry {
  const entry = store.get(id);
  if (entry === undefined) {
    throw new HeldDecisionError(
      'unknown',
      `nothing held has id ${id} (\`supplier-sync held\` lists what is held)`,
    );
  }
  return entry;
}

function alreadyDecided(entry: HeldEntry): HeldDecisionError {
  const at = entry.decidedAt === null ? '' : ` at ${new Date(entry.decidedAt).toISOString()}`;
  const what =
    entry.source === 'file'
      ? `held file ${entry.id} (${entry.name})`
      : `held snapshot read ${entry.id}`;
  const why =
    entry.status === 'superseded'
      ? 'superseded by a newer snapshot read that was applied or held'
      : entry.status;
  return new HeldDecisionError('decided', `${what} is no longer held: ${why}${at}`);
}

const heldPathOf = (dataDir: string, entry: HeldEntry) =>
  join(dataPaths(dataDir).held, entry.storedAs ?? '');

export async function releaseHeld(deps: DecisionDeps, id: number): Promise<ReleaseResult> {
  const store = new HeldStore(deps.db);
  const entry = lookUp(store, id);
  if (entry.source === 'snapshot') return releaseSnapshot(deps, store, entry);
  const heldPath = heldPathOf(deps.dataDir, entry);
  if (entry.status === 'released' && existsSync(heldPath)) {
    const inboxName = await moveBack(deps.dataDir, entry);
    return {
      source: 'file',
      id,
      file: entry.name,
      inboxName,
      contentHash: entry.contentHash,
      resumed: true,
    };
  }
  if (entry.status !== 'held') throw alreadyDecided(entry);
  if (!existsSync(heldPath)) {
    throw new HeldDecisionError(
      'file_gone',
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
  return {
    source: 'file',
    id,
    file: entry.name,
    inboxName,
    contentHash: entry.contentHash,
    resumed: false,
  };
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
async function moveBack(dataDir: string, entry: HeldEntry): Promise<string> {
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
 * apply (src/inventory/ingest/apply.ts) with no "before apply" checks: the operator has decided.
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
        applyId: recordSnapshotApply(deps.db, stagedFile, rowsRead, entry.sourceAt, now),
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
async function moveToFailed(
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

/**
 * At start: finishes the moves of released and rejected files that a crash cut short (the
 * decision is in state.db, the file still in held/). Returns how many it finished.
 */
export async function finishHeldDecisions(deps: DecisionDeps): Promise<number> {
  let finished = 0;
  for (const entry of new HeldStore(deps.db).decidedFiles()) {
    if (!existsSync(heldPathOf(deps.dataDir, entry))) continue;
    if (entry.status === 'released') await moveBack(deps.dataDir, entry);
    else await moveToFailed(deps, entry);
    finished++;
    deps.log?.info(
      { event: 'held.move_finished', heldId: entry.id, file: entry.name, status: entry.status },
      `the move of ${entry.status} file ${entry.id} (${entry.name}) finished after a restart`,
    );
  }
  return finished;
}
