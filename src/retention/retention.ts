import type { Clock } from '../domain/clock.ts';
import type { PrunedFiles } from '../domain/prunedFiles.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import {
  ledgerIdsAwaitingReports,
  NO_ROWS_PRUNED,
  type PrunedRows,
  pruneFinishedRows,
} from '../state/rowRetention.ts';

/** What retention needs from around it. */
export interface RetentionEdges {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** RETENTION_DAYS; 0 keeps everything. */
  readonly retentionDays: number;
  /**
   * Removes the handled files (and their reports) received before `cutoff`, but those named in
   * `keep` (ledger ids whose reports are still owed): ingestion owns the inbox's folders.
   */
  readonly pruneFiles: (cutoff: number, keep: ReadonlySet<number>) => Promise<PrunedFiles>;
}

/** Retention (RETENTION_DAYS): what nothing needs any more goes, daily and at start. */
export interface Retention {
  prune(): Promise<RetentionResult>;
}

export interface RetentionResult {
  /** Epoch ms: what was received or finished before it was pruned; null when nothing runs. */
  readonly cutoff: number | null;
  readonly files: PrunedFiles;
  readonly rows: PrunedRows;
}

const DAY_MS = 86_400_000;

/**
 * One retention run (daily, and at start): handled files in processed/ and failed/ received more
 * than RETENTION_DAYS ago go with their reports, then the rows of every table that grows with
 * time that nothing needs any more — the file ledger, shipments confirmed or gone from the list,
 * confirmations, counted attempts at files, last pushes, decided held entries, operator
 * requests, answered product requests — and calls and logins beyond the hours the budget counts (see state/rowRetention.ts
 * and docs/operations.md for what is kept however old). Logged as `retention.pruned` with the
 * counts.
 */
export function createRetention(edges: RetentionEdges): Retention {
  return { prune: () => pruneRetained(edges) };
}

async function pruneRetained(deps: RetentionEdges): Promise<RetentionResult> {
  const none: RetentionResult = {
    cutoff: null,
    files: { processed: 0, failed: 0, reports: 0 },
    rows: NO_ROWS_PRUNED,
  };
  if (deps.retentionDays <= 0) return none;
  const clock = deps.clock;
  const started = clock.now();
  const cutoff = started - deps.retentionDays * DAY_MS;
  // Files first: which ones must stay is read from rows the second step may prune.
  const files = await deps.pruneFiles(cutoff, ledgerIdsAwaitingReports(deps.db));
  const rows = pruneFinishedRows(deps.db, cutoff, started);
  const removedFiles = files.processed + files.failed;
  const removedRows = Object.values(rows).reduce((sum, n) => sum + n, 0);
  deps.log.info(
    {
      event: 'retention.pruned',
      retentionDays: deps.retentionDays,
      cutoff: new Date(cutoff).toISOString(),
      files,
      rows,
      ms: clock.now() - started,
    },
    `retention: ${removedFiles} handled files and ${removedRows} finished rows older than ${deps.retentionDays} days pruned`,
  );
  return { cutoff, files, rows };
}
