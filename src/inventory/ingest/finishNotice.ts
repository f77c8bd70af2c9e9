import { relative } from 'node:path';
import { fileNotification } from '../../domain/notification.ts';
import type { StateDb } from '../../state/db.ts';
import type { InboxLedger, LedgerEntry } from '../../state/inbox/inboxLedger.ts';
import { enqueueNotification } from '../../state/notify/notifyOutbox.ts';
import type { FileReport } from './report.ts';

/**
 * Sets a ledger row to its final status and, in the same transaction, writes the notification
 * its end calls for (a failed file, a held file, rejected rows): both or neither, and only on
 * the row's one change from 'committed', so that a file finished again after a crash is not
 * told twice.
 */
export function finishWithNotice(
  db: StateDb,
  ledger: InboxLedger,
  entry: LedgerEntry,
  outcome: FileReport['outcome'],
  report: FileReport | undefined,
  at: { readonly now: number; readonly dataDir: string; readonly reportPath: string | undefined },
): void {
  db.transaction(() => {
    if (!ledger.finish(entry.id, outcome, at.now) || report === undefined) return;
    const n = fileNotification(
      {
        file: entry.name,
        storedAs: entry.destName,
        ledgerId: entry.id,
        outcome,
        kind: report.kind,
        rowsRead: report.rowsRead,
        rowsAccepted: report.rowsAccepted,
        rowsRejected: report.rowsRejected,
        reason: report.guard?.held ? report.guard.reason : report.reason,
        heldId: report.guard?.heldId ?? report.catalogueGuard?.heldId,
        tripped: report.guard?.tripped,
        report: at.reportPath === undefined ? '' : relative(at.dataDir, at.reportPath),
      },
      at.now,
    );
    if (n !== undefined) enqueueNotification(db, n);
  })();
}
