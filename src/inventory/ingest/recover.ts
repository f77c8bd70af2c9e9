import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import { type Clock, systemClock } from '../../domain/clock.ts';
import { writeFileAtomic } from '../../files/durable.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { recoverStaging } from '../apply/applyStaged.ts';
import { folderFor, reportPathFor } from '../inbox/storedNames.ts';
import { finishWithNotice } from './finishNotice.ts';
import type { FileReport } from './report.ts';

export interface RecoverDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly dataDir: string;
  readonly clock?: Clock;
}

export interface RecoverResult {
  /** Ledger rows set to their final status (the move had happened, or the file is gone). */
  readonly finished: number;
  /** Files still in inbox/ with a committed row: processInboxFile finishes them (no re-apply). */
  readonly waiting: string[];
}

/**
 * Run at start: finishes applies a crash interrupted (and removes scratch files nobody needs),
 * then settles ledger rows left 'committed' by a crash after the file was renamed but
 * before the row was finished. Files still in inbox/ are left to processInboxFile, which finds
 * their committed row by content and only finishes the move.
 */
export async function recoverInbox(deps: RecoverDeps): Promise<RecoverResult> {
  const clock = deps.clock ?? systemClock;
  // First any apply decided before a crash, merged to the end (see apply/applyStaged.ts).
  await recoverStaging({ db: deps.db, log: deps.log, dataDir: deps.dataDir });
  const ledger = new InboxLedger(deps.db);
  const paths = dataPaths(deps.dataDir);
  let finished = 0;
  const waiting: string[] = [];
  for (const entry of ledger.committed()) {
    if (existsSync(join(paths.inbox, entry.name))) {
      waiting.push(entry.name);
      continue;
    }
    const report = entry.report ? (JSON.parse(entry.report) as FileReport) : undefined;
    const outcome = report?.outcome ?? 'failed';
    const folder = folderFor(paths, outcome);
    const stored = entry.destName ? join(folder, entry.destName) : undefined;
    if (stored && report && existsSync(stored) && !existsSync(reportPathFor(stored))) {
      await writeFileAtomic(reportPathFor(stored), `${JSON.stringify(report, null, 2)}\n`);
    }
    finishWithNotice(deps.db, ledger, entry, outcome, report, {
      now: clock.now(),
      dataDir: deps.dataDir,
      reportPath: stored && reportPathFor(stored),
    });
    finished++;
    deps.log.info(
      {
        event: 'file.recovered',
        file: entry.name,
        ledgerId: entry.id,
        outcome,
        moved: stored !== undefined && existsSync(stored),
      },
      `ledger row of ${entry.name} settled after a restart`,
    );
  }
  return { finished, waiting };
}
