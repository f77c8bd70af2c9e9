import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { writeFileAtomic } from '../../files/durable.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { ProductRequests } from '../../state/products/productRequests.ts';
import { reportPathFor } from '../inbox/storedNames.ts';
import { productsFields } from './productsSection.ts';
import type { FileReport } from './report.ts';

/**
 * A products file's report with its products as they stand now (created, existing, failed,
 * waiting): written so when the file is moved, and again as the portal answers.
 */
export function withProductsNow(
  db: StateDb,
  fileId: number,
  report: FileReport,
  now?: number,
): FileReport {
  const p = report.products;
  if (report.kind !== 'products' || p === undefined || report.outcome !== 'processed')
    return report;
  const requests = new ProductRequests(db).ofFile(fileId);
  return {
    ...report,
    ...productsFields(
      { ...p, shortDescription: report.shortDescription ?? 0 },
      requests,
      report.catalogueGuard,
      now,
    ),
  };
}

/** Adds the portal's answers to the reports of these products files (by ledger id). */
export async function updateProductReports(
  db: StateDb,
  dataDir: string,
  fileIds: readonly number[],
  log: Logger,
  now: number,
): Promise<void> {
  const ledger = new InboxLedger(db);
  for (const id of fileIds) {
    const entry = ledger.get(id);
    // A file not moved yet gets its products as they stand when it is (finishFile.ts).
    if (!entry?.destName || entry.status === 'committed') continue;
    const path = reportPathFor(join(dataPaths(dataDir).processed, entry.destName));
    try {
      const report = JSON.parse(await readFile(path, 'utf8')) as FileReport;
      await writeFileAtomic(
        path,
        `${JSON.stringify(withProductsNow(db, id, report, now), null, 2)}\n`,
      );
    } catch (err) {
      log.warn(
        { event: 'report.update_failed', file: entry.destName, err },
        `could not update the report of ${entry.destName}`,
      );
    }
  }
}
