import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import type { LedgerEntry } from '../../state/inbox/inboxLedger.ts';
import { stagedApplyOfFile } from '../../state/staging/stagedApplyTable.ts';
import { resumeStagedApplies } from '../apply/applyStaged.ts';
import { moveInboxEntry } from '../inbox/inboxMove.ts';
import { folderFor, reportPathFor } from '../inbox/storedNames.ts';
import { applyDepsOf, type FileContext, type FileOutcome, notHandled } from './fileContext.ts';
import { finishWithNotice } from './finishNotice.ts';
import type { CommitResult } from './ledgerCommit.ts';
import { withProductsNow } from './productReports.ts';
import type { FileReport } from './report.ts';
import { writeReportFile } from './writeReport.ts';

/** Continues after commit: moves the file, or defers to whoever got there first. */
export function afterCommit(ctx: FileContext, done: CommitResult, st: Stats): Promise<FileOutcome> {
  if (done === 'gone') return Promise.resolve(notHandled('missing', 'no longer in inbox/'));
  if (done === 'raced') return ctx.again();
  return finishMove(ctx, done.entry, done.report, st);
}

/**
 * Completes a file found 'committed' in the ledger (a crash after its commit): first the merge
 * of its staged rows, when a crash interrupted it, then the move.
 */
export async function finishCommitted(
  ctx: FileContext,
  entry: LedgerEntry,
  st: Stats,
): Promise<FileOutcome> {
  let current = entry;
  if (stagedApplyOfFile(ctx.deps.db, entry.id) !== undefined) {
    await resumeStagedApplies(applyDepsOf(ctx.deps), entry.id);
    const after = ctx.ledger.get(entry.id);
    // Its scratch file was lost: the row is gone, the file is read again from the start.
    if (after === undefined) return ctx.again();
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
  ctx: FileContext,
  entry: LedgerEntry,
  report: FileReport,
  st: Stats,
): Promise<FileOutcome> {
  const { deps, ledger } = ctx;
  const paths = dataPaths(deps.dataDir);
  const folder = folderFor(paths, report.outcome);
  const destination = join(folder, entry.destName!);
  const reportPath = reportPathFor(destination);
  const written = withProductsNow(deps.db, entry.id, report);
  await writeReportFile(reportPath, written);
  await moveIfSame(ctx, destination, st);
  finishWithNotice(deps.db, ledger, entry, report.outcome, report, {
    now: ctx.clock.now(),
    dataDir: deps.dataDir,
    reportPath,
  });
  // Creations answered while the file was moved: their report updates skipped it until now.
  if (report.kind === 'products') {
    const now = withProductsNow(deps.db, entry.id, report);
    if (JSON.stringify(now) !== JSON.stringify(written)) await writeReportFile(reportPath, now);
  }
  logFinished(ctx, entry, report);
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

/** The line that says how a file ended: file.held, file.failed, file.duplicate, file.processed. */
function logFinished(ctx: FileContext, entry: LedgerEntry, report: FileReport): void {
  const { log } = ctx.deps;
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
    const c = report.catalogueGuard;
    const heldId = g?.heldId ?? c?.heldId;
    const reason = g?.reason ?? c?.reason;
    log.warn(
      {
        event: 'file.held',
        ...counts,
        heldId,
        reason,
        tripped: g?.tripped ?? (c ? ['catalogue'] : undefined),
        figures: g?.figures ?? (c ? { wouldCreate: c.wouldCreate } : undefined),
        examples: g?.examples.slice(0, 5),
      },
      `${ctx.name} held by the guard rails (release ${heldId} or reject ${heldId}): ${reason}`,
    );
  } else if (report.outcome === 'failed') {
    log.warn(
      { event: 'file.failed', ...counts, reason: report.reason },
      `${ctx.name} failed: ${report.reason}`,
    );
  } else if (report.outcome === 'duplicate') {
    log.info(
      { event: 'file.duplicate', ...counts, duplicateOf: report.duplicateOf },
      `${ctx.name} is a duplicate`,
    );
  } else {
    log.info(
      {
        event: 'file.processed',
        ...counts,
        stock: report.stock,
        confirmations: countsOf(report),
        ...(report.products
          ? {
              products: {
                toCreate: report.products.toCreate,
                existing: report.existing,
                shortDescription: report.shortDescription,
              },
            }
          : {}),
        ...(report.guard?.released ? { released: report.guard.released } : {}),
        ...(report.catalogueGuard?.released ? { released: report.catalogueGuard.released } : {}),
      },
      `${ctx.name} processed`,
    );
  }
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
async function moveIfSame(ctx: FileContext, destination: string, read: Stats): Promise<void> {
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
