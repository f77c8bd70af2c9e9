import type { Stats } from 'node:fs';
import type { Profile } from '../../config/profiles.ts';
import type { Clock } from '../../domain/clock.ts';
import type { GuardThresholds } from '../../domain/guard.ts';
import type { StockKind } from '../../domain/stock.ts';
import type { LocationMap } from '../../domain/stockRules.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import type { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import type { ApplyDeps, BeforeApplyCheck } from '../apply/applyStaged.ts';
import type { RenameFn } from '../inbox/inboxMove.ts';
import type { DcDirectory } from '../validate/dcDirectory.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { ReadPlan } from '../validate/readPlan.ts';
import type { ProductReading } from './productHandler.ts';

/** What processInboxFile is given: state.db, the data dir, the checks and the seams. */
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
  /** SYNC_TIMEZONE: a profile's `today()` is the date there. Default UTC. */
  readonly timeZone?: string;
  /**
   * Reads the portal's whole stock of a kind into remote_stock; true when the read was complete.
   * A full export (`absent: "zero"`) of a kind the portal's stock was never read of waits for it,
   * so that it knows which keys to zero. Unset: what state.db knows is used.
   */
  readonly readPortalStock?: (kind: StockKind) => Promise<boolean>;
  /**
   * How far the clock has gone back in all, as the daemon noticed it (ms): added to files' times
   * (domain/sourceTime.ts). Unset: 0.
   */
  readonly carriedMs?: () => number;
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
    readonly afterChunk?: (applyId: number) => void | Promise<void>;
    readonly rename?: RenameFn;
  };
  /**
   * Products files: IMAGE_TYPE, the portal's references (fresh), whether the portal is known to
   * have a SKU, and CATALOGUE_MAX_NEW (the guard rail). Absent: codes unchecked, no guard rail.
   */
  readonly products?: ProductReading & { readonly maxNew?: number };
  /** A reason to send the file to failed/ unread (attempts.ts: too many failed attempts). */
  readonly giveUp?: (st: Stats) => string | undefined;
  /**
   * Called right before the file's rows are read (attempts.ts records the attempt durably first,
   * so that a reading the process does not survive is counted).
   */
  readonly beforeRead?: (st: Stats) => void;
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
  /** Products queued for creation by a products file. */
  readonly productsQueued?: number;
}

/** One inbox file being handled: its path and name, the deps, and what was fixed at its start. */
export interface FileContext {
  readonly path: string;
  readonly name: string;
  readonly deps: IngestDeps;
  readonly clock: Clock;
  readonly ledger: InboxLedger;
  readonly receivedAt: number;
  /** How the file is read: its profile (by name) or the defaults. */
  readonly plan: ReadPlan;
  /**
   * Handles the file again from the start: another worker got there first, or the scratch file
   * of its interrupted apply was lost.
   */
  readonly again: () => Promise<FileOutcome>;
}

/** The outcome of a file that was not handled: not an inbox file, or no longer there. */
export function notHandled(status: 'missing' | 'skipped', reason: string): FileOutcome {
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

/** The stock kind of a stock file's kind. */
export function stockKindOf(kind: FileKind): StockKind {
  return kind === 'dc_stock' ? 'dc' : 'factory';
}

/** The staged apply's deps, from the ingest's. */
export function applyDepsOf(deps: IngestDeps): ApplyDeps {
  return {
    db: deps.db,
    log: deps.log,
    dataDir: deps.dataDir,
    ...(deps.checks === undefined ? {} : { checks: deps.checks }),
    ...(deps.chunkRows === undefined ? {} : { chunkRows: deps.chunkRows }),
    ...(deps.hooks?.afterChunk === undefined ? {} : { afterChunk: deps.hooks.afterChunk }),
  };
}
