/**
 * The rows of the inbox family's tables as SQLite returns them (`SELECT *`), as the migrations
 * made them. The stores here and the reads across families (keyFacts.ts) take them from here.
 */

export type LedgerStatus = 'committed' | 'processed' | 'failed' | 'duplicate' | 'held' | 'released';

/** inbox_files: the ledger, one row per inbox file handled. */
export interface InboxFileRow {
  readonly id: number;
  readonly name: string;
  readonly content_hash: string;
  readonly size: number;
  readonly kind: string | null;
  readonly status: LedgerStatus;
  /** Its name in processed/, failed/ or held/, once committed. */
  readonly dest_name: string | null;
  /** The report, as JSON. */
  readonly report: string | null;
  readonly received_at: number;
  readonly committed_at: number | null;
  readonly finished_at: number | null;
}
