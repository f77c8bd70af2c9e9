import { constants, existsSync, lstatSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import type { Profile } from '../../config/profiles.ts';
import { type Clock, systemClock } from '../../domain/clock.ts';
import type { GuardThresholds } from '../../domain/guard.ts';
import type { StockKind } from '../../domain/stock.ts';
import type { LocationMap } from '../../domain/stockRules.ts';
import type { Logger } from '../../log/logger.ts';
import { portalStockRead } from '../../state/absentStock.ts';
import { type ConfirmationResult, storeConfirmations } from '../../state/confirmations.ts';
import type { StateDb } from '../../state/db.ts';
import { HeldStore } from '../../state/held.ts';
import { InboxLedger, type LedgerEntry } from '../../state/inboxFiles.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { recordStagedApply, stagedApplyOfFile } from '../../state/stagedApply.ts';
import { StagingFile } from '../../state/staging.ts';
import { zeroAbsentKeys } from '../apply/absentZeros.ts';
import {
  type ApplyDeps,
  applyStagedSet,
  type BeforeApplyCheck,
  resumeStagedApplies,
} from '../apply/applyStaged.ts';
import { type GuardReport, guardStockFile } from '../apply/guardFile.ts';
import { moveInboxEntry, type RenameFn } from '../inbox/inboxMove.ts';
import { isIgnoredName } from '../inbox/inboxNames.ts';
import { folderFor, reportPathFor, storedName } from '../inbox/storedNames.ts';
import { formatOf, type InboxFormat, SUPPORTED_EXTENSIONS } from '../parse/records.ts';
import type { DcDirectory } from '../validate/dcDirectory.ts';
import type { FileKind } from '../validate/kinds.ts';
import { type ReadPlan, readPlanFor } from '../validate/readPlan.ts';
import {
  type CollectedFile,
  collectFile,
  type RejectedRow,
  type UnreadableFile,
} from './collect.ts';
import { fileSourceTime } from './fileSourceTime.ts';
import { hashHandle } from './hash.ts';
import {
  baseReport,
  confirmationsReport,
  duplicateReport,
  type FileReport,
  failedReport,
  type ReadingFields,
  type ReportBase,
  stockReport,
  writeReportFile,
} from './report.ts';

export interface IngestDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly dataDir: string;
  readonly dcDirectory: DcDirectory;
  readonly clock?: Clock;
  readonly maxSkuLength: number;
  /** Largest record of a file in bytes (INBOX_MAX_RECORD_BYTES); the readers' default when unset. */
  readonly maxRecordBytes?: number;
  /** The stock rules' `locations` now in force (ERP location code → portal DC code). */
  readonly locations?: () => LocationMap;
  /** The inbox profiles in force (INBOX_PROFILES_FILE, re-read on change); none: the defaults. */
  readonly profiles?: () => readonly Profile[];
  /**
   * Reads the portal's whole stock of a kind into remote_stock; true when the read was complete.
   * A full export (`absent: "zero"`) of a kind the portal's stock was never read of waits for it,
   * so that it knows which keys to zero. Unset: what state.db knows is used.
   */
  readonly readPortalStock?: (kind: StockKind) => Promise<boolean>;
  /** The "before apply" step of stock files (see apply/applyStaged.ts): checks run on the staged set. */
  readonly checks?: readonly BeforeApplyCheck[];
  /** Keys per merge transaction (see apply/applyStaged.ts). */
  readonly chunkRows?: number;
  /**
   * Guard rails (GUARD_* settings): the last check of the "before apply" step; a stock file that
   * trips them is held (moved to held/, nothing applied). Absent: off.
   */
  readonly guard?: GuardThresholds;
  /**
   * Test seams: `afterCommit` runs right after the data and ledger row are committed (for stock,
   * once the staged set is merged); `afterChunk` after each merge transaction; `rename` replaces
   * the rename that moves a file (to make it fail with EXDEV).
   */
  readonly hooks?: {
    readonly afterCommit?: () => void;
    readonly afterChunk?: (applyId: number) => void;
    readonly rename?: RenameFn;
  };
  /** A reason to send the file to failed/ unread (attempts.ts: too many failed attempts). */
  readonly giveUp?: (st: Stats) => string | undefined;
}

/** held: a check of the "before apply" step held the file; nothing was applied. */
export type FileStatus = 'processed' | 'failed' | 'duplicate' | 'skipped' | 'missing' | 'held';

export interface FileOutcome {
  /** processed, failed or duplicate: the file was handled and moved; skipped: not an inbox
   * file (a folder, a temp name); missing: no longer there (already handled, or removed). */
  readonly status: FileStatus;
  readonly kind: FileKind | null;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  /** Where the file now is (processed/, failed/ or held/), null when it was not moved. */
  readonly destination: string | null;
  readonly reportPath: string | null;
  readonly reason?: string;
  readonly ledgerId?: number;
  /** Stock keys whose desired quantity now differs from the known remote one (pending keys). */
  readonly pendingKeys?: number;
  readonly confirmations?: {
    readonly new: number;
    readonly duplicate: number;
    readonly conflict: number;
  };
}

/**
 * A full export met a portal whose stock of its kind could not be read (yet): the file stays in
 * inbox/ and is tried again later.
 */
export class PortalStockUnknownError extends Error {
  readonly code = 'E_PORTAL_STOCK_UNKNOWN';

  constructor(name: string, kind: StockKind) {
    super(
      `${name} is a full export, and the portal's ${kind} stock could not be read to know which keys it omits; it stays in inbox/ and will be read again`,
    );
    this.name = 'PortalStockUnknownError';
  }
}

/** The file changed between the hash and the parse: leave it in inbox/, try again later. */
export class FileChangedError extends Error {
  readonly code = 'E_FILE_CHANGED';

  constructor(name: string) {
    super(`${name} changed while it was being read; it stays in inbox/ and will be read again`);
    this.name = 'FileChangedError';
  }
}

const PROGRESS_EVERY_MS = 5000;

/**
 * Handles one inbox file, exactly once across crashes (see docs/inbox.md):
 * hash → (finish an interrupted move | record a duplicate | parse and validate) → one
 * transaction with the accepted rows and the ledger row → report written beside the destination
 * → file renamed into processed/ or failed/ → ledger row finished.
 * Throws (leaving the file in inbox/ for a later try) on I/O errors, FileChangedError and
 * DcListUnavailableError; every other problem is a failed file or a rejected row.
 */
export async function processInboxFile(path: string, deps: IngestDeps): Promise<FileOutcome> {
  const clock = deps.clock ?? systemClock;
  const receivedAt = clock.now();
  const name = basename(path);
  const ledger = new InboxLedger(deps.db);
  const plan = readPlanFor(deps.profiles?.() ?? [], name);
  const ctx: Ctx = { path, name, deps, clock, ledger, receivedAt, plan };

  let st: Stats;
  try {
    st = await lstat(path);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return nothing('missing', 'no longer in inbox/');
    throw err;
  }
  if (st.isDirectory()) {
    deps.log.warn({ event: 'inbox.folder_ignored', file: name }, 'folders in inbox/ are not read');
    return nothing('skipped', 'a folder: folders in inbox/ are not read');
  }
  if (isIgnoredName(name)) return nothing('skipped', 'a temporary or hidden name');
  if (!st.isFile()) return rejectSpecial(ctx, st);

  let handle: FileHandle;
  try {
    // O_NOFOLLOW: never read through a link that replaced the file after the lstat above;
    // O_NONBLOCK: never hang on a FIFO that did.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return nothing('missing', 'no longer in inbox/');
    if (isCode(err, 'ELOOP')) return rejectSpecial(ctx, await lstat(path));
    throw err;
  }
  try {
    const fst = await handle.stat();
    if (!fst.isFile()) return await rejectSpecial(ctx, fst);
    return await processRegular(ctx, handle, fst);
  } finally {
    await handle.close();
  }
}

interface Ctx {
  readonly path: string;
  readonly name: string;
  readonly deps: IngestDeps;
  readonly clock: Clock;
  readonly ledger: InboxLedger;
  readonly receivedAt: number;
  /** How the file is read: its profile (by name) or the defaults. */
  readonly plan: ReadPlan;
}

async function processRegular(ctx: Ctx, handle: FileHandle, st: Stats): Promise<FileOutcome> {
  const { deps, ledger, name } = ctx;
  const hash = await hashHandle(handle);

  const open = ledger.committedByHash(hash);
  if (open !== undefined && open.name === name) {
    deps.log.info(
      { event: 'file.resumed', file: name, ledgerId: open.id },
      'finishing a file committed before a restart',
    );
    return finishCommitted(ctx, open, st);
  }

  const givenUp = deps.giveUp?.(st);
  if (givenUp !== undefined) {
    return commitUnreadable(ctx, st, hash, { ok: false, ...unread(name), reason: givenUp });
  }

  const prior = duplicateSource(ctx, hash);
  if (prior !== undefined) return commitDuplicate(ctx, st, hash, prior);

  const format = formatOf(name);
  if (format === undefined) {
    return commitUnreadable(ctx, st, hash, {
      ok: false,
      format: undefined,
      kind: undefined,
      reason: `unsupported file extension: use ${SUPPORTED_EXTENSIONS}`,
      rowsRead: 0,
      clamped: 0,
    });
  }

  let lastProgress = ctx.clock.now();
  const collected = await collectFile(handle.createReadStream({ start: 0, autoClose: false }), {
    format,
    maxSkuLength: deps.maxSkuLength,
    maxRecordBytes: deps.maxRecordBytes,
    dcDirectory: deps.dcDirectory,
    ...(deps.locations ? { locations: deps.locations() } : {}),
    plan: ctx.plan,
    stage: () => StagingFile.create(deps.dataDir),
    onProgress: (rows) => {
      const now = ctx.clock.now();
      if (now - lastProgress < PROGRESS_EVERY_MS) return;
      lastProgress = now;
      deps.log.info({ event: 'file.progress', file: name, rows }, `read ${rows} rows of ${name}`);
    },
  });
  const staged = collected.staged;
  if (collected.hash !== undefined && collected.hash !== hash) {
    staged?.discard();
    throw new FileChangedError(name);
  }
  try {
    if (!collected.ok) return await commitUnreadable(ctx, st, hash, collected, staged);
    if (collected.rowsAccepted === 0) {
      const reason = 'every row was rejected';
      return await commitUnreadable(ctx, st, hash, { ...collected, ok: false, reason }, staged);
    }
    if (collected.kind !== 'shipment_confirmations' && staged !== undefined) {
      // A full export needs the portal's stock of its kind known before its keys can be zeroed
      // (when it cannot be read, the file stays in inbox/ and is read again).
      const kind = collected.kind === 'dc_stock' ? 'dc' : 'factory';
      if (ctx.plan.absent === 'zero') await knowPortalStock(ctx, kind);
      return await commitStaged(ctx, st, hash, collected, staged);
    }
    return await commitCollected(ctx, st, hash, collected, staged);
  } finally {
    staged?.discard();
  }
}

/**
 * A full export zeroes the keys the portal holds that it omits: the portal's stock of that kind
 * must have been read once. Where it never was, it is read now (one read of the kind; logged).
 */
async function knowPortalStock(ctx: Ctx, kind: StockKind): Promise<void> {
  const { deps } = ctx;
  if (deps.readPortalStock === undefined || portalStockRead(deps.db, kind)) return;
  deps.log.info(
    { event: 'file.reading_portal', file: ctx.name, kind },
    `${ctx.name} is a full export: reading the portal's ${kind} stock first`,
  );
  if (!(await deps.readPortalStock(kind))) throw new PortalStockUnknownError(ctx.name, kind);
}

/** How the file was read, for its report: profile, dialect, header line and counts. */
function readingOf(
  ctx: Ctx,
  c: Pick<CollectedFile, 'dialect' | 'headerRow' | 'clamped'> | undefined,
  absentZeroed = 0,
): ReadingFields {
  return {
    profile: ctx.plan.profile?.match ?? null,
    encoding: c?.dialect?.encoding ?? null,
    delimiter: c?.dialect?.delimiter ?? null,
    headerLine: c?.dialect?.headerLine ?? c?.headerRow ?? null,
    clamped: c?.clamped ?? 0,
    absentZeroed,
  };
}

/** Every rejected row, from the scratch database, when more were rejected than kept in memory. */
function allRejections(
  staged: StagingFile | undefined,
  counts: { readonly rowsRejected?: number; readonly rejected?: readonly unknown[] },
): Iterable<RejectedRow> | undefined {
  if (staged === undefined) return undefined;
  if ((counts.rowsRejected ?? 0) <= (counts.rejected?.length ?? 0)) return undefined;
  return staged.rejections();
}

/**
 * A file whose content was applied before is a duplicate, unless a newer file of the same kind
 * (or, for stock, a snapshot) was applied since: then it is applied again, as the newest word.
 */
function duplicateSource(ctx: Ctx, hash: string): LedgerEntry | undefined {
  const prior = ctx.ledger.appliedByHash(hash);
  if (prior === undefined || prior.kind === null) return undefined;
  if (ctx.ledger.latestAppliedId(prior.kind) !== prior.id) return undefined;
  if (prior.kind !== 'shipment_confirmations') {
    const snapshotAt = new KeyValueStore(ctx.deps.db).get('snapshot.applied_at');
    if (snapshotAt !== undefined && snapshotAt >= (prior.committedAt ?? 0)) return undefined;
  }
  return prior;
}

type Unreadable = Omit<UnreadableFile, 'format' | 'kind' | 'positions' | 'hash'> & {
  readonly format: InboxFormat | undefined;
  readonly kind: FileKind | undefined;
  readonly rowsAccepted?: number;
  readonly rowsRejected?: number;
  readonly rejected?: CollectedFile['rejected'];
  readonly rejectedOmitted?: number;
  readonly ignoredColumns?: string[];
};

/** The report's common fields, and how the file was read (`reading`: what was collected). */
function base(
  ctx: Ctx,
  fields: Omit<ReportBase, 'file' | 'receivedAt' | 'now'>,
  reading?: Pick<CollectedFile, 'dialect' | 'headerRow' | 'clamped'>,
  absentZeroed = 0,
): FileReport {
  return {
    ...baseReport({ ...fields, file: ctx.name, receivedAt: ctx.receivedAt, now: ctx.clock.now() }),
    ...readingOf(ctx, reading, absentZeroed),
  };
}

/** A name that exists in none of processed/, failed/ and held/. */
function freshStoredName(ctx: Ctx, id: number): string {
  const paths = dataPaths(ctx.deps.dataDir);
  let name = storedName(ctx.receivedAt, id, ctx.name);
  for (
    let n = 2;
    existsSync(join(paths.processed, name)) ||
    existsSync(join(paths.failed, name)) ||
    existsSync(join(paths.held, name));
    n++
  ) {
    name = storedName(ctx.receivedAt, id, `${n}-${ctx.name}`);
  }
  return name;
}

interface Committed {
  readonly entry: LedgerEntry;
  readonly report: FileReport;
}

/** What commit found: done, or another worker got there first (finished or mid-way). */
type CommitResult = Committed | 'raced' | 'gone';

/**
 * The one write transaction of a file: the ledger row, then `apply` (data), then the report in
 * the row. BEGIN IMMEDIATE, so two workers handling the same file serialize: inside the lock the
 * file must still be in inbox/ (same inode) and not committed by the other one.
 */
function commit(
  ctx: Ctx,
  row: { kind: FileKind | null; hash: string; size: number; ino: number },
  build: (ledgerId: number, storedAs: string) => FileReport,
): CommitResult {
  const done = ctx.deps.db.transaction(() => commitRows(ctx, row, build)).immediate();
  if (typeof done === 'object') ctx.deps.hooks?.afterCommit?.();
  return done;
}

/** The inside of commit(): run within the caller's IMMEDIATE transaction. */
function commitRows(
  ctx: Ctx,
  row: { kind: FileKind | null; hash: string; size: number; ino: number },
  build: (ledgerId: number, storedAs: string) => FileReport,
): CommitResult {
  const { ledger } = ctx;
  const still = lstatSync(ctx.path, { throwIfNoEntry: false });
  if (still === undefined || still.ino !== row.ino) return 'gone';
  if (!row.hash.startsWith('special:')) {
    const raced = ledger.committedByHash(row.hash);
    if (raced !== undefined && raced.name === ctx.name) return 'raced';
  }
  const now = ctx.clock.now();
  const id = ledger.insert({
    name: ctx.name,
    contentHash: row.hash,
    size: row.size,
    kind: row.kind,
    receivedAt: ctx.receivedAt,
    committedAt: now,
  });
  const storedAs = freshStoredName(ctx, id);
  const report = build(id, storedAs);
  ledger.complete(id, storedAs, JSON.stringify(report));
  return { entry: ledger.get(id)!, report };
}

/** Continues after commit: moves the file, or defers to whoever got there first. */
function afterCommit(
  ctx: Ctx,
  done: CommitResult,
  st: Stats,
  rejections?: Iterable<RejectedRow>,
): Promise<FileOutcome> {
  if (done === 'gone') return Promise.resolve(nothing('missing', 'no longer in inbox/'));
  if (done === 'raced') return processInboxFile(ctx.path, ctx.deps);
  return finishMove(ctx, done.entry, done.report, st, rejections);
}

/**
 * A stock file whose rows are staged: the commit point records the ledger row and the apply
 * together (apply/applyStaged.ts), the merge follows in short transactions and completes the report.
 */
async function commitStaged(
  ctx: Ctx,
  st: Stats,
  hash: string,
  c: CollectedFile,
  staged: StagingFile,
): Promise<FileOutcome> {
  const { deps } = ctx;
  const kind: StockKind = c.kind === 'dc_stock' ? 'dc' : 'factory';
  // The guard rails run last in the "before apply" step (they see the rows other checks added):
  // a file that trips them is held here, its hold committed; the move to held/ follows once the
  // step is over.
  let guard: GuardReport | undefined;
  let held: CommitResult | undefined;
  let absentZeroed = 0;
  const guardCheck: BeforeApplyCheck = (step) => {
    const g = guardStockFile(step.db, deps.guard, {
      contentHash: hash,
      kind,
      staged: { table: step.table },
    });
    guard = g.report;
    if (!g.hold) return undefined;
    held = commitHeld(ctx, st, hash, c, g.report, { table: step.table }, absentZeroed);
    return { hold: g.report.reason };
  };
  // Before apply: a full export's set gains the keys it sets to 0 by omission, ahead of every
  // other check (the guard rails count them as keys it names).
  const checks = [
    ...(ctx.plan.absent === 'zero' ? [zeroAbsentKeys([kind], (_, n) => (absentZeroed = n))] : []),
    ...(deps.checks ?? []),
    guardCheck,
  ];
  const out = await applyStagedSet(
    { ...applyDeps(deps), checks },
    staged,
    { type: 'file', name: ctx.name, kind },
    (stagedFile) => {
      const result = commitRows(
        ctx,
        { kind: c.kind, hash, size: st.size, ino: st.ino },
        (ledgerId, storedAs) => ({
          ...stockReport(
            base(
              ctx,
              {
                ledgerId,
                storedAs,
                outcome: 'processed',
                format: c.format,
                kind: c.kind,
                hash,
                size: st.size,
              },
              c,
              absentZeroed,
            ),
            c,
          ),
          ...(guard === undefined ? {} : { guard }),
        }),
      );
      if (typeof result !== 'object') return { applyId: undefined, result };
      // The file's modification time (never later than when it was seen) orders files: one
      // applied late (after a crash) never overwrites the rows of a newer file.
      const applyId = recordStagedApply(deps.db, {
        stagedFile,
        source: `file:${result.entry.id}`,
        fileId: result.entry.id,
        sourceAt: fileSourceTime(ctx.name, st, ctx.receivedAt, deps.log),
        appliedAt: ctx.clock.now(),
      });
      return { applyId, result };
    },
  );
  if (out.status === 'held' && held !== undefined) return afterCommit(ctx, held, st);
  if (out.status === 'held') {
    deps.log.info(
      { event: 'file.not_applied', file: ctx.name, reason: out.reason },
      `${ctx.name} held before apply: ${out.reason}`,
    );
    return { ...nothing('skipped', out.reason), status: 'held', kind: c.kind };
  }
  if (out.status === 'not_decided') return afterCommit(ctx, out.decided.result, st);
  deps.hooks?.afterCommit?.();
  const { entry } = out.decided.result as Committed;
  const fresh = ctx.ledger.get(entry.id)!;
  const outcome = await afterCommit(
    ctx,
    { entry: fresh, report: JSON.parse(fresh.report!) as FileReport },
    st,
    allRejections(staged, c),
  );
  return { ...outcome, pendingKeys: out.totals.differing };
}

/**
 * A stock file the guard rails stopped, from inside the "before apply" step: its ledger row
 * (outcome 'held'), the held entry and its rows copied from the staged set, in one transaction,
 * and no data applied. The caller then writes the report and moves the file to held/
 * (afterCommit, outside the step). A crash before the move leaves the file in inbox/ with that
 * row 'committed': the next pass only finishes the move.
 */
function commitHeld(
  ctx: Ctx,
  st: Stats,
  hash: string,
  c: CollectedFile,
  guard: GuardReport,
  staged: { readonly table: string },
  absentZeroed: number,
): CommitResult {
  const kind: StockKind = c.kind === 'dc_stock' ? 'dc' : 'factory';
  return commit(ctx, { kind: c.kind, hash, size: st.size, ino: st.ino }, (ledgerId, storedAs) => {
    const heldId = new HeldStore(ctx.deps.db).hold(
      {
        source: 'file',
        fileId: ledgerId,
        name: ctx.name,
        storedAs,
        kind: c.kind,
        contentHash: hash,
        reason: guard.reason,
        report: JSON.stringify(guard),
        sourceAt: Math.floor(st.mtimeMs),
        heldAt: ctx.clock.now(),
      },
      { table: staged.table, kind },
    );
    const report = stockReport(
      base(
        ctx,
        {
          ledgerId,
          storedAs,
          outcome: 'held',
          format: c.format,
          kind: c.kind,
          hash,
          size: st.size,
        },
        c,
        absentZeroed,
      ),
      c,
    );
    const { stock: _none, ...rest } = report;
    return {
      ...rest,
      held: true,
      reason: `held by the guard rails: ${guard.reason}`,
      guard: { ...guard, heldId },
    };
  });
}

function applyDeps(deps: IngestDeps): ApplyDeps {
  return {
    db: deps.db,
    log: deps.log,
    dataDir: deps.dataDir,
    ...(deps.checks === undefined ? {} : { checks: deps.checks }),
    ...(deps.chunkRows === undefined ? {} : { chunkRows: deps.chunkRows }),
    ...(deps.hooks?.afterChunk === undefined ? {} : { afterChunk: deps.hooks.afterChunk }),
  };
}

/** A confirmations file: its rows stored in the commit transaction itself. */
async function commitCollected(
  ctx: Ctx,
  st: Stats,
  hash: string,
  c: CollectedFile,
  staged: StagingFile | undefined,
): Promise<FileOutcome> {
  let results: ConfirmationResult[] = [];
  const committed = commit(
    ctx,
    { kind: c.kind, hash, size: st.size, ino: st.ino },
    (ledgerId, storedAs) => {
      const b = base(
        ctx,
        {
          ledgerId,
          storedAs,
          outcome: 'processed',
          format: c.format,
          kind: c.kind,
          hash,
          size: st.size,
        },
        c,
      );
      results = storeConfirmations(ctx.deps.db, c.confirmations, {
        fileId: ledgerId,
        now: ctx.clock.now(),
      });
      return confirmationsReport(b, c, results);
    },
  );
  const outcome = await afterCommit(ctx, committed, st, allRejections(staged, c));
  for (const r of results) {
    for (const old of r.replaced ?? []) {
      ctx.deps.log.info(
        {
          event: 'shipment.confirmation_replaced',
          file: ctx.name,
          line: r.line,
          order_number: r.orderNumber,
          action: old.action,
          was: { carrier: old.carrier, tracking_number: old.trackingNumber, status: old.status },
        },
        `${old.action} of ${r.orderNumber} corrected by line ${r.line} of ${ctx.name}`,
      );
    }
  }
  if (typeof committed !== 'object') return outcome;
  const counts = { new: 0, duplicate: 0, conflict: 0 };
  for (const r of results) counts[r.outcome]++;
  return { ...outcome, confirmations: counts };
}

async function commitUnreadable(
  ctx: Ctx,
  st: Stats,
  hash: string,
  u: Unreadable,
  staged?: StagingFile,
): Promise<FileOutcome> {
  const committed = commit(
    ctx,
    { kind: u.kind ?? null, hash, size: st.size, ino: st.ino },
    (ledgerId, storedAs) =>
      failedReport(
        base(
          ctx,
          {
            ledgerId,
            storedAs,
            outcome: 'failed',
            format: u.format,
            kind: u.kind,
            hash,
            size: st.size,
          },
          u,
        ),
        u.reason,
        u,
      ),
  );
  return afterCommit(ctx, committed, st, allRejections(staged, u));
}

async function commitDuplicate(
  ctx: Ctx,
  st: Stats,
  hash: string,
  prior: LedgerEntry,
): Promise<FileOutcome> {
  const priorReport = prior.report ? (JSON.parse(prior.report) as FileReport) : undefined;
  const committed = commit(
    ctx,
    { kind: prior.kind as FileKind | null, hash, size: st.size, ino: st.ino },
    (ledgerId, storedAs) =>
      duplicateReport(
        base(ctx, {
          ledgerId,
          storedAs,
          outcome: 'duplicate',
          format: priorReport?.format ?? formatOf(ctx.name),
          kind: prior.kind as FileKind | null,
          hash,
          size: st.size,
        }),
        prior,
      ),
  );
  return afterCommit(ctx, committed, st);
}

async function rejectSpecial(ctx: Ctx, st: Stats): Promise<FileOutcome> {
  const what = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFIFO()
      ? 'a named pipe (FIFO)'
      : st.isSocket()
        ? 'a socket'
        : 'a device or other special file';
  const reason = `${what}: inbox files must be regular files; links and special files are never followed or read`;
  const committed = commit(
    ctx,
    { kind: null, hash: `special:${st.ino}`, size: 0, ino: st.ino },
    (ledgerId, storedAs) => ({
      ...base(ctx, {
        ledgerId,
        storedAs,
        outcome: 'failed',
        format: undefined,
        kind: null,
        hash: null,
        size: 0,
      }),
      reason,
    }),
  );
  return afterCommit(ctx, committed, st);
}

/**
 * Completes a file found 'committed' in the ledger (a crash after its commit): first the merge
 * of its staged rows, when a crash interrupted it, then the move.
 */
async function finishCommitted(ctx: Ctx, entry: LedgerEntry, st: Stats): Promise<FileOutcome> {
  let current = entry;
  if (stagedApplyOfFile(ctx.deps.db, entry.id) !== undefined) {
    await resumeStagedApplies(applyDeps(ctx.deps), entry.id);
    const after = ctx.ledger.get(entry.id);
    // Its scratch file was lost: the row is gone, the file is read again from the start.
    if (after === undefined) return processInboxFile(ctx.path, ctx.deps);
    current = after;
  }
  const report = JSON.parse(current.report!) as FileReport;
  return finishMove(ctx, current, report, st);
}

/**
 * Report first (temp + rename), then the file, then the ledger: a crash anywhere leaves the file
 * in inbox/ with its ledger row 'committed' (finished on the next pass), or done.
 */
async function finishMove(
  ctx: Ctx,
  entry: LedgerEntry,
  report: FileReport,
  st: Stats,
  rejections?: Iterable<RejectedRow>,
): Promise<FileOutcome> {
  const { deps, ledger } = ctx;
  const paths = dataPaths(deps.dataDir);
  const folder = folderFor(paths, report.outcome);
  const destination = join(folder, entry.destName!);
  const reportPath = reportPathFor(destination);
  await writeReportFile(reportPath, report, rejections);
  await moveIfSame(ctx, destination, st);
  ledger.finish(entry.id, report.outcome, ctx.clock.now());

  const counts = {
    file: ctx.name,
    storedAs: entry.destName,
    ledgerId: entry.id,
    kind: report.kind,
    format: report.format,
    rowsRead: report.rowsRead,
    rowsAccepted: report.rowsAccepted,
    rowsRejected: report.rowsRejected,
    duplicateRows: report.duplicates.rows,
    ...(report.profile ? { profile: report.profile } : {}),
    ...(report.encoding ? { encoding: report.encoding, delimiter: report.delimiter } : {}),
    ...(report.clamped ? { clamped: report.clamped } : {}),
    ...(report.absentZeroed ? { absentZeroed: report.absentZeroed } : {}),
    ms: ctx.clock.now() - ctx.receivedAt,
  };
  if (report.outcome === 'held') {
    const g = report.guard;
    deps.log.warn(
      {
        event: 'file.held',
        ...counts,
        heldId: g?.heldId,
        reason: g?.reason,
        tripped: g?.tripped,
        figures: g?.figures,
        examples: g?.examples.slice(0, 5),
      },
      `${ctx.name} held by the guard rails (release ${g?.heldId} or reject ${g?.heldId}): ${g?.reason}`,
    );
  } else if (report.outcome === 'failed') {
    deps.log.warn(
      { event: 'file.failed', ...counts, reason: report.reason },
      `${ctx.name} failed: ${report.reason}`,
    );
  } else if (report.outcome === 'duplicate') {
    deps.log.info(
      { event: 'file.duplicate', ...counts, duplicateOf: report.duplicateOf },
      `${ctx.name} is a duplicate`,
    );
  } else {
    deps.log.info(
      {
        event: 'file.processed',
        ...counts,
        stock: report.stock,
        confirmations: countsOf(report),
        ...(report.guard?.released ? { released: report.guard.released } : {}),
      },
      `${ctx.name} processed`,
    );
  }
  return {
    status: report.outcome,
    kind: report.kind,
    rowsRead: report.rowsRead,
    rowsAccepted: report.rowsAccepted,
    rowsRejected: report.rowsRejected,
    destination,
    reportPath,
    ledgerId: entry.id,
    ...(report.reason === undefined ? {} : { reason: report.reason }),
  };
}

function countsOf(report: FileReport) {
  const c = report.confirmations;
  return c === undefined ? undefined : { new: c.new, duplicate: c.duplicate, conflict: c.conflict };
}

/**
 * Moves the inbox file into place (see moveInboxEntry: a rename, or a durable copy when inbox/
 * is another file system), unless it is no longer the file that was read (removed, replaced
 * by a new file of the same name, or written again since it was read: left for its own turn).
 */
async function moveIfSame(ctx: Ctx, destination: string, read: Stats): Promise<void> {
  const { log } = ctx.deps;
  const moved = await moveInboxEntry(ctx.path, destination, read, ctx.deps.hooks?.rename);
  if (moved === 'replaced') {
    log.warn(
      { event: 'file.replaced', file: ctx.name },
      `${ctx.name} was replaced while it was handled; the new file is read on its own`,
    );
  } else if (moved === 'rewritten') {
    log.warn(
      { event: 'file.rewritten', file: ctx.name },
      `${ctx.name} was written again after it was read; it stays in inbox/ and is read again`,
    );
  } else if (moved === 'copied') {
    log.info(
      { event: 'file.moved_by_copy', file: ctx.name },
      `${ctx.name} copied out of inbox/ (another file system), then removed there`,
    );
  } else if (moved === 'removed') {
    log.warn(
      { event: 'file.special_removed', file: ctx.name },
      `${ctx.name} is a special file on another file system: removed from inbox/, see its report`,
    );
  }
}

function nothing(status: 'missing' | 'skipped', reason: string): FileOutcome {
  return {
    status,
    kind: null,
    rowsRead: 0,
    rowsAccepted: 0,
    rowsRejected: 0,
    destination: null,
    reportPath: null,
    reason,
  };
}

function unread(name: string) {
  return { format: formatOf(name), kind: undefined, rowsRead: 0, clamped: 0 } as const;
}

function isCode(err: unknown, code: string): boolean {
  return (err as { code?: unknown } | null)?.code === code;
}
