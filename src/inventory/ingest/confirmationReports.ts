import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { writeFileAtomic } from '../../files/durable.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { ConfirmationSends } from '../../state/shipments/confirmationSends.ts';
import { reportPathFor } from '../inbox/storedNames.ts';

/**
 * Adds the portal's answers to the report of each confirmations file: a `portal` section with
 * every row's status (confirmed, failed with the portal's message, pending, conflict).
 */
export async function updateConfirmationReports(
  db: StateDb,
  dataDir: string,
  fileIds: readonly number[],
  log: Logger,
): Promise<void> {
  const ledger = new InboxLedger(db);
  const sends = new ConfirmationSends(db);
  for (const id of fileIds) {
    const entry = ledger.get(id);
    if (!entry?.destName) continue;
    const path = reportPathFor(join(dataPaths(dataDir).processed, entry.destName));
    try {
      const report = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      const rows = sends.ofFile(id).map((c) => ({
        line: c.line,
        order_number: c.orderNumber,
        action: c.action,
        status: c.status,
        ...(c.error ? { error: c.error } : {}),
      }));
      report.portal = {
        updatedAt: new Date().toISOString(),
        confirmed: rows.filter((r) => r.status === 'confirmed').length,
        failed: rows.filter((r) => r.status === 'failed').length,
        pending: rows.filter((r) => r.status === 'pending').length,
        rows,
      };
      await writeFileAtomic(path, `${JSON.stringify(report, null, 2)}\n`);
    } catch (err) {
      log.warn(
        { event: 'report.update_failed', file: entry.destName, err },
        `could not update the report of ${entry.destName}`,
      );
    }
  }
}
