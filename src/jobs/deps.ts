import type { ShipmentsPortal, StockReader, StockWriter } from '../api/index.ts';
import type { Config } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import type { RetrySettings } from '../domain/retrySchedule.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import type { Nudges } from './nudges.ts';

/** What an inbox file's processing reports back to the job that ran it. */
export interface IngestResult {
  readonly status: string;
  /** Stock rows were stored: a push may have work. */
  readonly stockChanged: boolean;
  /** Confirmations were stored: the confirm job may have work. */
  readonly confirmationsAdded: boolean;
}

/** Everything a job processor may use; the daemon assembles it once. */
export interface JobDeps {
  readonly config: Config;
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** Aborts on shutdown: long jobs stop between calls. */
  readonly signal: AbortSignal;
  readonly nudges: Nudges;
  /**
   * True while a push runs or waits to run (and is not held back by its lane's pause): reading
   * stops between pages and leaves the budget to it.
   */
  readonly pushDue: () => Promise<boolean>;
  /**
   * True once every file that was in the inbox at start has been applied (or a bounded wait has
   * passed): only then are first starts decided (sync/establish.ts).
   */
  readonly startFilesApplied?: () => boolean;
  readonly writer: StockWriter;
  readonly reader: StockReader;
  readonly shipments: ShipmentsPortal;
  /** Back-off of items the portal rejected. */
  readonly retry: RetrySettings;
  /**
   * Processes the inbox file of this name (parse, validate, commit, move, report): the path is
   * rebuilt under inbox/, and a name that is not a plain file name throws.
   */
  readonly ingestFile: (name: string) => Promise<IngestResult>;
  /** Reads the ERP snapshot into desired stock; true when rows were stored. */
  readonly readSnapshot: () => Promise<boolean>;
  /** Refreshes the cached distribution-centre list. */
  readonly refreshDistributionCentres: () => Promise<void>;
  /** Rewrites the reports of inbox files whose confirmations got a final answer. */
  readonly updateConfirmationReports: (fileIds: readonly number[]) => Promise<void>;
}
