/**
 * Applying a staged set of stock rows (a file's, the snapshot's, or a held snapshot read's) to
 * desired stock, in bounded memory and without blocking the event loop for long (issue #14). The
 * one way stock is applied: used by processInboxFile, readSnapshot and, through applyRows, the
 * release of a held snapshot read; SQL in src/inventory/staging/stagingFile.ts and src/state/staging/stagedApplyTable.ts.
 *
 * The steps, in order:
 * 1. **Stage.** The reader puts accepted rows into a scratch SQLite database under
 *    `<data dir>/staging/` (its own file and connection), one statement per parsed batch,
 *    deduplicated by key as they arrive (the last line of a key wins).
 * 2. **Attach.** The scratch file is closed and ATTACHed to the state connection as schema
 *    `staged`: the set is the table `staged.rows (kind, dc, sku, quantity, line)`, primary key
 *    (kind, dc, sku); `kind` is 'factory' or 'dc', `dc` is '' for factory stock, `line` the line
 *    or record number in the source (0 for rows a check adds).
 * 3. **Before apply** (the seam for checks): each `BeforeApplyCheck` runs in turn with the set
 *    reachable by SQL from `step.db`. A check may add or change rows (a full export zeroes the
 *    keys it lacks: `INSERT INTO staged.rows … ON CONFLICT DO NOTHING`, line 0), and may decide
 *    to hold the source instead of applying it (`{ hold: reason }`: nothing is applied, the set is
 *    discarded; for a file, the check that holds it is the one that moves it out of inbox/).
 *    Checks run with nothing yet decided: a crash here leaves state.db as it was.
 *    `staged.rows.quantity` is the ERP's quantity; a check that compares with the portal wants
 *    the offered one under the stock rules: `offerSelect('staged.rows', …)` in
 *    src/state/stock/ruleOffers.ts adds `quantity` (offered), `excluded` and `rule` to any columns.
 * 4. **Commit point.** The scratch file is fsynced, then one short transaction records the apply
 *    in `staged_applies` together with the source's own record (the file's ledger row; the
 *    snapshot's time). Before it nothing is visible; from it on the apply will finish.
 * 5. **Merge.** The set is merged into desired_stock in key order, `chunkRows` keys per short
 *    transaction, yielding to the event loop between them, committed without a flush on the
 *    loop and the WAL flushed off it once the last is (state/db.ts, `withoutFlush`, `flushWal`); each writes desired_stock
 *    (`source_file_id`, `source_line`), pending keys and failure clean-up, and moves the apply's
 *    cursor. The last transaction deletes the `staged_applies` row and completes the source's
 *    record (the file's report gets its `stock` counts). A crash in between is resumed at start
 *    (`recoverStaging`, from recoverInbox) and before any other apply.
 *
 * One apply at a time per state connection (a promise chain), so `staged` names one set. One
 * process writes a data dir (the holder of its writer lock: the daemon, or a command working
 * alone); should another process be merging its own apply meanwhile, an unfinished apply whose
 * scratch file the lock's holder made is left to it (stagedByOtherLiveWriter), and resumed once
 * it has let go.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StockKind } from '../../domain/stock.ts';
import type { Logger } from '../../log/logger.ts';
import { flushWal, type StateDb, withoutFlush } from '../../state/db.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import {
  removeOrphanStagingFiles,
  removeStagingFile,
  stagedByOtherLiveWriter,
  stagingDir,
} from '../../state/staging/scratchFiles.ts';
import {
  attachStaged,
  detachStaged,
  dropStagedApply,
  mergeStagedChunk,
  type StagedApply,
  unfinishedStagedApplies,
} from '../../state/staging/stagedApplyTable.ts';
import type { ApplyResult } from '../../state/stock/desiredStock.ts';
import { nextTurn } from '../parse/yielder.ts';
import { StagingFile } from '../staging/stagingFile.ts';
import { stockSummary } from './stockSummary.ts';
import { WalCheckpoints } from './walCheckpoints.ts';

/** Keys merged per transaction: about 10–20 ms of work on a 2-core machine. */
export const DEFAULT_CHUNK_ROWS = 5000;

export interface BeforeApplyStep {
  /** The state connection; the set is `staged.rows` on it. */
  readonly db: StateDb;
  readonly log: Logger;
  /** What the set came from. */
  readonly source:
    | { readonly type: 'file'; readonly name: string; readonly kind: StockKind }
    | { readonly type: 'snapshot' };
  /** The table holding the set, as SQL: always `staged.rows`. */
  readonly table: 'staged.rows';
}

/** undefined: go on; `{ hold }`: apply nothing, and say why. */
export type BeforeApplyDecision = { readonly hold: string } | undefined;

export type BeforeApplyCheck = (
  step: BeforeApplyStep,
) => BeforeApplyDecision | Promise<BeforeApplyDecision>;

export interface ApplyDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly dataDir: string;
  readonly checks?: readonly BeforeApplyCheck[];
  /** Keys per merge transaction (default DEFAULT_CHUNK_ROWS). */
  readonly chunkRows?: number;
  /** Test seam: runs after each merge transaction (the crash tests kill the process here). */
  readonly afterChunk?: (applyId: number) => void | Promise<void>;
}

export type StagedOutcome<T> =
  | { readonly status: 'applied'; readonly decided: T; readonly totals: ApplyResult }
  | { readonly status: 'held'; readonly reason: string }
  | { readonly status: 'not_decided'; readonly decided: T };

const locks = new WeakMap<StateDb, Promise<unknown>>();

/** Runs `fn` after every earlier apply on this connection has finished. */
export function withApplyLock<T>(db: StateDb, fn: () => Promise<T>): Promise<T> {
  const before = locks.get(db) ?? Promise.resolve();
  const run = before.then(fn, fn);
  locks.set(
    db,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * Steps 2–5 for one staged set. `decide` is the commit point: it runs inside an IMMEDIATE
 * transaction, records the source's own rows and calls recordStagedApply with `stagedFile`,
 * returning the apply's id in `applyId` — or `applyId: undefined` when it decided not to apply
 * (another worker got there first); then nothing is merged. The caller discards the scratch
 * file afterwards (it may first read the rejected rows from it, for the report); one left by a
 * crash is removed at start.
 */
export function applyStagedSet<T extends { readonly applyId: number | undefined }>(
  deps: ApplyDeps,
  staging: StagingFile,
  source: BeforeApplyStep['source'],
  decide: (stagedFile: string) => T,
): Promise<StagedOutcome<T>> {
  const { db } = deps;
  return withApplyLock(db, async () => {
    await resumeUnlocked(deps);
    staging.close();
    attachStaged(db, staging.path, { fresh: true });
    try {
      for (const check of deps.checks ?? []) {
        const decision = await check({ db, log: deps.log, source, table: 'staged.rows' });
        if (decision !== undefined) return { status: 'held', reason: decision.hold } as const;
      }
      await staging.sync();
      const decided = db.transaction(() => decide(staging.name)).immediate();
      if (decided.applyId === undefined) return { status: 'not_decided', decided } as const;
      const totals = await mergeToEnd(deps, decided.applyId);
      return { status: 'applied', decided, totals } as const;
    } finally {
      detachStaged(db);
    }
  });
}

/** A stock row at hand: `dc` is '' for factory stock. */
export interface StockRowInput {
  readonly kind: StockKind;
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
}

/**
 * Steps 1–5 for rows already at hand rather than read from a file or the snapshot (a held
 * snapshot read an operator releases): stages them in a scratch file, then applies the set with
 * no "before apply" checks (nobody is left to ask) and `decide` as the commit point. Rows are
 * taken one at a time and staged in this thread as they come (no worker thread, no await), so
 * `rows` may iterate a statement of the state connection: it is done before the apply begins.
 * A row's line is its position in `rows`, from 1 (so a key given twice keeps its last row, as in
 * a file). The scratch file is discarded afterwards.
 */
export async function applyRows<T extends { readonly applyId: number | undefined }>(
  deps: ApplyDeps,
  rows: Iterable<StockRowInput>,
  source: BeforeApplyStep['source'],
  decide: (stagedFile: string) => T,
): Promise<StagedOutcome<T>> {
  const staging = StagingFile.create(deps.dataDir, { workerAfterRows: Number.POSITIVE_INFINITY });
  try {
    let line = 0;
    for (const r of rows) staging.put(r.kind, r.dc, r.sku, r.quantity, ++line);
    await staging.finish();
    return await applyStagedSet({ ...deps, checks: [] }, staging, source, decide);
  } finally {
    staging.discard();
  }
}

/**
 * Merges every apply decided but not finished (after a crash), oldest first; the apply of the
 * inbox file `fileId` even when another live process made it (the file cannot move before it).
 */
export function resumeStagedApplies(
  deps: ApplyDeps,
  fileId?: number,
  onFinished?: OnFinished,
): Promise<number> {
  return withApplyLock(deps.db, () => resumeUnlocked(deps, fileId, onFinished));
}

/** Told of each apply a resume finished, with its totals. */
export type OnFinished = (apply: StagedApply, totals: ApplyResult) => void;

/**
 * At start: resumes unfinished applies, then deletes scratch files nobody needs (left by a
 * crash before a commit point).
 */
export async function recoverStaging(deps: ApplyDeps): Promise<number> {
  return withApplyLock(deps.db, async () => {
    const resumed = await resumeUnlocked(deps);
    const keep = new Set(unfinishedStagedApplies(deps.db).map((a) => a.stagedFile));
    const removed = removeOrphanStagingFiles(deps.dataDir, deps.db, keep);
    if (removed > 0) {
      deps.log.info(
        { event: 'ingest.staging_cleaned', files: removed },
        `removed ${removed} scratch file(s) left by an interrupted read`,
      );
    }
    return resumed;
  });
}

/**
 * Finishes unfinished applies, but leaves alone those another live process is merging (it would
 * otherwise merge them alongside that process, whose next chunk would find its apply gone),
 * except the apply of the inbox file `fileId`.
 */
async function resumeUnlocked(
  deps: ApplyDeps,
  fileId?: number,
  onFinished?: OnFinished,
): Promise<number> {
  const { db, log } = deps;
  let resumed = 0;
  for (const apply of unfinishedStagedApplies(db)) {
    if (apply.fileId !== fileId && stagedByOtherLiveWriter(apply.stagedFile, deps.dataDir, db))
      continue;
    const path = join(stagingDir(deps.dataDir), apply.stagedFile);
    // (ATTACH would create a missing file, empty.)
    if (!existsSync(path)) {
      abandon(deps, apply, path);
      continue;
    }
    attachStaged(db, path);
    try {
      log.info(
        { event: 'ingest.apply_resumed', source: apply.source, applyId: apply.id },
        `finishing the apply of ${apply.source} interrupted by a restart`,
      );
      const totals = await mergeToEnd(deps, apply.id);
      onFinished?.(apply, totals);
      resumed++;
    } finally {
      detachStaged(db);
    }
    removeStagingFile(path);
  }
  return resumed;
}

/**
 * The scratch file of a decided apply is gone (removed by hand, a lost disk): the apply cannot
 * finish. Its row is dropped and, for a file, its ledger row too, so the file (still in inbox/)
 * is read again from the start and applied whole; a snapshot is read again at its next turn.
 */
function abandon(deps: ApplyDeps, apply: StagedApply, path: string): void {
  deps.db.transaction(() => {
    dropStagedApply(deps.db, apply.id);
    if (apply.fileId !== null) new InboxLedger(deps.db).forget(apply.fileId);
  })();
  deps.log.error(
    { event: 'ingest.apply_abandoned', source: apply.source, applyId: apply.id, path },
    `the scratch file of ${apply.source} is missing; it is read again from its source`,
  );
}

/**
 * Chunks a merge takes before state.db's WAL is checkpointed by a thread of its own
 * (walCheckpoints.ts) rather than by its commits: a smaller set (20,000 keys at the default
 * chunk size) writes too few pages to need a checkpoint, and starts no thread.
 */
const CHECKPOINT_THREAD_AFTER_CHUNKS = 4;

/**
 * Step 5, chunk after chunk. A set of more than CHECKPOINT_THREAD_AFTER_CHUNKS chunks has
 * state.db's WAL checkpointed by a thread of its own meanwhile, not by the commits on the event
 * loop.
 */
async function mergeToEnd(deps: ApplyDeps, applyId: number): Promise<ApplyResult> {
  const { db } = deps;
  const limit = deps.chunkRows ?? DEFAULT_CHUNK_ROWS;
  const ledger = new InboxLedger(db);
  const apply = unfinishedStagedApplies(db).find((a) => a.id === applyId);
  let checkpoints: WalCheckpoints | undefined;
  let chunks = 0;
  try {
    for (;;) {
      // Without a flush on the loop (a flush there waited up to a second behind the checkpoint
      // thread's): a chunk a power cut takes back is merged again from the cursor before it.
      const r = withoutFlush(db, () =>
        mergeStagedChunk(db, applyId, limit, (totals) => {
          if (apply?.fileId != null)
            ledger.setReportField(apply.fileId, 'stock', stockSummary(totals));
        }),
      );
      await deps.afterChunk?.(applyId);
      if (r.done) {
        await checkpoints?.finish();
        // The apply's end is durable before its source moves on (a file out of inbox/).
        await flushWal(db);
        return r.totals;
      }
      if (++chunks >= CHECKPOINT_THREAD_AFTER_CHUNKS) checkpoints ??= WalCheckpoints.start(db);
      await checkpoints?.afterChunk();
      await nextTurn();
    }
  } finally {
    checkpoints?.stop();
    if (checkpoints?.failure !== undefined) {
      deps.log.warn(
        { event: 'ingest.checkpoints_inline', reason: checkpoints.failure.message },
        `state.db's WAL is checkpointed by its commits again: ${checkpoints.failure.message}`,
      );
    }
  }
}
